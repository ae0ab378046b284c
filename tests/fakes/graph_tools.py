"""The fake document-site API with the file routes the tool hub uses: a drive's search
(`/drives/{id}/root/search(q='...')`) and one item (`/drives/{id}/items/{id}`)."""

from __future__ import annotations

import uuid
from urllib.parse import quote, unquote

from tests.fakes.graph import FakeDrive, FakeGraph, _error
from tests.fakes.server import Received, Reply, route


class FakeGraphTools(FakeGraph):
    def add_document(
        self, drive: FakeDrive, name: str, *, size: int = 1024, mime: str = "application/pdf"
    ) -> dict:
        item = {
            "id": uuid.uuid4().hex.upper(),
            "name": name,
            "webUrl": f"{drive.web_url}/{quote(name)}",
            "size": size,
            "file": {"mimeType": mime},
            "lastModifiedDateTime": "2026-11-20T10:00:00Z",
            "parentReference": {"driveId": drive.id, "path": "/drive/root:"},
        }
        drive.append(item)
        return item

    @route("GET", r"/v1\.0/drives/(?P<drive_id>[^/]+)/root/search\(q='(?P<term>.*)'\)")
    def drive_search(self, request: Received, drive_id: str, term: str) -> Reply:
        drive = self.drives.get(unquote(drive_id))
        if drive is None:
            return self._authorized(request) or Reply(404, _error("itemNotFound", "Drive not found"))
        text = unquote(term).replace("''", "'").lower()
        top = int((request.query.get("$top") or ["200"])[0])
        return self._page(request, [i for i in drive.items if text in i["name"].lower()][:top])

    @route("GET", r"/v1\.0/drives/(?P<drive_id>[^/]+)/items/(?P<item_id>[^/]+)")
    def drive_item(self, request: Received, drive_id: str, item_id: str) -> Reply:
        denied = self._authorized(request)
        if denied:
            return denied
        drive = self.drives.get(unquote(drive_id))
        item = drive.by_id.get(unquote(item_id)) if drive else None
        if item is None:
            return Reply(404, _error("itemNotFound", "The resource could not be found."))
        return Reply(200, item)
