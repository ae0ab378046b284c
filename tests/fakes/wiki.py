"""A fake wiki under the context path `/wiki`: the v2 spaces API with cursor paging
(`_links.next` relative to the site root) and the v1 space API with offset paging; basic auth with
user name and API token; each space visible to everyone or to named users only."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from tests.fakes.server import FakeVendor, Received, Reply, route


@dataclass
class FakeSpace:
    id: int
    key: str
    name: str
    type: str = "global"
    status: str = "current"
    visible_to: frozenset[str] | None = None  # None: everyone


class FakeWiki(FakeVendor):
    def __init__(self, *, v2: bool = True, page_size: int = 25, **kw) -> None:
        super().__init__(**kw)
        self.v2 = v2
        self.page_size = page_size
        self.users: dict[str, str] = {}
        self.forbidden: set[str] = set()  # valid accounts without wiki access (403)
        self.spaces: list[FakeSpace] = []

    @property
    def instance_url(self) -> str:
        return self.url + "/wiki"

    def add_user(self, username: str, token: str) -> None:
        self.users[username] = token

    def add_space(
        self, key: str, name: str, *, type: str = "global", status: str = "current", visible_to=None
    ):
        space = FakeSpace(
            len(self.spaces) + 1, key, name, type, status, frozenset(visible_to) if visible_to else None
        )
        self.spaces.append(space)
        return space

    # ---- routes
    @route("GET", r"/wiki/api/v2/spaces")
    def spaces_v2(self, request):
        if not self.v2:
            return Reply(404, {"errors": [{"status": 404, "code": "NOT_FOUND", "title": "Not Found"}]})
        user, refusal = self._user(request, v2=True)
        if refusal:
            return refusal
        visible = self._visible(user)
        limit = int((request.query.get("limit") or ["25"])[0])
        limit = min(limit, self.page_size)
        cursor = (request.query.get("cursor") or [None])[0]
        start = int(base64.urlsafe_b64decode(cursor).decode()) if cursor else 0
        page = visible[start : start + limit]
        body = {
            "results": [
                {
                    "id": str(s.id),
                    "key": s.key,
                    "name": s.name,
                    "type": s.type,
                    "status": s.status,
                    "homepageId": "1",
                }
                for s in page
            ],
            "_links": {"base": self.instance_url},
        }
        if start + limit < len(visible):
            token = base64.urlsafe_b64encode(str(start + limit).encode()).decode()
            body["_links"]["next"] = f"/wiki/api/v2/spaces?cursor={token}&limit={limit}"
        return Reply(200, body)

    @route("GET", r"/wiki/rest/api/space")
    def spaces_v1(self, request):
        user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        visible = self._visible(user)
        start = int((request.query.get("start") or ["0"])[0])
        limit = min(int((request.query.get("limit") or ["25"])[0]), self.page_size)
        page = visible[start : start + limit]
        links = {"base": self.instance_url, "context": "/wiki", "self": f"{self.instance_url}/rest/api/space"}
        if start + limit < len(visible):
            links["next"] = f"/rest/api/space?limit={limit}&start={start + limit}"
        return Reply(
            200,
            {
                "results": [
                    {"id": s.id, "key": s.key, "name": s.name, "type": s.type, "status": s.status}
                    for s in page
                ],
                "start": start,
                "limit": limit,
                "size": len(page),
                "_links": links,
            },
        )

    # ---- helpers
    def _user(self, request: Received, *, v2: bool) -> tuple[str | None, Reply | None]:
        header = request.headers.get("Authorization", "")
        username = token = None
        if header.startswith("Basic "):
            username, _, token = base64.b64decode(header[6:]).decode().partition(":")
        if username is None or self.users.get(username) != token:
            body = {"code": 401, "message": "Unauthorized; scope does not match"}
            return None, Reply(401, body, {"WWW-Authenticate": 'Basic realm="wiki"'})
        if username in self.forbidden:
            if v2:
                return None, Reply(
                    403, {"errors": [{"status": 403, "code": "FORBIDDEN", "title": "Forbidden"}]}
                )
            return None, Reply(403, {"statusCode": 403, "message": "User is not permitted to use the wiki"})
        return username, None

    def _visible(self, user: str) -> list[FakeSpace]:
        return [s for s in self.spaces if s.visible_to is None or user in s.visible_to]
