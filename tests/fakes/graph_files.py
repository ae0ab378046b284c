"""The fake document-site API's drive item routes (a part of `FakeGraph`): a drive's root and its
children, any folder's children, an item by path, the change feed, and content.

Content answers as the platform does: `GET .../items/{id}/content` is a 302 to a short-lived
download URL (here `/download/{key}` on the same fake, which needs no bearer token). Files can
misbehave on demand (`add_file(stall=, deny=, reset=, download_to=)`, `add_troublesome_files`);
`content_requests(item)` tells whether anything asked for an item's content."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from urllib.parse import unquote

from tests.fakes.graph_drive import MODIFIED, FakeContent, FakeDrive, file_item, folder_item, graph_error
from tests.fakes.server import Received, Reply, ResetConnection, route

DRIVE = r"/v1\.0/drives/(?P<drive_id>[^/]+)"


class DriveItemRoutes:
    """Mixed into `FakeGraph`, which provides `drives`, `url`, `api_url`, `page_size`, `_authorized`,
    `_page`, `requests_to`, `_stopping`, `_downloads` and `on_content`."""

    drives: dict[str, FakeDrive]
    on_content: Callable[[dict], None] | None

    # ---- data
    def add_folder(
        self, drive: FakeDrive, name: str, *, child_count: int = 0, parent: dict | None = None
    ) -> dict:
        return drive.add(folder_item(name, child_count=child_count), parent)

    def add_file(
        self,
        drive: FakeDrive,
        name: str,
        data: bytes = b"",
        *,
        parent: dict | None = None,
        size: int | None = None,
        mime: str | None = None,
        modified: str = MODIFIED,
        **behaviour,
    ) -> dict:
        """A file holding `data`; `size` overrides the size the platform reports, `behaviour` sets
        how its content misbehaves (`FakeContent`: stall, deny, reset, download_to)."""
        item = file_item(name, data, size=size, mime=mime, modified=modified)
        return drive.add(item, parent, content=FakeContent(data, **behaviour))

    def add_troublesome_files(
        self, drive: FakeDrive, *, oversized_bytes: int, stall_s: float = 60.0, parent: dict | None = None
    ) -> dict[str, dict]:
        """The files that go wrong: one whose download stalls for `stall_s`, one whose content is
        denied (403), one whose bytes are not what its extension says, and one the platform says is
        `oversized_bytes` large (its content must never be asked for)."""
        add = self.add_file
        return {
            "stalled": add(drive, "stalled.txt", b"slow text", parent=parent, stall=stall_s),
            "denied": add(drive, "denied.docx", b"PK\x03\x04secret", parent=parent, deny=True),
            "corrupt": add(drive, "corrupt.pdf", b"\x00\x01 this is no PDF", parent=parent),
            "oversized": add(drive, "oversized.pdf", b"%PDF-1.7", parent=parent, size=oversized_bytes),
        }

    def modify_file(self, drive: FakeDrive, item: dict, data: bytes, *, modified: str = MODIFIED) -> None:
        drive.replace(item, data=data, modified=modified)

    def delete_item(self, drive: FakeDrive, item: dict) -> None:
        drive.delete(item)

    def forget_change_tokens(self, drive: FakeDrive) -> None:
        """Every change token given out so far answers 410 (resync required) from now on."""
        drive.version += 1
        drive.oldest_token = drive.version

    def content_requests(self, item: dict) -> list[Received]:
        return self.requests_to(rf"/items/{item['id']}/content$")

    def downloads(self) -> list[Received]:
        return self.requests_to(r"^/download/")

    # ---- routes
    @route("GET", DRIVE + r"/root/children")
    def root_children(self, request, drive_id):
        return self._children(request, drive_id, None)

    @route("GET", DRIVE + r"/items/(?P<item_id>[^/]+)/children")
    def item_children(self, request, drive_id, item_id):
        return self._children(request, drive_id, unquote(item_id))

    @route("GET", DRIVE + r"/root")
    def drive_root(self, request, drive_id):
        return self._item(request, drive_id, lambda drive: drive.root())

    @route("GET", DRIVE + r"/root:(?P<path>/.+?):?")
    def item_by_path(self, request, drive_id, path):
        return self._item(request, drive_id, lambda drive: drive.at_path(unquote(path)))

    @route("GET", DRIVE + r"/items/(?P<item_id>[^/]+)/content")
    def item_content(self, request, drive_id, item_id):
        drive, item = self._drive(drive_id), None
        if drive is not None:
            item = drive.find(unquote(item_id))
        denied = self._authorized(request)
        if denied or item is None or "file" not in item:
            return denied or Reply(404, graph_error("itemNotFound", "The resource could not be found."))
        content = drive.contents[item["id"]]
        if content.deny:
            return Reply(403, graph_error("accessDenied", "Access denied"))
        if self.on_content is not None:
            self.on_content(item)
        key = uuid.uuid4().hex
        self._downloads[key] = (drive, item)
        return Reply(302, "", {"Location": content.download_to or f"{self.url}/download/{key}"})

    @route("GET", r"/download/(?P<key>[0-9a-f]+)")
    def download(self, request, key):
        drive, item = self._downloads.get(key, (None, None))
        content = drive.contents.get(item["id"]) if drive else None
        if content is None:
            return Reply(404, "The download link is unknown or has expired.")
        if content.reset:
            raise ResetConnection
        if content.stall:
            self._stopping.wait(content.stall)
        return Reply(200, content.data, {"Content-Type": item["file"]["mimeType"]})

    @route("GET", DRIVE + r"/root/delta")
    def delta(self, request, drive_id):
        drive = self._drive(drive_id)
        denied = self._authorized(request)
        if denied or drive is None:
            return denied or Reply(404, graph_error("itemNotFound", "Drive not found"))
        token = (request.query.get("token") or [None])[0]
        if token == "latest":
            return Reply(200, {"value": [], "@odata.deltaLink": self._delta_link(drive)})
        if token is not None and (not token.isdigit() or int(token) < drive.oldest_token):
            return self._resync(drive)
        reply = self._page(request, drive.changes_since(None if token is None else int(token)))
        if "@odata.nextLink" not in reply.body:
            reply.body["@odata.deltaLink"] = self._delta_link(drive)
        return reply

    # ---- helpers
    def _drive(self, drive_id: str) -> FakeDrive | None:
        return self.drives.get(unquote(drive_id))

    def _children(self, request: Received, drive_id: str, parent_id: str | None) -> Reply:
        drive = self._drive(drive_id)
        parent = drive.find(parent_id or drive.root_id) if drive else None
        if parent is None or "folder" not in parent:
            return self._authorized(request) or Reply(404, graph_error("itemNotFound", "Item not found"))
        return self._page(request, drive.children(parent["id"]))

    def _item(self, request: Received, drive_id: str, find: Callable[[FakeDrive], dict | None]) -> Reply:
        denied = self._authorized(request)
        drive = self._drive(drive_id)
        item = find(drive) if drive else None
        if denied or item is None:
            return denied or Reply(404, graph_error("itemNotFound", "The resource could not be found."))
        return Reply(200, item)

    def _delta_link(self, drive: FakeDrive) -> str:
        return f"{self.api_url}/drives/{drive.id}/root/delta?token={drive.version}"

    def _resync(self, drive: FakeDrive) -> Reply:
        body = graph_error("resyncRequired", "Resync required. Replace any local items with the server's.")
        body["error"]["innerError"]["code"] = "resyncChangesApplyDifferences"
        return Reply(410, body, {"Location": f"{self.api_url}/drives/{drive.id}/root/delta"})
