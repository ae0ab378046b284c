"""The fake wiki with pages: v1 CQL content search (`type = page AND text ~ "..." [AND space =
"KEY"]`), v2 page get (`body-format=storage`), v2 page create and v2 page delete (204; the page goes
to the trash, and a trashed or unknown page is 404), and v1 space permission add (kept in
`space_permissions`; an unknown space is 404, an operation the platform does not know or a
permission already granted 400)."""

from __future__ import annotations

import re

from tests.fakes.server import Received, Reply, route
from tests.fakes.wiki import FakeWiki

_CQL_TEXT = re.compile(r'text ~ "((?:[^"\\]|\\.)*)"')
_CQL_SPACE = re.compile(r'space = "((?:[^"\\]|\\.)*)"')


class FakeWikiTools(FakeWiki):
    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.pages: dict[str, dict] = {}
        self.space_permissions: list[dict] = []

    def add_page(self, space, title: str, body: str, *, parent_id: str | None = None) -> dict:
        page_id = str(65536 + len(self.pages))
        page = {
            "id": page_id,
            "status": "current",
            "title": title,
            "spaceId": str(space.id),
            "parentId": parent_id,
            "version": {"number": 1, "createdAt": "2026-11-20T10:00:00.000Z"},
            "body": {"storage": {"representation": "storage", "value": body}},
            "_links": {"webui": f"/spaces/{space.key}/pages/{page_id}"},
        }
        self.pages[page_id] = page
        return page

    @route("GET", r"/wiki/rest/api/content/search")
    def content_search(self, request: Received) -> Reply:
        _user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        cql = (request.query.get("cql") or [""])[0]
        text = _CQL_TEXT.search(cql)
        if "type = page" not in cql or text is None:
            return Reply(400, {"statusCode": 400, "message": "Could not parse cql : " + cql[:80]})
        term = text.group(1).replace('\\"', '"').lower()
        space = _CQL_SPACE.search(cql)
        key_to_id = {s.key: str(s.id) for s in self.spaces}
        results = [
            {
                "id": p["id"],
                "type": "page",
                "status": "current",
                "title": p["title"],
                "space": {"key": next(k for k, v in key_to_id.items() if v == p["spaceId"])},
                "_links": {"webui": p["_links"]["webui"]},
            }
            for p in self.pages.values()
            if p["status"] == "current"
            and term in (p["title"] + p["body"]["storage"]["value"]).lower()
            and (space is None or key_to_id.get(space.group(1)) == p["spaceId"])
        ]
        limit = int((request.query.get("limit") or ["25"])[0])
        return Reply(
            200,
            {
                "results": results[:limit],
                "start": 0,
                "limit": limit,
                "size": len(results[:limit]),
                "_links": {"base": self.instance_url},
            },
        )

    @route("GET", r"/wiki/api/v2/pages/(?P<page_id>[0-9]+)")
    def page_get(self, request: Received, page_id: str) -> Reply:
        _user, refusal = self._user(request, v2=True)
        if refusal:
            return refusal
        page = self.pages.get(page_id)
        if page is None:
            return Reply(
                404, {"errors": [{"status": 404, "code": "NOT_FOUND", "title": "Not Found", "detail": None}]}
            )
        shown = dict(page)
        if (request.query.get("body-format") or [""])[0] != "storage":
            shown.pop("body")
        return Reply(200, shown)

    @route("DELETE", r"/wiki/api/v2/pages/(?P<page_id>[0-9]+)")
    def page_delete(self, request: Received, page_id: str) -> Reply:
        _user, refusal = self._user(request, v2=True)
        if refusal:
            return refusal
        page = self.pages.get(page_id)
        if page is None or page["status"] == "trashed":
            return Reply(404, {"errors": [{"status": 404, "code": "NOT_FOUND", "title": "Not Found"}]})
        page["status"] = "trashed"
        return Reply(204)

    @route("POST", r"/wiki/api/v2/pages")
    def page_create(self, request: Received) -> Reply:
        _user, refusal = self._user(request, v2=True)
        if refusal:
            return refusal
        data = request.json()
        space = next((s for s in self.spaces if str(s.id) == data.get("spaceId")), None)
        if space is None:
            return Reply(
                400,
                {
                    "errors": [
                        {"status": 400, "code": "INVALID_REQUEST_PARAMETER", "title": "Space not found"}
                    ]
                },
            )
        if any(
            p["title"] == data.get("title") and p["spaceId"] == str(space.id) for p in self.pages.values()
        ):
            return Reply(
                400,
                {
                    "errors": [
                        {
                            "status": 400,
                            "code": "INVALID_REQUEST_PARAMETER",
                            "title": "A page with this title already exists",
                        }
                    ]
                },
            )
        page = self.add_page(space, data["title"], data["body"]["value"], parent_id=data.get("parentId"))
        return Reply(200, page)

    @route("POST", r"/wiki/rest/api/space/(?P<space_key>[^/]+)/permission")
    def space_permission_add(self, request: Received, space_key: str) -> Reply:
        _user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        space = next((s for s in self.spaces if s.key == space_key), None)
        if space is None:
            return Reply(404, {"statusCode": 404, "message": f"No space with key : {space_key}"})
        data = request.json()
        subject, operation = data.get("subject") or {}, data.get("operation") or {}
        if subject.get("type") not in ("user", "group") or not subject.get("identifier") or not operation:
            return Reply(400, {"statusCode": 400, "message": "A subject and an operation are required."})
        granted = {"subject": subject, "operation": operation}
        if any(p["subject"] == subject and p["operation"] == operation for p in self.space_permissions):
            return Reply(400, {"statusCode": 400, "message": "Permission already exists."})
        permission = {
            "id": 4096 + len(self.space_permissions),
            **granted,
            "_links": {"base": self.instance_url},
        }
        self.space_permissions.append(permission | {"space_key": space.key})
        return Reply(200, permission)
