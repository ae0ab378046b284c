"""The fake document-site API's permissions and directory (a part of `FakeGraph`), shaped as the
platform serves them.

- **Directory**: people (`add_user`: id, `mail`, `userPrincipalName`) and groups (`add_group`, with
  people and groups as members, nested to any depth). `GET /users/{id or UPN}/transitiveMemberOf`
  lists every group a person is in, directly or through nested groups, and the directory roles
  they hold (`add_user(roles=)`), each with its `@odata.type`, paged; an unknown person is 404
  `Request_ResourceNotFound`. `GET /users?$filter=mail eq '...'` finds a person by e-mail address.
- **Item permissions** (`GET /drives/{d}/items/{i}/permissions`): an item's effective permissions.
  What a site gives by default: every site is connected to a directory group, "<Site> Members",
  whose members may edit everything in the site's libraries, and its owners are the site group
  "<Site> Owners" (`FakeSite.members`, `FakeSite.owners_site_group`); a library's items inherit
  both. An item or folder with unique permissions (`restrict`, `share_link`) stops inheriting, and
  the items under a folder inherit the folder's. As in the platform's document libraries, inherited
  permissions carry no `inheritedFrom`.
- **On demand**: `fail_permissions(item, status)` makes one item's permissions answer an error;
  `lift_restriction(drive, item)` makes an item inherit again; `permission_requests()` and
  `permission_batches()` count what crossed the network (a sub-request of a batch is recorded
  like a request of its own)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from urllib.parse import unquote

from tests.fakes.graph_drive import FakeDrive, graph_error
from tests.fakes.server import Received, Reply, route

DRIVE = r"/v1\.0/drives/(?P<drive_id>[^/]+)"
GROUP_CLAIM = "c:0o.c|federateddirectoryclaimprovider|"
USER_CLAIM = "i:0#.f|membership|"


class ItemPermissionRoutes:
    """Mixed into `FakeGraph`, which provides `drives`, `sites`, `_authorized`, `_page`,
    `requests_to`, `is_batch` and `received`."""

    drives: dict[str, FakeDrive]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.people: dict[str, dict] = {}  # id -> user
        self.groups: dict[str, dict] = {}  # id -> group; "members": ids of people and groups
        self._roles: dict[str, list[str]] = {}  # user id -> the directory roles they hold
        self._failing: dict[str, int] = {}  # item id -> the status its permissions answer

    # ---- the directory
    def add_user(self, email: str, *, upn: str | None = None, roles: Iterable[str] = ()) -> dict:
        """A person of the directory; `upn` defaults to the e-mail address."""
        user = {
            "id": str(uuid.uuid4()),
            "displayName": email.split("@")[0].replace(".", " ").title(),
            "mail": email,
            "userPrincipalName": upn or email,
        }
        self.people[user["id"]] = user
        self._roles[user["id"]] = list(roles)
        return user

    def user(self, address: str) -> dict:
        """The person with this e-mail address or user principal name (created when unknown)."""
        wanted = address.lower()
        for user in self.people.values():
            if wanted in (user["mail"].lower(), user["userPrincipalName"].lower()):
                return user
        return self.add_user(address)

    def add_group(self, name: str, *, members: Iterable[dict | str] = ()) -> dict:
        """A directory group; `members` are people (or their addresses) and groups."""
        group = {
            "id": str(uuid.uuid4()),
            "displayName": name,
            "mail": name.lower().replace(" ", "-") + "@contoso.test",
            "members": set(),
        }
        self.groups[group["id"]] = group
        for member in members:
            self.add_member(group, member)
        return group

    def add_member(self, group: dict, member: dict | str) -> None:
        group["members"].add(self._member_id(member))

    def remove_member(self, group: dict, member: dict | str) -> None:
        group["members"].discard(self._member_id(member))

    def _member_id(self, member: dict | str) -> str:
        return self.user(member)["id"] if isinstance(member, str) else member["id"]

    def groups_of(self, member_id: str) -> list[dict]:
        """Every group `member_id` is in, directly or through nested groups."""
        found: dict[str, dict] = {}
        members = {member_id}
        while members:
            parents = [g for g in self.groups.values() if g["id"] not in found and g["members"] & members]
            found.update((g["id"], g) for g in parents)
            members = {g["id"] for g in parents}
        return list(found.values())

    # ---- permissions
    def site_defaults(self, site) -> list[dict]:
        """What a new library of `site` gives its items: the site's owners (a site group) own them,
        the members of the site's directory group edit them."""
        return [
            {
                "id": uuid.uuid4().hex,
                "roles": ["owner"],
                "grantedToV2": {"siteGroup": dict(site.owners_site_group)},
            },
            group_permission(site.members, ["write"]),
        ]

    def restrict(
        self,
        drive: FakeDrive,
        item: dict,
        *,
        users: Iterable[dict | str] = (),
        groups: Iterable[dict] = (),
        roles: Iterable[str] = ("read",),
    ) -> None:
        """`item` (a file or a folder) stops inheriting: only these people and groups may open it
        (and what lies under it)."""
        people = [self.user(u) if isinstance(u, str) else u for u in users]
        granted = [user_permission(user, list(roles)) for user in people]
        granted += [group_permission(group, list(roles)) for group in groups]
        drive.unique[item["id"]] = granted

    def share_link(
        self, drive: FakeDrive, item: dict, scope: str, *, users: Iterable[dict | str] = ()
    ) -> dict:
        """A view link to `item` for `scope` (`anonymous`, `organization`, `users`: only `users`).
        As the platform does, sharing an item that inherits gives it unique permissions: those it
        inherited, and the link."""
        people = [self.user(u) if isinstance(u, str) else u for u in users]
        link = {
            "id": uuid.uuid4().hex,
            "roles": ["read"],
            "link": {
                "scope": scope,
                "type": "view",
                "webUrl": f"{drive.web_url}/:b:/s/{uuid.uuid4().hex[:12]}",
                "preventsDownload": False,
            },
            "shareId": "u!" + uuid.uuid4().hex,
            "hasPassword": False,
        }
        if people:
            link["grantedToIdentitiesV2"] = [_identities(user) for user in people]
        drive.unique[item["id"]] = [*self.effective_permissions(drive, item), link]
        return link

    def lift_restriction(self, drive: FakeDrive, item: dict) -> None:
        """`item` inherits its permissions again (its unique ones, links included, are gone)."""
        drive.unique.pop(item["id"], None)

    def fail_permissions(self, item: dict, status: int | None = 403) -> None:
        """`item`'s permissions answer `status` from now on (None: answer again)."""
        if status is None:
            self._failing.pop(item["id"], None)
        else:
            self._failing[item["id"]] = status

    def effective_permissions(self, drive: FakeDrive, item: dict) -> list[dict]:
        current: dict | None = item
        while current is not None and current["id"] != drive.root_id:
            if current["id"] in drive.unique:
                return [dict(p) for p in drive.unique[current["id"]]]
            current = drive.find(drive.parent_id(current))
        return [dict(p) for p in drive.root_permissions]

    def permission_requests(self) -> list[Received]:
        return self.requests_to(r"/items/[^/]+/permissions$")

    def permission_batches(self) -> list[Received]:
        """The JSON batches that asked for permissions."""
        return [
            r
            for r in self.requests_to(r"/\$batch$")
            if any(str(sub.get("url", "")).endswith("/permissions") for sub in r.json()["requests"])
        ]

    # ---- routes
    @route("GET", DRIVE + r"/items/(?P<item_id>[^/]+)/permissions")
    def item_permissions(self, request: Received, drive_id: str, item_id: str) -> Reply:
        denied = self._authorized(request)
        drive = self.drives.get(unquote(drive_id))
        item = drive.find(unquote(item_id)) if drive else None
        if denied or item is None:
            return denied or Reply(404, graph_error("itemNotFound", "The resource could not be found."))
        status = self._failing.get(item["id"])
        if status == 429:
            return Reply(429, graph_error("TooManyRequests", "Too many requests"), {"Retry-After": "1"})
        if status is not None:
            code = {403: "accessDenied", 404: "itemNotFound"}.get(status, "generalException")
            return Reply(status, graph_error(code, f"The permissions could not be read ({status})."))
        return self._page(request, self.effective_permissions(drive, item))

    @route("GET", r"/v1\.0/users/(?P<user>[^/]+)/transitiveMemberOf")
    def transitive_member_of(self, request: Received, user: str) -> Reply:
        wanted = unquote(user).lower()
        person = next(
            (p for p in self.people.values() if wanted in (p["id"], p["userPrincipalName"].lower())), None
        )
        if person is None:
            message = (
                f"Resource '{unquote(user)}' does not exist or one of its queried reference-property "
                "objects are not present."
            )
            return self._authorized(request) or Reply(404, graph_error("Request_ResourceNotFound", message))
        rows = [
            {"@odata.type": "#microsoft.graph.group", "id": g["id"], "displayName": g["displayName"]}
            for g in self.groups_of(person["id"])
        ]
        rows += [
            {
                "@odata.type": "#microsoft.graph.directoryRole",
                "id": str(uuid.uuid5(uuid.NAMESPACE_OID, r)),
                "displayName": r,
            }
            for r in self._roles.get(person["id"], [])
        ]
        return self._page(request, rows)

    @route("GET", r"/v1\.0/users")
    def users_by_mail(self, request: Received) -> Reply:
        wanted = (request.query.get("$filter") or [""])[0]
        prefix = "mail eq '"
        if not (wanted.startswith(prefix) and wanted.endswith("'")):
            return Reply(
                400, graph_error("Request_UnsupportedQuery", "Only mail eq '...' is supported by this fake.")
            )
        mail = wanted[len(prefix) : -1].replace("''", "'").lower()
        rows = [{"id": p["id"]} for p in self.people.values() if p["mail"].lower() == mail]
        return self._page(request, rows)


def group_permission(group: dict, roles: list[str]) -> dict:
    return {
        "id": uuid.uuid4().hex,
        "roles": roles,
        "grantedToV2": {
            "group": {
                "@odata.type": "#microsoft.graph.sharePointIdentity",
                "id": group["id"],
                "displayName": group["displayName"],
                "email": group["mail"],
            },
            "siteUser": {
                "@odata.type": "#microsoft.graph.sharePointIdentity",
                "id": str(uuid.uuid4().int % 1000),
                "displayName": group["displayName"],
                "loginName": GROUP_CLAIM + group["id"],
            },
        },
    }


def user_permission(user: dict, roles: list[str]) -> dict:
    return {"id": uuid.uuid4().hex, "roles": roles, "grantedToV2": _identities(user)}


def _identities(user: dict) -> dict:
    """A person as the platform's sharePointIdentitySet names them: the directory user (id, name,
    e-mail) and the site's user (its login name carries the user principal name)."""
    return {
        "user": {
            "@odata.type": "#microsoft.graph.sharePointIdentity",
            "id": user["id"],
            "displayName": user["displayName"],
            "email": user["mail"],
        },
        "siteUser": {
            "@odata.type": "#microsoft.graph.sharePointIdentity",
            "id": str(uuid.uuid4().int % 1000),
            "displayName": user["displayName"],
            "email": user["mail"],
            "loginName": USER_CLAIM + user["userPrincipalName"].lower(),
        },
    }
