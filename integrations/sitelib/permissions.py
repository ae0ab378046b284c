"""Who may read a document-site item, from the platform's permissions of it
(`GET /drives/{drive}/items/{item}/permissions`, read in JSON batches), and which directory groups a
person belongs to (`GET /users/{id or UPN}/transitiveMemberOf`), as source principals (DESIGN §19):
`everyone`, `user:<e-mail or UPN>`, `group:sitelib:<directory group id>`, lower-cased.

The platform lists an item's effective permissions: those set on the item and those it inherits
from its folders, its library and its site (document libraries leave `inheritedFrom` out, so
inherited and direct permissions are read alike). Every role (`read`, `write`, `owner`) includes
reading. Each permission admits:

- a sharing link (`link`), by its `scope`: `anonymous` and `organization` admit `everyone`;
  `users` admits the identities it was granted to (`grantedToIdentitiesV2`); `existingAccess`
  admits nobody new; a link of another or no scope admits only the identities it names;
- any other permission: the identities of `grantedToV2` (and `grantedToIdentitiesV2`), or, for an
  invitation nobody has redeemed yet, the invited e-mail address.

An identity set (`sharePointIdentitySet`) names its people and groups as follows:

- `user`: its `email`, and the user principal name of its `siteUser.loginName`
  (`i:0#.f|membership|<upn>`) when that differs; a user the platform names by id only admits
  nobody (the reader could not be matched to anyone);
- `group`: its directory id; a `siteUser` that stands for a directory group says it in its login
  name (`c:0o.c|federateddirectoryclaimprovider|<id>`, `_o` for the group's owners;
  `c:0t.c|tenant|<id>` for a security group);
- the tenant-wide claims (`c:0-.f|rolemanager|spo-grid-all-users/<tenant>`, "everyone except
  external users", and `c:0(.s|true`, "everyone") admit `everyone`;
- `siteGroup` (a group of the site itself, such as "Handbook Owners"), `application` and `device`
  admit nobody: the platform's API does not say who is in a site group.
"""

from __future__ import annotations

from collections.abc import Iterable

from core import readers as source_principals
from core.readers import EVERYONE, user_principal
from integrations.sitelib.models import PLATFORM

_EVERYONE_LINKS = frozenset({"anonymous", "organization"})
_USER_CLAIM = "i:0#.f|membership|"
_GROUP_CLAIMS = ("c:0o.c|federateddirectoryclaimprovider|", "c:0t.c|tenant|")
_EVERYONE_CLAIMS = ("c:0-.f|rolemanager|spo-grid-all-users/", "c:0(.s|true")
DIRECTORY_GROUP = "#microsoft.graph.group"


def group_principal(group_id: str) -> str | None:
    """`group:sitelib:<id>`, or None for an id that names no group."""
    try:
        return source_principals.group_principal(PLATFORM, group_id)
    except ValueError:
        return None


def item_readers(permissions: Iterable[dict]) -> tuple[str, ...]:
    """The principals `permissions` (an item's, as the platform lists them) admit, sorted, once each."""
    readers: set[str] = set()
    for permission in permissions:
        readers.update(_admitted(permission))
    return tuple(sorted(readers))


def member_group_ids(directory_objects: Iterable[dict]) -> set[str]:
    """The ids of the directory groups among `directory_objects` (what `transitiveMemberOf`
    lists: groups, directory roles, administrative units)."""
    return {
        str(obj["id"]).lower()
        for obj in directory_objects
        if obj.get("@odata.type") == DIRECTORY_GROUP and obj.get("id")
    }


def _admitted(permission: dict) -> set[str]:
    identities = [permission.get("grantedToV2"), *_listed(permission.get("grantedToIdentitiesV2"))]
    named: set[str] = set()
    for identity_set in identities:
        if isinstance(identity_set, dict):
            named.update(_identity_set(identity_set))
    link = permission.get("link")
    if isinstance(link, dict):
        scope = link.get("scope")
        if scope in _EVERYONE_LINKS:
            return {EVERYONE}
        return set() if scope == "existingAccess" else named
    invitation = permission.get("invitation")
    if not named and isinstance(invitation, dict) and _text(invitation.get("email")):
        named.add(user_principal(_text(invitation.get("email"))))
    return named - {None}


def _identity_set(identity_set: dict) -> set[str]:
    user, site_user, group = (_facet(identity_set, name) for name in ("user", "siteUser", "group"))
    principals: set[str] = set()
    login = _text(site_user.get("loginName")).lower()
    if group and _text(group.get("id")):
        principals.add(group_principal(_text(group.get("id"))))
    for claim in _GROUP_CLAIMS:
        if login.startswith(claim):
            principals.add(group_principal(login[len(claim) :].removesuffix("_o")))
    if login.startswith(_EVERYONE_CLAIMS):
        principals.add(EVERYONE)
    if user or login.startswith(_USER_CLAIM):
        email = _text(user.get("email")) or _text(site_user.get("email"))
        upn = login[len(_USER_CLAIM) :] if login.startswith(_USER_CLAIM) else ""
        principals.update(user_principal(address) for address in (email, upn) if "@" in address)
    return principals - {None}


def _facet(identity_set: dict, name: str) -> dict:
    value = identity_set.get(name)
    return value if isinstance(value, dict) else {}


def _listed(value: object) -> list:
    return value if isinstance(value, list) else []


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""
