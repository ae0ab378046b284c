"""The wiki platform (`wikispace`): basic auth with a user name and API token against the
instance's base URL (`https://<site>/wiki` for a cloud site). Spaces come from the v2 API
(`/api/v2/spaces`, cursor paging through `_links.next`); an instance without it (404) is asked
through the v1 API (`/rest/api/space`, offset paging) instead."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import requests

from integrations.base import VendorClient
from integrations.errors import VendorNotFound

PLATFORM = "wikispace"
PAGE_SIZE = 100
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

    # ---- spaces
    def spaces(self) -> list[Space]:
        """Every space the account can see: v2 first, v1 when the instance has no v2 API."""
        try:
            return list(self._spaces_v2())
        except VendorNotFound:
            return list(self._spaces_v1())

    def _spaces_v2(self) -> Iterator[Space]:
        url: str | None = self.url("/api/v2/spaces")
        params: dict | None = {"limit": PAGE_SIZE}
        for _ in range(MAX_PAGES):
            if url is None:
                return
            body = self.get_json(url, params=params)
            params = None  # the next link carries the cursor and the limit
            yield from (_space(raw) for raw in body.get("results") or [] if isinstance(raw, dict))
            url = self._next(body)

    def _spaces_v1(self) -> Iterator[Space]:
        start = 0
        for _ in range(MAX_PAGES):
            body = self.get_json("/rest/api/space", params={"start": start, "limit": PAGE_SIZE})
            results = [raw for raw in body.get("results") or [] if isinstance(raw, dict)]
            yield from (_space(raw) for raw in results)
            if not results or not (body.get("_links") or {}).get("next"):
                return
            start += len(results)

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


def cql_string(value: str) -> str:
    """A value inside a double-quoted CQL string."""
    return value.replace("\\", "\\\\").replace('"', '\\"')
