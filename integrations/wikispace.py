"""The wiki platform (`wikispace`): basic auth with a user name and API token against the
instance's base URL (`https://<site>/wiki` for a cloud site). Spaces, a space's pages, their bodies
and attachments come from the v2 API (`/api/v2/...`, cursor paging through `_links.next`); an
instance without it (its v2 spaces answer 404) is asked through the v1 API (`/rest/api/...`, offset
paging) instead. Which of the two an instance speaks is learnt once per client. The page and
attachment values live in `integrations/wikispace_content.py`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

import requests

from integrations.base import VendorClient
from integrations.errors import VendorNotFound
from integrations.wikispace_content import (
    WikiAttachment,
    WikiPage,
    attachment_from_v1,
    attachment_from_v2,
    page_from_v1,
    page_from_v2,
    storage_body,
)

PLATFORM = "wikispace"
PAGE_SIZE = 100
CONTENT_PAGE_SIZE = 250  # pages or attachments a listing asks for (v2's maximum; v1 caps it itself)
MAX_PAGES = 1000  # a loop guard against a platform whose next link never ends


@dataclass(frozen=True)
class Space:
    key: str
    name: str
    type: str  # "global" or "personal"
    status: str


class WikiClient(VendorClient):
    platform = PLATFORM

    def __init__(
        self, *, base_url: str, username: str, api_token: str, session_options: dict | None = None
    ) -> None:
        super().__init__(base_url=base_url, session_options=session_options)
        self._auth = (username, api_token)
        self._has_v2: bool | None = None  # unknown until the first call that can tell

    def prepare_session(self, session) -> None:
        session.auth = self._auth
        session.headers["Accept"] = "application/json"

    def vendor_error_text(self, response: requests.Response) -> tuple[str | None, str | None]:
        try:
            body = response.json()
        except ValueError:
            return None, None
        if not isinstance(body, dict):
            return None, None
        errors = body.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            return errors[0].get("code"), errors[0].get("title") or errors[0].get("detail")
        return body.get("statusCode") and str(body.get("statusCode")), body.get("message")

    # ---- the API version
    def _v2_answer(self, path: str, params: dict) -> dict | None:
        """A v2 spaces read whose 404 means "this instance has no v2 API": its answer, or None when
        the instance has none. The first such read decides for the client's lifetime."""
        if self._has_v2 is False:
            return None
        try:
            body = self.get_json(path, params=params)
        except VendorNotFound:
            if self._has_v2:
                raise
            self._has_v2 = False
            return None
        self._has_v2 = True
        return body

    def _speaks_v2(self) -> bool:
        """For reads whose v2 404 means a missing object: the cheapest spaces read decides first."""
        if self._has_v2 is None:
            self._v2_answer("/api/v2/spaces", {"limit": 1})
        return bool(self._has_v2)

    # ---- paging
    def _cursor_results(self, body: dict) -> Iterator[dict]:
        """The results of a v2 listing from its first answer on, following `_links.next` (which
        carries the cursor and the limit)."""
        for _ in range(MAX_PAGES):
            yield from (raw for raw in body.get("results") or [] if isinstance(raw, dict))
            url = self._next(body)
            if url is None:
                return
            body = self.get_json(url)

    def _offset_results(self, path: str, params: dict, *, limit: int) -> Iterator[dict]:
        """The results of a v1 listing, `start` moving on until an answer has no next link."""
        start = 0
        for _ in range(MAX_PAGES):
            body = self.get_json(path, params={**params, "start": start, "limit": limit})
            results = [raw for raw in body.get("results") or [] if isinstance(raw, dict)]
            yield from results
            if not results or not (body.get("_links") or {}).get("next"):
                return
            start += len(results)

    # ---- spaces
    def spaces(self) -> list[Space]:
        """Every space the account can see: v2 first, v1 when the instance has no v2 API."""
        first = self._v2_answer("/api/v2/spaces", {"limit": PAGE_SIZE})
        if first is None:
            found = self._offset_results("/rest/api/space", {}, limit=PAGE_SIZE)
        else:
            found = self._cursor_results(first)
        return [_space(raw) for raw in found]

    # ---- one space's content (knowledge ingestion)
    def space_pages(self, space_key: str) -> list[WikiPage]:
        """Every current page of the space, metadata only; VendorNotFound when the space is
        unknown or hidden from the account."""
        found = self._v2_answer("/api/v2/spaces", {"keys": space_key})
        if found is None:
            return self._space_pages_v1(space_key)
        results = [raw for raw in found.get("results") or [] if isinstance(raw, dict)]
        # Exactly this key: an instance that ignored the filter must not hand over another space.
        space = next((raw for raw in results if raw.get("key") == space_key), None)
        if space is None:
            raise _no_space(space_key)
        first = self.get_json(
            f"/api/v2/spaces/{quote(str(space.get('id')), safe='')}/pages",
            params={"limit": CONTENT_PAGE_SIZE, "status": "current"},
        )
        return [page_from_v2(raw, space_key=space_key) for raw in self._cursor_results(first)]

    def _space_pages_v1(self, space_key: str) -> list[WikiPage]:
        try:
            self.get_json(f"/rest/api/space/{quote(space_key, safe='')}")
        except VendorNotFound as exc:
            raise _no_space(space_key) from exc
        params = {"spaceKey": space_key, "type": "page", "status": "current", "expand": "version"}
        pages = self._offset_results("/rest/api/content", params, limit=CONTENT_PAGE_SIZE)
        return [page_from_v1(raw, space_key=space_key) for raw in pages]

    def page_body(self, page: WikiPage) -> str:
        """The page's storage-format XHTML; VendorNotFound once the page is gone."""
        page_id = quote(page.id, safe="")
        if self._speaks_v2():
            return storage_body(self.get_json(f"/api/v2/pages/{page_id}", params={"body-format": "storage"}))
        return storage_body(self.get_json(f"/rest/api/content/{page_id}", params={"expand": "body.storage"}))

    def page_attachments(self, page: WikiPage) -> list[WikiAttachment]:
        page_id = quote(page.id, safe="")
        if self._speaks_v2():
            first = self.get_json(f"/api/v2/pages/{page_id}/attachments", params={"limit": CONTENT_PAGE_SIZE})
            return [attachment_from_v2(raw, page=page) for raw in self._cursor_results(first)]
        found = self._offset_results(
            f"/rest/api/content/{page_id}/child/attachment", {"expand": "version"}, limit=CONTENT_PAGE_SIZE
        )
        return [attachment_from_v1(raw, page=page) for raw in found]

    def attachment_content(self, attachment: WikiAttachment, *, max_bytes: int, timeout_s: float) -> bytes:
        """The attachment's bytes, bounded as `VendorClient.content_get` bounds every download."""
        return self.content_get(attachment.download_path, max_bytes=max_bytes, timeout_s=timeout_s)

    def _next(self, body: dict) -> str | None:
        """The v2 next link is relative to the site root (it starts with the context path,
        `/wiki/api/v2/...`); `_links.base` names the base when the platform gives it."""
        links = body.get("_links") or {}
        nxt = links.get("next")
        if not nxt:
            return None
        root = "{0.scheme}://{0.netloc}".format(urlsplit(self.base_url))
        base = links.get("base") or self.base_url
        if nxt.startswith("/") and not nxt.startswith(urlsplit(base).path or "/"):
            return urljoin(base.rstrip("/") + "/", nxt.lstrip("/"))
        return urljoin(root, nxt)

    # ---- pages (the tool hub's wiki tools)
    def page_search(self, *, text: str, space_key: str | None, limit: int) -> dict:
        """Pages matching `text` through CQL (the v1 content search; v2 has no CQL)."""
        cql = f'type = page AND text ~ "{cql_string(text)}"'
        if space_key:
            cql += f' AND space = "{cql_string(space_key)}"'
        return self.get_json(
            "/rest/api/content/search", params={"cql": cql, "limit": limit, "expand": "space"}
        )

    def page_get(self, page_id: str) -> dict:
        return self.get_json(f"/api/v2/pages/{page_id}", params={"body-format": "storage"})

    def page_create(self, *, space_id: str, title: str, body: str, parent_id: str | None) -> dict:
        page = {
            "spaceId": space_id,
            "status": "current",
            "title": title,
            "body": {"representation": "storage", "value": body},
        }
        if parent_id:
            page["parentId"] = parent_id
        return self.json_of(self.request("POST", "/api/v2/pages", json=page))

    def page_delete(self, page_id: str) -> None:
        """Move a page to its space's trash (the v2 API's delete without `purge`)."""
        self.request("DELETE", f"/api/v2/pages/{page_id}").close()

    # ---- space permissions (the tool hub's admin tool)
    def space_permission_add(self, space_key: str, *, subject: dict, operation: dict) -> dict:
        """Grant `subject` (`{type: user|group, identifier}`) `operation` (`{key, target}`) in a
        space, through the v1 API (v2 has no write for space permissions); needs the space's
        Admin permission. The permission created."""
        body = {"subject": subject, "operation": operation}
        path = f"/rest/api/space/{quote(space_key, safe='')}/permission"
        return self.json_of(self.request("POST", path, json=body))

    def space_probe(self) -> None:
        """The cheapest authenticated read (a connection test)."""
        try:
            self.get_json("/api/v2/spaces", params={"limit": 1})
        except VendorNotFound:
            self.get_json("/rest/api/space", params={"limit": 1})


def _space(raw: dict) -> Space:
    return Space(
        key=str(raw.get("key", "")),
        name=str(raw.get("name", "")),
        type="personal" if str(raw.get("type", "")).lower() == "personal" else "global",
        status=str(raw.get("status") or "current"),
    )


def _no_space(space_key: str) -> VendorNotFound:
    return VendorNotFound(
        f"The wiki has no space {space_key!r}, or this account cannot see it.", platform=PLATFORM, status=404
    )


def cql_string(value: str) -> str:
    """A value inside a double-quoted CQL string."""
    return value.replace("\\", "\\\\").replace('"', '\\"')
