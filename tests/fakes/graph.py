"""A fake document-site API in the Graph style under `/v1.0`: site search, a site by host and
path, sub-sites, drives, and JSON batching (`POST /v1.0/$batch`); each drive's tree of items
(`tests/fakes/graph_drive.py`) with its children, items by id or path, the change feed
(`root/delta`) and content (a 302 to a download URL on the same fake, as the platform answers);
the items' permissions and the directory's people and groups (`tests/fakes/graph_permissions.py`:
every site is connected to a directory group, "<Site> Members", which its items inherit).
Collections are paged through `@odata.nextLink`; bearer tokens are checked against the ones the
fake identity platform issued. Every request is recorded (`received`, `requests_to`), sub-requests
of batches included, so tests can tell what crossed the network."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, unquote, urlsplit

from tests.fakes.graph_drive import FakeDrive, graph_error
from tests.fakes.graph_files import DriveItemRoutes
from tests.fakes.graph_permissions import ItemPermissionRoutes
from tests.fakes.server import FakeVendor, Received, Reply, route

__all__ = ["FakeDrive", "FakeGraph", "FakeSite"]

BATCH_LIMIT = 20  # the platform's own limit of requests in one JSON batch


@dataclass
class FakeSite:
    id: str
    name: str
    display_name: str
    web_url: str
    host: str
    path: str
    parent: str | None = None
    drives: list[FakeDrive] = field(default_factory=list)
    members: dict = field(default_factory=dict)  # the directory group the site is connected to
    owners_site_group: dict = field(default_factory=dict)  # the site's own group of its owners


class FakeGraph(DriveItemRoutes, ItemPermissionRoutes, FakeVendor):
    def __init__(self, *, tokens: set[str], page_size: int = 100, **kw) -> None:
        super().__init__(**kw)
        self.tokens = tokens
        self.page_size = page_size
        self.sites: dict[str, FakeSite] = {}
        self.drives: dict[str, FakeDrive] = {}
        self.host = "contoso.sitelib.test"
        # Called with the item when its content is asked for, before the 302 leaves.
        self.on_content: Callable[[dict], None] | None = None
        self._downloads: dict[str, tuple[FakeDrive, dict]] = {}
        self._stopping = threading.Event()  # ends stalled downloads when the fake stops
        # Sub-requests of JSON batches run here, concurrently (see `batch`).
        self._batch_pool = ThreadPoolExecutor(max_workers=128, thread_name_prefix="fake-graph-batch")

    def stop(self) -> None:
        self._stopping.set()
        super().stop()
        self._batch_pool.shutdown(wait=False, cancel_futures=True)

    @property
    def api_url(self) -> str:
        return self.url + "/v1.0"

    # ---- data
    def add_site(self, path: str, display_name: str, *, parent: FakeSite | None = None) -> FakeSite:
        site_id = f"{self.host},{uuid.uuid4()},{uuid.uuid4()}"
        site = FakeSite(
            id=site_id,
            name=path.rstrip("/").rsplit("/", 1)[-1] or self.host,
            display_name=display_name,
            web_url=f"https://{self.host}{path}",
            host=self.host,
            path=path,
            parent=parent.id if parent else None,
            members=self.add_group(f"{display_name} Members"),
            owners_site_group={
                "id": "3",
                "displayName": f"{display_name} Owners",
                "loginName": f"{display_name} Owners",
            },
        )
        self.sites[site_id] = site
        return site

    def add_drive(self, site: FakeSite, name: str, *, drive_type: str = "documentLibrary") -> FakeDrive:
        drive = FakeDrive(
            id="b!" + uuid.uuid4().hex,
            name=name,
            drive_type=drive_type,
            web_url=f"{site.web_url}/{quote(name)}",
        )
        drive.root_permissions = self.site_defaults(site)
        site.drives.append(drive)
        self.drives[drive.id] = drive
        return drive

    # ---- routes
    @route("GET", r"/v1\.0/sites")
    def search_sites(self, request):
        if request.query.get("search") != ["*"]:
            return Reply(400, _error("invalidRequest", "Only search=* is supported by this fake."))
        top = [s for s in self.sites.values() if s.parent is None]
        return self._page(request, [_site_json(s) for s in top])

    @route("GET", r"/v1\.0/sites/(?P<host>[^/:,]+)(?::(?P<path>/[^:]*))?:?")
    def site_by_path(self, request, host, path=None):
        wanted = unquote(path or "/").rstrip("/") or "/"
        for site in self.sites.values():
            if site.host == host and (site.path.rstrip("/") or "/") == wanted:
                return self._authorized(request) or Reply(200, _site_json(site))
        return self._authorized(request) or Reply(
            404, _error("itemNotFound", "Requested site could not be found")
        )

    @route("GET", r"/v1\.0/sites/(?P<site_id>[^/]+,[^/]+,[^/]+)/sites")
    def sub_sites(self, request, site_id):
        children = [s for s in self.sites.values() if s.parent == unquote(site_id)]
        return self._page(request, [_site_json(s) for s in children])

    @route("GET", r"/v1\.0/sites/(?P<site_id>[^/]+,[^/]+,[^/]+)/drives")
    def site_drives(self, request, site_id):
        site = self.sites.get(unquote(site_id))
        if site is None:
            return self._authorized(request) or Reply(404, _error("itemNotFound", "Site not found"))
        rows = [
            {"id": d.id, "name": d.name, "driveType": d.drive_type, "webUrl": d.web_url} for d in site.drives
        ]
        return self._page(request, rows)

    @route("POST", r"/v1\.0/\$batch")
    def batch(self, request):
        """JSON batching as the platform documents it: up to 20 requests `{id, method, url}` (the
        URL relative to `/v1.0`), each answered as its own endpoint answers it when called alone
        (queued replies included), with a status, headers and body of its own, so throttling,
        denials and failures are per sub-request; answers come in any order (here: as they
        finish). The sub-requests inherit the batch's Authorization and run concurrently, so the
        batch answers when its slowest sub-request is done: with a latency per request, one
        latency period for the whole batch (the assumption the benchmarks rest on)."""
        denied = self._authorized(request)
        if denied:
            return denied
        subs, problem = self._batch_requests(request)
        if problem:
            return Reply(400, _error("BadRequest", problem))
        with self._lock:
            self.received.extend(subs.values())
        futures = {self._batch_pool.submit(self.handle, sub): key for key, sub in subs.items()}
        responses = [_sub_response(futures[future], future.result()) for future in as_completed(futures)]
        return Reply(200, {"responses": responses})

    def is_batch(self, request: Received) -> bool:
        return request.method == "POST" and request.path == "/v1.0/$batch"

    def _batch_requests(self, request: Received) -> tuple[dict[str, Received], str | None]:
        try:
            requests = request.json().get("requests")
        except (ValueError, AttributeError):
            return {}, "The batch body is not a JSON object."
        if not isinstance(requests, list) or not requests:
            return {}, "A batch needs a non-empty 'requests' array."
        if len(requests) > BATCH_LIMIT:
            return {}, f"A batch holds at most {BATCH_LIMIT} requests."
        subs: dict[str, Received] = {}
        for item in requests:
            if not isinstance(item, dict) or not all(
                isinstance(item.get(k), str) for k in ("id", "method", "url")
            ):
                return {}, "Every request of a batch needs a string id, method and url."
            if item["id"] in subs:
                return {}, f"The id '{item['id']}' is used twice in the batch."
            if "dependsOn" in item:
                return {}, "dependsOn is not supported by this fake."
            if item["url"].startswith(("http://", "https://")):
                return {}, "A request's url must be relative to the API version."
            parts = urlsplit("/" + item["url"].lstrip("/"))
            headers = {
                "Authorization": request.headers.get("Authorization", ""),
                **(item.get("headers") or {}),
            }
            body = json.dumps(item["body"]).encode() if "body" in item else b""
            subs[item["id"]] = Received(
                item["method"].upper(), "/v1.0" + parts.path, parse_qs(parts.query), headers, body
            )
        return subs, None

    # ---- helpers
    def _authorized(self, request: Received) -> Reply | None:
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer ") or header[7:] not in self.tokens:
            return Reply(401, _error("InvalidAuthenticationToken", "Access token validation failure."))
        return None

    def _page(self, request: Received, rows: list[dict]) -> Reply:
        denied = self._authorized(request)
        if denied:
            return denied
        start = int((request.query.get("$skiptoken") or ["0"])[0])
        page = rows[start : start + self.page_size]
        body: dict = {"@odata.context": f"{self.api_url}/$metadata", "value": page}
        if start + self.page_size < len(rows):
            query = "&".join(f"{k}={quote(v[0])}" for k, v in request.query.items() if k != "$skiptoken")
            body["@odata.nextLink"] = f"{self.url}{request.path}?{query}&$skiptoken={start + self.page_size}"
        return Reply(200, body)


def _site_json(site: FakeSite) -> dict:
    return {
        "id": site.id,
        "name": site.name,
        "displayName": site.display_name,
        "webUrl": site.web_url,
        "siteCollection": {"hostname": site.host},
    }


def _sub_response(key: str, reply: Reply) -> dict:
    headers = dict(reply.headers)
    body = reply.body
    if isinstance(body, dict | list):
        headers.setdefault("Content-Type", "application/json")
    elif isinstance(body, bytes):
        body = body.decode()
    return {"id": key, "status": reply.status, "headers": headers, "body": body}


_error = graph_error  # the name other fakes import
