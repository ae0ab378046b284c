"""The fake wiki with what knowledge ingestion reads from a space, in both API versions:

- v2 (when `v2`): space lookup `GET /api/v2/spaces?keys=KEY`, a space's pages
  `GET /api/v2/spaces/{id}/pages` and a page's attachments `GET /api/v2/pages/{id}/attachments`
  (cursor paging through `_links.next`), a page with its body `GET /api/v2/pages/{id}`;
- v1: `GET /rest/api/space/{KEY}`, `GET /rest/api/content?spaceKey=...` and
  `GET /rest/api/content/{id}/child/attachment` (offset paging, `expand=version` for versions),
  `GET /rest/api/content/{id}?expand=body.storage`;
- the attachment download `GET /download/attachments/{page id}/{file name}` (bytes, with
  Content-Type).

Pages and attachments are hidden (404) where their space is hidden. Tests change the content
(`edit_page`, `delete_page`, `add_attachment`, `replace_attachment`, `delete_attachment`), make
reads fail (`failing_bodies`, `failing_downloads`: page and attachment ids answered 500) and count
what was fetched (`body_requests`, `download_requests`)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from urllib.parse import quote, unquote, urlencode

from tests.fakes.server import Received, Reply, route
from tests.fakes.wiki import FakeSpace
from tests.fakes.wiki_tools import FakeWikiTools

V2_NOT_FOUND = {"errors": [{"status": 404, "code": "NOT_FOUND", "title": "Not Found", "detail": None}]}
V2_FAILED = {"errors": [{"status": 500, "code": "INTERNAL_SERVER_ERROR", "title": "Internal Server Error"}]}


def now_stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class FakeWikiContent(FakeWikiTools):
    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.attachments: dict[str, dict] = {}  # v2-shaped, by id
        self.contents: dict[str, bytes] = {}  # attachment id -> its bytes
        self.failing_bodies: set[str] = set()
        self.failing_downloads: set[str] = set()

    # ---- test-side changes
    def edit_page(self, page_id: str, body: str | None = None, title: str | None = None) -> dict:
        page = self.pages[page_id]
        if body is not None:
            page["body"]["storage"]["value"] = body
        if title is not None:
            page["title"] = title
        page["version"] = {"number": page["version"]["number"] + 1, "createdAt": now_stamp()}
        return page

    def delete_page(self, page_id: str) -> None:
        self.pages[page_id]["status"] = "trashed"

    def add_attachment(self, page_id: str, file_name: str, content: bytes, media_type: str) -> dict:
        attachment_id = f"att{900000 + len(self.attachments)}"
        attachment = {
            "id": attachment_id,
            "status": "current",
            "title": file_name,
            "pageId": page_id,
            "mediaType": media_type,
            "fileSize": len(content),
            "version": {"number": 1, "createdAt": now_stamp()},
        }
        self.attachments[attachment_id] = attachment
        self.contents[attachment_id] = content
        self._link_attachment(attachment)
        return attachment

    def replace_attachment(self, attachment_id: str, content: bytes) -> dict:
        attachment = self.attachments[attachment_id]
        attachment["fileSize"] = len(content)
        attachment["version"] = {"number": attachment["version"]["number"] + 1, "createdAt": now_stamp()}
        self.contents[attachment_id] = content
        self._link_attachment(attachment)
        return attachment

    def delete_attachment(self, attachment_id: str) -> None:
        self.attachments[attachment_id]["status"] = "trashed"

    def _link_attachment(self, attachment: dict) -> None:
        page = self.pages[attachment["pageId"]]
        name = quote(attachment["title"])
        download = (
            f"/download/attachments/{page['id']}/{name}"
            f"?version={attachment['version']['number']}&modificationDate=1790000000000&api=v2"
        )
        webui = f"{page['_links']['webui']}?preview=/{page['id']}/{attachment['id']}/{name}"
        attachment.update(downloadLink=download, webuiLink=webui)
        attachment["_links"] = {"download": download, "webui": webui}

    # ---- what was fetched
    def body_requests(self, page_id: str) -> int:
        return len(self.requests_to(rf"^/wiki/(api/v2/pages|rest/api/content)/{page_id}$"))

    def download_requests(self, attachment_id: str) -> int:
        attachment = self.attachments[attachment_id]
        path = f"/wiki/download/attachments/{attachment['pageId']}/{quote(attachment['title'])}"
        return len([r for r in self.requests_to(r"^/wiki/download/") if r.path == path])

    # ---- v2 routes
    @route("GET", r"/wiki/api/v2/spaces")
    def spaces_v2(self, request: Received) -> Reply:
        keys = request.query.get("keys")
        if not self.v2 or not keys:
            return super().spaces_v2(request)
        user, refusal = self._user(request, v2=True)
        if refusal:
            return refusal
        wanted = {key for value in keys for key in value.split(",")}
        found = [s for s in self._visible(user) if s.key in wanted]
        return Reply(200, self._cursor_answer(request, [_space_v2(s) for s in found]))

    @route("GET", r"/wiki/api/v2/spaces/(?P<space_id>[0-9]+)/pages")
    def space_pages_v2(self, request: Received, space_id: str) -> Reply:
        user, refusal = self._v2_user(request)
        if refusal:
            return refusal
        space = next((s for s in self._visible(user) if str(s.id) == space_id), None)
        if space is None:
            return Reply(404, V2_NOT_FOUND)
        pages = [_page_v2(p) for p in self._current_pages(space)]
        return Reply(200, self._cursor_answer(request, pages))

    @route("GET", r"/wiki/api/v2/pages/(?P<page_id>[0-9]+)")
    def page_get(self, request: Received, page_id: str) -> Reply:
        user, refusal = self._v2_user(request)
        if refusal:
            return refusal
        page = self._page_for(user, page_id)
        if page is None:
            return Reply(404, V2_NOT_FOUND)
        if page_id in self.failing_bodies:
            return Reply(500, V2_FAILED)
        shown = _page_v2(page)
        if (request.query.get("body-format") or [""])[0] == "storage":
            shown["body"] = page["body"]
        return Reply(200, shown)

    @route("GET", r"/wiki/api/v2/pages/(?P<page_id>[0-9]+)/attachments")
    def page_attachments_v2(self, request: Received, page_id: str) -> Reply:
        user, refusal = self._v2_user(request)
        if refusal:
            return refusal
        if self._page_for(user, page_id) is None:
            return Reply(404, V2_NOT_FOUND)
        return Reply(200, self._cursor_answer(request, self._current_attachments(page_id)))

    # ---- v1 routes
    @route("GET", r"/wiki/rest/api/space/(?P<key>[^/]+)")
    def space_v1(self, request: Received, key: str) -> Reply:
        user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        space = next((s for s in self._visible(user) if s.key == unquote(key)), None)
        if space is None:
            return Reply(404, {"statusCode": 404, "message": f"No space with key : {unquote(key)}"})
        return Reply(200, {"id": space.id, "key": space.key, "name": space.name, "type": space.type})

    @route("GET", r"/wiki/rest/api/content")
    def content_v1(self, request: Received) -> Reply:
        user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        key = (request.query.get("spaceKey") or [""])[0]
        space = next((s for s in self._visible(user) if s.key == key), None)
        pages = self._current_pages(space) if space else []
        return Reply(200, self._offset_answer(request, [_page_v1(p, request) for p in pages]))

    @route("GET", r"/wiki/rest/api/content/(?P<page_id>[0-9]+)")
    def page_v1(self, request: Received, page_id: str) -> Reply:
        user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        page = self._page_for(user, page_id)
        if page is None:
            return Reply(404, {"statusCode": 404, "message": f"No content found with id: {page_id}"})
        if page_id in self.failing_bodies:
            return Reply(500, {"statusCode": 500, "message": "java.lang.NullPointerException"})
        shown = _page_v1(page, request)
        if "body.storage" in expanded(request):
            shown["body"] = page["body"]
        return Reply(200, shown)

    @route("GET", r"/wiki/rest/api/content/(?P<page_id>[0-9]+)/child/attachment")
    def page_attachments_v1(self, request: Received, page_id: str) -> Reply:
        user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        if self._page_for(user, page_id) is None:
            return Reply(404, {"statusCode": 404, "message": f"No content found with id: {page_id}"})
        found = [_attachment_v1(a, request) for a in self._current_attachments(page_id)]
        return Reply(200, self._offset_answer(request, found))

    # ---- the download
    @route("GET", r"/wiki/download/attachments/(?P<page_id>[0-9]+)/(?P<name>[^/]+)")
    def download(self, request: Received, page_id: str, name: str) -> Reply:
        user, refusal = self._user(request, v2=False)
        if refusal:
            return refusal
        page = self._page_for(user, page_id)
        current = self._current_attachments(page_id) if page else []
        attachment = next((a for a in current if a["title"] == unquote(name)), None)
        if attachment is None:
            return Reply(404, "<html>Not Found</html>", {"Content-Type": "text/html"})
        if attachment["id"] in self.failing_downloads:
            return Reply(500, "<html>Internal Server Error</html>", {"Content-Type": "text/html"})
        return Reply(200, self.contents[attachment["id"]], {"Content-Type": attachment["mediaType"]})

    # ---- helpers
    def _v2_user(self, request: Received) -> tuple[str | None, Reply | None]:
        if not self.v2:
            return None, Reply(404, V2_NOT_FOUND)
        return self._user(request, v2=True)

    def _page_for(self, user: str | None, page_id: str) -> dict | None:
        """The current page `user` may see, else None."""
        page = self.pages.get(page_id)
        visible = {str(s.id) for s in self._visible(user)}
        if page is None or page["status"] != "current" or page["spaceId"] not in visible:
            return None
        return page

    def _current_pages(self, space: FakeSpace) -> list[dict]:
        return [p for p in self.pages.values() if p["spaceId"] == str(space.id) and p["status"] == "current"]

    def _current_attachments(self, page_id: str) -> list[dict]:
        return [a for a in self.attachments.values() if a["pageId"] == page_id and a["status"] == "current"]

    def _cursor_answer(self, request: Received, items: list[dict]) -> dict:
        limit = min(int((request.query.get("limit") or ["25"])[0]), self.page_size)
        cursor = (request.query.get("cursor") or [None])[0]
        start = int(base64.urlsafe_b64decode(cursor).decode()) if cursor else 0
        body = {"results": items[start : start + limit], "_links": {"base": self.instance_url}}
        if start + limit < len(items):
            query = {k: v[0] for k, v in request.query.items() if k not in ("cursor", "limit")}
            query["cursor"] = base64.urlsafe_b64encode(str(start + limit).encode()).decode()
            query["limit"] = str(limit)
            body["_links"]["next"] = f"{request.path}?{urlencode(query)}"
        return body

    def _offset_answer(self, request: Received, items: list[dict]) -> dict:
        start = int((request.query.get("start") or ["0"])[0])
        limit = min(int((request.query.get("limit") or ["25"])[0]), self.page_size)
        page = items[start : start + limit]
        path = request.path.removeprefix("/wiki")
        links = {"base": self.instance_url, "context": "/wiki", "self": self.url + request.path}
        if start + limit < len(items):
            query = {k: v[0] for k, v in request.query.items() if k not in ("start", "limit")}
            links["next"] = f"{path}?{urlencode({**query, 'limit': limit, 'start': start + limit})}"
        return {"results": page, "start": start, "limit": limit, "size": len(page), "_links": links}


def expanded(request: Received) -> set[str]:
    return {part for value in request.query.get("expand") or [] for part in value.split(",")}


def _space_v2(space: FakeSpace) -> dict:
    return {
        "id": str(space.id),
        "key": space.key,
        "name": space.name,
        "type": space.type,
        "status": "current",
    }


def _page_v2(page: dict) -> dict:
    return {key: value for key, value in page.items() if key != "body"}


def _page_v1(page: dict, request: Received) -> dict:
    shown = {
        "id": page["id"],
        "type": "page",
        "status": page["status"],
        "title": page["title"],
        "_links": {"webui": page["_links"]["webui"], "self": f"/rest/api/content/{page['id']}"},
    }
    if "version" in expanded(request):
        shown["version"] = {"number": page["version"]["number"], "when": page["version"]["createdAt"]}
    return shown


def _attachment_v1(attachment: dict, request: Received) -> dict:
    shown = {
        "id": attachment["id"],
        "type": "attachment",
        "status": attachment["status"],
        "title": attachment["title"],
        "metadata": {"mediaType": attachment["mediaType"]},
        "extensions": {"mediaType": attachment["mediaType"], "fileSize": attachment["fileSize"]},
        "_links": {"download": attachment["downloadLink"], "webui": attachment["webuiLink"]},
    }
    if "version" in expanded(request):
        version = attachment["version"]
        shown["version"] = {"number": version["number"], "when": version["createdAt"]}
    return shown
