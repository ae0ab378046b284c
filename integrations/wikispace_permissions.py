"""Who may read a wiki page, in source principals (`everyone`, `user:<email>`,
`group:wikispace:<group id, or name where the wiki has no ids>`), and how the wiki's JSON gives the
facts it rests on: who may view the space, and the read restrictions of the page and of its
ancestors.

The wiki's own rule: a person reads a page when they may view its space and, at every level of the
page's tree that has read restrictions (the page itself and each ancestor), they are named or in a
named group. Readers are a flat set of principals, any one of which admits a caller, so the rule is
written down as follows and never admits a person the wiki would refuse:

- no restricted level: the space's viewers (`everyone` when the space admits anonymous users, or
  when the wiki does not say who may view it); a view granted to a v2 principal other than a user
  or a group (a role, an access class) is left out, giving fewer readers, never more;
- restricted levels: a group is a reader when it is named at every restricted level and may view
  the space (or the space is open); a user named at any restricted level is a reader when, at every
  restricted level, they are named or one of their groups is, and they may view the space
  (named, in a group that may, or the space is open) — their groups are the wiki's group membership
  of that user, read once per user and discovery. A group named at some levels only is not a
  reader (its members are found as users only where a level names them);
- a user is written as `user:<email>`; a reader whose e-mail the wiki hides makes the page's
  readers unreadable (`Unreadable`), never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from core import readers as source_principals
from core.readers import EVERYONE, user_principal

PLATFORM = "wikispace"


class Unreadable(Exception):
    """The readers of a page cannot be told; the message says why (no secret in it)."""


@dataclass(frozen=True)
class Restriction:
    """The read restriction of one piece of content: the users (account ids) and groups (keys)
    allowed; neither: the content is not restricted at this level."""

    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()

    @property
    def restricted(self) -> bool:
        return bool(self.users or self.groups)


@dataclass(frozen=True)
class PageAccess:
    """What a content listing says about a page's access: its ancestors (ids, root first) and its
    own read restriction (None when the listing did not carry it whole; read it on its own)."""

    ancestors: tuple[str, ...]
    restriction: Restriction | None


@dataclass(frozen=True)
class SpaceAccess:
    """Who may view a space: anyone (`everyone`), or the named users and groups."""

    everyone: bool = False
    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()


OPEN_SPACE = SpaceAccess(everyone=True)


# ---- the rule
def page_readers(
    levels: Iterable[Restriction],
    space: SpaceAccess,
    *,
    groups_of: Callable[[str], frozenset[str]],
    email_of: Callable[[str], str],
) -> tuple[str, ...]:
    """The readers of a page whose tree (ancestors and the page) has the read restrictions
    `levels`, in a space viewed by `space`. `groups_of(account id)` answers a user's groups,
    `email_of(account id)` their e-mail ("" when hidden). Raises `Unreadable`."""
    restricted = [level for level in levels if level.restricted]
    if not restricted:
        if space.everyone:
            return (EVERYONE,)
        users, groups = set(space.users), set(space.groups)
    else:
        groups = set.intersection(*(set(level.groups) for level in restricted))
        if not space.everyone:
            groups &= space.groups
        users = set()
        for user in sorted(set().union(*(level.users for level in restricted))):
            if _user_reads(user, restricted, space, groups_of):
                users.add(user)
    principals = {group_principal(group) for group in groups}
    for user in users:
        email = email_of(user)
        if not email:
            raise Unreadable(f"The wiki hides the e-mail address of user {user}, one of the page's readers.")
        reader = user_principal(email)
        if reader is None:
            raise Unreadable(f"The wiki gives user {user} an e-mail address that is not one: {email!r}.")
        principals.add(reader)
    return tuple(sorted(principals))


def _user_reads(
    user: str, restricted: list[Restriction], space: SpaceAccess, groups_of: Callable[[str], frozenset[str]]
) -> bool:
    if all(user in level.users for level in restricted) and (space.everyone or user in space.users):
        return True  # named everywhere: no need to ask for the user's groups
    if any(user not in level.users and not level.groups for level in restricted):
        return False  # a level that names neither them nor any group
    mine = groups_of(user)
    allowed = all(user in level.users or level.groups & mine for level in restricted)
    return allowed and (space.everyone or user in space.users or bool(mine & space.groups))


def group_principal(group: str) -> str:
    return source_principals.group_principal(PLATFORM, group)


# ---- the wiki's JSON
def group_key(raw: object) -> str:
    """A group object's id, or its name where the wiki has no group ids; "" if neither."""
    if not isinstance(raw, dict):
        return ""
    return str(raw.get("id") or raw.get("name") or "").strip().lower()


def user_of(raw: object) -> tuple[str, str | None]:
    """(account id, e-mail) of a v1 user object: the e-mail lower-cased, "" when the wiki hides it;
    ("", None) when the object names no account."""
    if not isinstance(raw, dict):
        return "", None
    account = str(raw.get("accountId") or raw.get("userKey") or "")
    email = raw.get("email")
    return account, (email.strip().lower() if isinstance(email, str) else "")


def restriction_from_v1(read: object, emails: dict[str, str]) -> Restriction | None:
    """A v1 `restrictions.read` object (`{operation, restrictions: {user: {results, ...}, group:
    {results, ...}}}`) as a `Restriction`, the users' e-mail addresses noted in `emails`; None when
    its users or groups are not expanded, or only partly (a next link, fewer results than
    `totalSize`)."""
    restrictions = read.get("restrictions") if isinstance(read, dict) else None
    if not isinstance(restrictions, dict):
        return None
    users, groups = restrictions.get("user"), restrictions.get("group")
    if not _whole(users) or not _whole(groups):
        return None
    return Restriction(users=_users(users["results"], emails), groups=_groups(groups["results"]))


def restriction_page(body: dict, emails: dict[str, str]) -> tuple[Restriction, int]:
    """One answer of `GET /rest/api/content/{id}/restriction/byOperation/read` (users and groups
    paged alike by start/limit): the restriction it shows, and how far `start` moves for the next
    answer (0: none follows)."""
    restrictions = body.get("restrictions") if isinstance(body.get("restrictions"), dict) else {}
    users, groups = restrictions.get("user") or {}, restrictions.get("group") or {}
    user_results, group_results = users.get("results") or [], groups.get("results") or []
    found = Restriction(users=_users(user_results, emails), groups=_groups(group_results))
    if _whole(users) and _whole(groups):
        return found, 0
    return found, max(len(user_results), len(group_results))


def ancestors_from_v1(raw: dict) -> tuple[str, ...] | None:
    """The ids of a v1 content's `ancestors` expansion (root first); None when not expanded."""
    ancestors = raw.get("ancestors")
    if not isinstance(ancestors, list):
        return None
    return tuple(str(a.get("id")) for a in ancestors if isinstance(a, dict) and a.get("id") is not None)


def space_access_from_v2(assignments: Iterable[dict]) -> SpaceAccess:
    """The v2 space permission assignments (`{principal: {type, id}, operation: {key, targetType}}`)
    that grant `read` on the space. Principals other than users and groups (roles, access classes)
    are left out: the wiki says too little about whom they admit."""
    users, groups = set(), set()
    for assignment in assignments:
        operation = assignment.get("operation") or {}
        principal = assignment.get("principal") or {}
        if operation.get("key") != "read" or operation.get("targetType") != "space":
            continue
        kind, ident = str(principal.get("type") or "").lower(), str(principal.get("id") or "")
        if kind == "user" and ident:
            users.add(ident)
        elif kind == "group" and ident:
            groups.add(ident.lower())
    return SpaceAccess(users=frozenset(users), groups=frozenset(groups))


def space_access_from_v1(permissions: list, emails: dict[str, str]) -> SpaceAccess:
    """The v1 space `permissions` expansion: entries whose operation is `read` on `space`, with
    `anonymousAccess` (then anyone), `subjects.user` and `subjects.group`."""
    users, groups, everyone = set(), set(), False
    for permission in permissions:
        if not isinstance(permission, dict):
            continue
        operation = permission.get("operation") or {}
        if operation.get("operation") != "read" or operation.get("targetType") != "space":
            continue
        everyone = everyone or permission.get("anonymousAccess") is True
        subjects = permission.get("subjects") or {}
        users |= _users((subjects.get("user") or {}).get("results") or [], emails)
        groups |= _groups((subjects.get("group") or {}).get("results") or [])
    return SpaceAccess(everyone=everyone, users=frozenset(users), groups=frozenset(groups))


def _whole(array: object) -> bool:
    """An expanded v1 array (`{results, start, limit, size, totalSize?, _links}`) that holds all
    its members."""
    if not isinstance(array, dict) or not isinstance(array.get("results"), list):
        return False
    if (array.get("_links") or {}).get("next"):
        return False
    total = array.get("totalSize")
    start = array.get("start") if isinstance(array.get("start"), int) else 0
    return not isinstance(total, int) or total <= start + len(array["results"])


def _users(results: list, emails: dict[str, str]) -> frozenset[str]:
    found = set()
    for raw in results:
        account, email = user_of(raw)
        if account:
            found.add(account)
            if email or account not in emails:
                emails[account] = email or ""
    return frozenset(found)


def _groups(results: list) -> frozenset[str]:
    return frozenset(key for key in (group_key(raw) for raw in results) if key)
