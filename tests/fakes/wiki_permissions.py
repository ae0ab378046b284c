"""The fake wiki with who may read what, shaped as the real wiki's REST answers it:

- people (account ids, e-mail addresses a profile may hide) and groups (ids and names) with their
  members: `GET /rest/api/user/memberof?accountId=` (offset paging), the user search
  `GET /rest/api/search/user?cql=type=user` and the bulk lookup `POST /api/v2/users-bulk`;
- who may view a space: v2 `GET /api/v2/spaces/{id}/permissions` (assignments `{principal: {type,
  id}, operation: {key: read, targetType: space}}`, cursor paging) and the v1 space's
  `expand=permissions` (`subjects.user` / `subjects.group`, `anonymousAccess`); a space with no
  grants recorded answers neither (403 in v2, no `permissions` in v1), as a wiki that does not say;
  anonymous access shows in v1 only;
- read restrictions of pages: the v1 content listing's `ancestors` and
  `restrictions.read.restrictions.user,restrictions.read.restrictions.group` expansions (at most
  `expansion_limit` users or groups each, then a next link) and
  `GET /rest/api/content/{id}/restriction/byOperation/read` (start/limit paging).

Tests change permissions upstream (`grant_space`, `restrict`, `lift_restriction`, `add_member`,
`remove_member`), make a page's restriction unreadable (`failing_restrictions`: the listing gives
only its link, the read answers 500) and count what was asked (`permission_requests`,
`content_downloads`)."""

from __future__ import annotations

import re

from tests.fakes.server import Received, Reply, route
from tests.fakes.wiki import FakeSpace
from tests.fakes.wiki_content import V2_NOT_FOUND, FakeWikiContent, expanded

PERMISSION_PATHS = (
    r"/wiki/api/v2/spaces/[0-9]+/permissions$|/restriction/|/wiki/api/v2/users-bulk$"
    r"|/wiki/rest/api/user/memberof$|/wiki/rest/api/search/user$"
)


class FakeWikiPermissions(FakeWikiContent):
    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.people: dict[str, dict] = {}  # account id -> {email, name}
        self.hidden_emails: set[str] = set()  # account ids whose profile hides the e-mail address
        self.groups: dict[str, str] = {}  # group id -> name
        self.members: dict[str, set[str]] = {}  # group id -> account ids
        self.space_grants: dict[str, dict] = {}  # space id -> {users, groups, anonymous}
        self.read_restrictions: dict[str, dict] = {}  # content id -> {users: [...], groups: [...]}
        self.failing_restrictions: set[str] = set()
        self.expansion_limit = 100

    # ---- test-side changes
    def add_person(self, email: str, name: str = "") -> str:
        account_id = f"5b10ac8d82e05b22cc7d{len(self.people):04d}"
        self.people[account_id] = {"email": email, "name": name or email.split("@")[0]}
        return account_id

    def add_group(self, name: str) -> str:
        group_id = f"a1b2c3d4-0000-4000-8000-{len(self.groups):012d}"
        self.groups[group_id] = name
        self.members[group_id] = set()
        return group_id

    def add_member(self, group_id: str, account_id: str) -> None:
        self.members[group_id].add(account_id)

    def remove_member(self, group_id: str, account_id: str) -> None:
        self.members[group_id].discard(account_id)

    def grant_space(self, space: FakeSpace, *, users=(), groups=(), anonymous: bool = False) -> None:
        """Let these users and groups (or anyone, `anonymous`) view the space."""
        grant = self.space_grants.setdefault(str(space.id), {"users": [], "groups": [], "anonymous": False})
        grant["users"] += [u for u in users if u not in grant["users"]]
        grant["groups"] += [g for g in groups if g not in grant["groups"]]
        grant["anonymous"] = grant["anonymous"] or anonymous

    def restrict(self, content_id: str, *, users=(), groups=()) -> None:
        """Only these users and groups may read the content (and what lies below it)."""
        self.read_restrictions[content_id] = {"users": list(users), "groups": list(groups)}

    def lift_restriction(self, content_id: str) -> None:
        self.read_restrictions.pop(content_id, None)

    # ---- what was asked
    def permission_requests(self) -> list[Received]:
        """Reads that only permissions need (the v1 content listing a v2 instance is asked for the
        restrictions counts too)."""
        with self._lock:
            received = list(self.received)
        return [r for r in received if _is_permission_read(r, v2=self.v2)]

    def content_downloads(self) -> int:
        """Page bodies and attachment downloads asked for."""
        bodies = self.requests_to(r"^/wiki/(api/v2/pages|rest/api/content)/[0-9]+$")
        return len(bodies) + len(self.requests_to(r"^/wiki/download/"))

    # ---- v1 content listing and a space, with permissions expanded
    @route("GET", r"/wiki/rest/api/content")
    def content_v1(self, request: Received) -> Reply:
        reply = super().content_v1(request)
        expand = expanded(request)
        if reply.status == 200:
            for shown in reply.body["results"]:
                if "ancestors" in expand:
                    shown["ancestors"] = [self._ancestor(a) for a in self._ancestors(shown["id"])]
                if "restrictions.read.restrictions.user" in expand:
                    shown["restrictions"] = {"read": self._listed_restriction(shown["id"])}
        return reply

    @route("GET", r"/wiki/rest/api/space/(?P<key>[^/]+)")
    def space_v1(self, request: Received, key: str) -> Reply:
        reply = super().space_v1(request, key)
        if reply.status == 200 and "permissions" in expanded(request):
            grant = self.space_grants.get(str(reply.body["id"]))
            if grant is not None:
                reply.body["permissions"] = [self._space_permission_v1(grant)]
        return reply

    # ---- v2 space permissions and users
    @route("GET", r"/wiki/api/v2/spaces/(?P<space_id>[0-9]+)/permissions")
    def space_permissions_v2(self, request: Received, space_id: str) -> Reply:
        user, refusal = self._v2_user(request)
        if refusal:
            return refusal
        if not any(str(s.id) == space_id for s in self._visible(user)):
            return Reply(404, V2_NOT_FOUND)
        grant = self.space_grants.get(space_id)
        if grant is None:
            return Reply(403, {"errors": [{"status": 403, "code": "FORBIDDEN", "title": "Forbidden"}]})
        assignments = [
            {
                "id": f"{space_id}-{kind}-{ident}",
                "principal": {"type": kind, "id": ident},
                "operation": {"key": "read", "targetType": "space"},
            }
            for kind, idents in (("user", grant["users"]), ("group", grant["groups"]))
            for ident in idents
        ]
        assignments += [  # what else a space grants is not reading
            {
                "id": f"{space_id}-create-{ident}",
                "principal": {"type": "group", "id": ident},
                "operation": {"key": "create", "targetType": "page"},
            }
            for ident in self.groups
            if ident not in grant["groups"]
        ]
        return Reply(200, self._cursor_answer(request, assignments))

    @route("POST", r"/wiki/api/v2/users-bulk")
    def users_bulk(self, request: Received) -> Reply:
        _user, refusal = self._v2_user(request)
        if refusal:
            return refusal
        wanted = (request.json() or {}).get("accountIds") or []
        found = [self._person(a) for a in wanted if a in self.people]
        return Reply(200, {"results": found, "_links": {"base": self.instance_url}})

    # ---- v1 users and groups
    @route("GET", r"/wiki/rest/api/user/memberof")
    def member_of(self, request: Received) -> Reply:
        _user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        account = (request.query.get("accountId") or [""])[0]
        if account not in self.people:
            return Reply(404, {"statusCode": 404, "message": f"No user found with accountId: {account}"})
        found = [self._group(g) for g, members in self.members.items() if account in members]
        return Reply(200, self._offset_answer(request, found))

    @route("GET", r"/wiki/rest/api/search/user")
    def search_user(self, request: Received) -> Reply:
        _user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        if (request.query.get("cql") or [""])[0].replace(" ", "") != "type=user":
            return Reply(400, {"statusCode": 400, "message": "The fake knows only cql=type=user."})
        found = [
            {"user": self._person(a), "title": p["name"], "entityType": "user"}
            for a, p in self.people.items()
        ]
        return Reply(200, self._offset_answer(request, found))

    # ---- restrictions
    @route("GET", r"/wiki/rest/api/content/(?P<content_id>[0-9]+)/restriction/byOperation/read")
    def read_restriction(self, request: Received, content_id: str) -> Reply:
        user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        if self._page_for(user, content_id) is None:
            return Reply(404, {"statusCode": 404, "message": f"No content found with id: {content_id}"})
        if content_id in self.failing_restrictions:
            return Reply(500, {"statusCode": 500, "message": "java.lang.IllegalStateException"})
        start = int((request.query.get("start") or ["0"])[0])
        limit = min(int((request.query.get("limit") or ["25"])[0]), self.page_size)
        return Reply(200, self._restriction(content_id, start=start, limit=limit))

    # ---- helpers
    def _listed_restriction(self, content_id: str) -> dict:
        if content_id in self.failing_restrictions:
            link = f"/rest/api/content/{content_id}/restriction/byOperation/read"
            return {"operation": "read", "_expandable": {"restrictions": link}}
        return self._restriction(content_id, start=0, limit=self.expansion_limit)

    def _restriction(self, content_id: str, *, start: int, limit: int) -> dict:
        held = self.read_restrictions.get(content_id) or {"users": [], "groups": []}
        link = f"/rest/api/content/{content_id}/restriction/byOperation/read"
        users = self._array([self._person(a) for a in held["users"]], start, limit, link)
        groups = self._array([self._group(g) for g in held["groups"]], start, limit, link)
        return {
            "operation": "read",
            "restrictions": {"user": users, "group": groups},
            "_links": {"self": self.instance_url + link},
            "_expandable": {"content": f"/rest/api/content/{content_id}"},
        }

    @staticmethod
    def _array(items: list[dict], start: int, limit: int, link: str) -> dict:
        page = items[start : start + limit]
        array = {"results": page, "start": start, "limit": limit, "size": len(page), "totalSize": len(items)}
        array["_links"] = (
            {"next": f"{link}?start={start + limit}&limit={limit}"} if start + limit < len(items) else {}
        )
        return array

    def _ancestors(self, page_id: str) -> list[dict]:
        chain = []
        parent = self.pages[page_id].get("parentId")
        while parent and parent in self.pages:
            chain.insert(0, self.pages[parent])
            parent = self.pages[parent].get("parentId")
        return chain

    @staticmethod
    def _ancestor(page: dict) -> dict:
        return {"id": page["id"], "type": "page", "status": page["status"], "title": page["title"]}

    def _person(self, account_id: str) -> dict:
        person = self.people[account_id]
        return {
            "type": "known",
            "accountId": account_id,
            "accountType": "atlassian",
            "email": "" if account_id in self.hidden_emails else person["email"],
            "publicName": person["name"],
            "displayName": person["name"],
        }

    def _group(self, group_id: str) -> dict:
        return {"type": "group", "name": self.groups[group_id], "id": group_id}

    def _space_permission_v1(self, grant: dict) -> dict:
        users, groups = [self._person(a) for a in grant["users"]], [self._group(g) for g in grant["groups"]]
        return {
            "operation": {"operation": "read", "targetType": "space"},
            "anonymousAccess": grant["anonymous"],
            "unlicensedAccess": False,
            "subjects": {
                "user": {"results": users, "size": len(users)},
                "group": {"results": groups, "size": len(groups)},
            },
        }


def _is_permission_read(request: Received, *, v2: bool) -> bool:
    if re.search(PERMISSION_PATHS, request.path):
        return True
    if request.path == "/wiki/rest/api/content" and v2:
        return True  # the restriction listing of a v2 instance (its pages come from v2)
    return request.path.startswith("/wiki/rest/api/space/") and "permissions" in expanded(request)
