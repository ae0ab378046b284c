"""A fake document-site API in the Graph style under `/v1.0`: site search, a site by host and
path, sub-sites, drives and a drive's root children, each paged through `@odata.nextLink`; bearer
tokens are checked against the ones the fake identity platform issued."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from tests.fakes.server import FakeVendor, Received, Reply, route


@dataclass
class FakeDrive:
    id: str
    name: str
    drive_type: str
    web_url: str
    items: list[dict] = field(default_factory=list)


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


class FakeGraph(FakeVendor):
    def __init__(self, *, tokens: set[str], page_size: int = 100, **kw) -> None:
        super().__init__(**kw)
        self.tokens = tokens
        self.page_size = page_size
        self.sites: dict[str, FakeSite] = {}
        self.drives: dict[str, FakeDrive] = {}
        self.host = "contoso.sitelib.test"

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
        site.drives.append(drive)
        self.drives[drive.id] = drive
        return drive

    def add_folder(self, drive: FakeDrive, name: str, *, child_count: int = 0) -> dict:
        item = {
            "id": uuid.uuid4().hex.upper(),
            "name": name,
            "webUrl": f"{drive.web_url}/{quote(name)}",
            "folder": {"childCount": child_count},
        }
        drive.items.append(item)
        return item

    def add_file(self, drive: FakeDrive, name: str) -> None:
        drive.items.append(
            {
                "id": uuid.uuid4().hex.upper(),
                "name": name,
                "webUrl": f"{drive.web_url}/{quote(name)}",
                "file": {},
            }
        )

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

    @route("GET", r"/v1\.0/drives/(?P<drive_id>[^/]+)/root/children")
    def root_children(self, request, drive_id):
        drive = self.drives.get(unquote(drive_id))
        if drive is None:
            return self._authorized(request) or Reply(404, _error("itemNotFound", "Drive not found"))
        return self._page(request, list(drive.items))

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


def _error(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message, "innerError": {"request-id": str(uuid.uuid4())}}}
