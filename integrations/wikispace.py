"""The wiki platform (`wikispace`): basic auth with a user name and API token against the
instance's base URL (`https://<site>/wiki` for a cloud site). Spaces, a space's pages, their bodies
and attachments come from the v2 API (`/api/v2/...`, cursor paging through `_links.next`); an
instance without it (its v2 spaces answer 404) is asked through the v1 API (`/rest/api/...`, offset
paging) instead. Which of the two an instance speaks is learnt once per client. The page and
attachment values live in `integrations/wikispace_content.py`.

Who may read a page (`integrations/wikispace_permissions.py`) comes from reads made for a whole
space at once: its view permission (v2 `/spaces/{id}/permissions`, or the v1 space's `permissions`
expansion), and the v1 content listing with each page's `ancestors` and read restrictions expanded
(v2 has no restriction reads; on a v1 instance this is the page listing itself). Only a restriction
that the listing gives partly is read on its own (`restriction/byOperation/read`). Users named only
by account id get their e-mail from the v2 bulk user lookup; a user's groups come from
`/rest/api/user/memberof`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

import requests

from integrations.base import VendorClient
from integrations.errors import VendorDenied, VendorNotFound
from integrations.wikispace_content import (
    WikiAttachment,
    WikiPage,
    access_from_v1,
    attachment_from_v1,
    attachment_from_v2,
    page_from_v1,
    page_from_v2,
    storage_body,
)
from integrations.wikispace_permissions import (
    PageAccess,
    Restriction,
    SpaceAccess,
    group_key,
    restriction_page,
    space_access_from_v1,
    space_access_from_v2,
    user_of,
)

PLATFORM = "wikispace"
PAGE_SIZE = 100
CONTENT_PAGE_SIZE = 250  # pages or attachments a listing asks for (v2's maximum; v1 caps it itself)
MAX_PAGES = 1000  # a loop guard against a platform whose next link never ends
USERS_PER_LOOKUP = 100  # account ids one bulk user lookup asks for
USERS_PER_SEARCH = 200  # users one page of the user search asks for (the wiki's maximum)
READ_RESTRICTIONS = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
ACCESS_EXPAND = f"ancestors,{READ_RESTRICTIONS}"


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
        self._space_ids: dict[str, str] = {}  # v2 space id by key, as the page listing found it
        self.emails: dict[str, str] = {}  # each user's e-mail address seen, by account id ("" hidden)

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
        self._space_ids[space_key] = str(space.get("id"))
        first = self.get_json(
            f"/api/v2/spaces/{quote(str(space.get('id')), safe='')}/pages",
            params={"limit": CONTENT_PAGE_SIZE, "status": "current"},
        )
        return [page_from_v2(raw, space_key=space_key) for raw in self._cursor_results(first)]

    def _space_pages_v1(self, space_key: str) -> list[WikiPage]:
        """The v1 listing, with each page's ancestors and read restriction (`WikiPage.access`; the
        users' e-mail addresses noted in `emails`)."""
        try:
            self.get_json(f"/rest/api/space/{quote(space_key, safe='')}")
        except VendorNotFound as exc:
            raise _no_space(space_key) from exc
        pages = self._offset_results(
            "/rest/api/content", _listing(space_key, f"version,{ACCESS_EXPAND}"), limit=CONTENT_PAGE_SIZE
        )
        return [page_from_v1(raw, space_key=space_key, emails=self.emails) for raw in pages]

    # ---- who may read (knowledge ingestion)
    def space_page_access(self, space_key: str) -> dict[str, PageAccess]:
        """Each current page's ancestors and read restriction, by page id, from the v1 content
        listing (what a v1 instance's page listing already carries)."""
        found = self._offset_results(
            "/rest/api/content", _listing(space_key, ACCESS_EXPAND), limit=CONTENT_PAGE_SIZE
        )
        return {str(raw.get("id")): access_from_v1(raw, self.emails) for raw in found}

    def read_restriction(self, content_id: str) -> Restriction:
        """One content's read restriction on its own, every user and group (paged alike)."""
        path = f"/rest/api/content/{quote(content_id, safe='')}/restriction/byOperation/read"
        users: set[str] = set()
        groups: set[str] = set()
        start = 0
        for _ in range(MAX_PAGES):
            body = self.get_json(
                path,
                params={"expand": "restrictions.user,restrictions.group", "start": start, "limit": PAGE_SIZE},
            )
            found, step = restriction_page(body, self.emails)
            users |= found.users
            groups |= found.groups
            if not step:
                break
            start += step
        return Restriction(users=frozenset(users), groups=frozenset(groups))

    def space_access(self, space_key: str) -> SpaceAccess | None:
        """Who may view the space; None where the wiki does not say (it refuses, or has no such
        read, or answers without the permissions)."""
        try:
            if self._speaks_v2():
                space_id = self._space_ids.get(space_key) or self._space_id(space_key)
                first = self.get_json(
                    f"/api/v2/spaces/{quote(space_id, safe='')}/permissions",
                    params={"limit": CONTENT_PAGE_SIZE},
                )
                return space_access_from_v2(self._cursor_results(first))
            body = self.get_json(
                f"/rest/api/space/{quote(space_key, safe='')}", params={"expand": "permissions"}
            )
        except (VendorDenied, VendorNotFound):
            return None
        permissions = body.get("permissions")
        return space_access_from_v1(permissions, self.emails) if isinstance(permissions, list) else None

    def _space_id(self, space_key: str) -> str:
        found = self.get_json("/api/v2/spaces", params={"keys": space_key})
        space = next((raw for raw in found.get("results") or [] if raw.get("key") == space_key), None)
        if space is None:
            raise _no_space(space_key)
        return str(space.get("id"))

    def look_up_emails(self, account_ids: list[str]) -> None:
        """Note the e-mail address of users known by account id only, through the v2 bulk user
        lookup (a v1 instance names its users with their profiles already)."""
        if not self._speaks_v2():
            return
        for at in range(0, len(account_ids), USERS_PER_LOOKUP):
            chunk = account_ids[at : at + USERS_PER_LOOKUP]
            self.emails.update(dict.fromkeys(chunk, ""))  # "" stays for an account the lookup omits
            first = self.json_of(self.request("POST", "/api/v2/users-bulk", json={"accountIds": chunk}))
            for raw in self._cursor_results(first):
                account, email = user_of(raw)
                if account:
                    self.emails[account] = email or ""

    def user_groups(self, account_id: str) -> frozenset[str]:
        """The groups (keys: id, or name where the wiki has none) the user is a member of."""
        found = self._offset_results("/rest/api/user/memberof", {"accountId": account_id}, limit=PAGE_SIZE)
        return frozenset(key for key in (group_key(raw) for raw in found) if key)

    def account_of(self, email: str) -> str | None:
        """The account id of the user whose e-mail address is `email`, or None. The wiki's REST has
        no lookup by e-mail: the user search (`cql=type=user`) lists users with their e-mail where
        their profile shows it, and only an account whose address equals `email` counts."""
        wanted = email.strip().lower()
        params = {"cql": "type=user"}
        for raw in self._offset_results("/rest/api/search/user", params, limit=USERS_PER_SEARCH):
            account, shown = user_of(raw.get("user"))
            if account and shown == wanted:
                return account
        return None

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


def _listing(space_key: str, expand: str) -> dict:
    return {"spaceKey": space_key, "type": "page", "status": "current", "expand": expand}


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
