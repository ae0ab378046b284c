"""The fake document-site API's drives: a tree of drive items as the platform serves them (folders,
nested folders, files with sizes, types, web addresses under the site, modification times, eTags),
their content and how it misbehaves, and a change log for the change feed (`root/delta`)."""

from __future__ import annotations

import hashlib
import mimetypes
import uuid
from dataclasses import dataclass, field
from urllib.parse import quote

MODIFIED = "2026-11-20T10:00:00Z"


@dataclass
class FakeContent:
    data: bytes = b""
    stall: float = 0.0  # seconds the download URL waits before it answers
    deny: bool = False  # the content request answers 403
    reset: bool = False  # the download URL drops the connection without an answer
    download_to: str | None = None  # where the 302 points instead of the fake's own download URL


@dataclass
class FakeDrive:
    id: str
    name: str
    drive_type: str
    web_url: str
    items: list[dict] = field(default_factory=list)  # every item, any depth, as served
    by_id: dict[str, dict] = field(default_factory=dict)  # the same items by id (`append`, `delete`)
    root_id: str = field(default_factory=lambda: uuid.uuid4().hex.upper())
    contents: dict[str, FakeContent] = field(default_factory=dict)
    version: int = 1  # the change feed's clock: a token is the version it was given at
    oldest_token: int = 0  # tokens before this one are forgotten (410)
    changed: dict[str, int] = field(default_factory=dict)  # item id -> version of its last change
    removed: dict[str, tuple[int, dict]] = field(default_factory=dict)  # what the feed says of it
    paths: dict[str, str] = field(default_factory=dict)  # item id -> path from the root, no slash
    root_permissions: list[dict] = field(default_factory=list)  # what its items inherit
    unique: dict[str, list[dict]] = field(default_factory=dict)  # item id -> its own permissions

    # ---- reads
    def root(self) -> dict:
        return {
            "id": self.root_id,
            "name": "root",
            "root": {},
            "webUrl": self.web_url,
            "folder": {"childCount": len(self.children(self.root_id))},
            "parentReference": {"driveId": self.id, "driveType": self.drive_type},
        }

    def find(self, item_id: str) -> dict | None:
        if item_id == self.root_id:
            return self.root()
        return self.by_id.get(item_id)

    def parent_id(self, item: dict) -> str:
        return (item.get("parentReference") or {}).get("id") or self.root_id

    def children(self, parent_id: str) -> list[dict]:
        return [item for item in self.items if self.parent_id(item) == parent_id]

    def at_path(self, path: str) -> dict | None:
        """The item at `path` from the root, compared in any case as the platform does."""
        wanted = path.strip("/").lower()
        if not wanted:
            return self.root()
        return next((i for i in self.items if self.path_of(i).lower() == wanted), None)

    def path_of(self, item: dict) -> str:
        return self.paths.get(item["id"], item.get("name", ""))

    # ---- writes
    def append(self, item: dict) -> None:
        """Keep `item` as it is (no path, no change in the feed)."""
        self.items.append(item)
        self.by_id[item["id"]] = item

    def add(self, item: dict, parent: dict | None, *, content: FakeContent | None = None) -> dict:
        parent_id = parent["id"] if parent else self.root_id
        parent_path = self.path_of(parent) if parent else ""
        path = f"{parent_path}/{item['name']}".strip("/")
        item["webUrl"] = f"{self.web_url}/{quote(path)}"
        where = f"/drives/{self.id}/root:" + (quote("/" + parent_path) if parent_path else "")
        item["parentReference"] = {"driveId": self.id, "driveType": self.drive_type, "id": parent_id}
        item["parentReference"]["path"] = where
        self.append(item)
        self.paths[item["id"]] = path
        if content is not None:
            self.contents[item["id"]] = content
        if parent is not None and "folder" in parent:
            parent["folder"]["childCount"] = parent["folder"].get("childCount", 0) + 1
        self.touch(item)
        return item

    def touch(self, item: dict) -> None:
        """Record a change of `item` (and of the folders above it, as the platform's feed does)."""
        self.version += 1
        current: dict | None = item
        while current is not None:
            self.changed[current["id"]] = self.version
            parent = self.parent_id(current)
            current = None if parent == current["id"] else self.find(parent)

    def replace(self, item: dict, *, data: bytes, modified: str) -> None:
        version = int(item["eTag"].rsplit(",", 1)[1].rstrip('"')) + 1
        item.update(_content_fields(item["id"], data, version, mime=item["file"]["mimeType"]))
        item["lastModifiedDateTime"] = modified
        self.contents[item["id"]].data = data
        self.touch(item)

    def delete(self, item: dict) -> None:
        """Remove `item` and everything under it; the feed reports each as deleted."""
        for child in self.children(item["id"]):
            self.delete(child)
        self.items.remove(item)
        self.by_id.pop(item["id"], None)
        self.contents.pop(item["id"], None)
        self.version += 1
        tombstone = {
            "id": item["id"],
            "deleted": {"state": "deleted"},
            "parentReference": {"driveId": self.id, "id": self.parent_id(item)},
        }
        self.removed[item["id"]] = (self.version, tombstone)
        self.changed.pop(item["id"], None)

    # ---- the change feed
    def changes_since(self, token: int | None) -> list[dict]:
        """Every item (from the root down) with no token; else what changed after it, oldest first.
        The feed leaves out `parentReference.path` (renaming a folder does not list its items)."""
        if token is None:
            return [_without_path(item) for item in [self.root(), *self.items]]
        ids = [i for i, version in self.changed.items() if version > token]
        current = sorted(filter(None, map(self.find, ids)), key=lambda item: self.changed[item["id"]])
        gone = sorted((entry for entry in self.removed.values() if entry[0] > token), key=lambda e: e[0])
        return [_without_path(item) for item in current] + [row for _, row in gone]


def file_item(name: str, data: bytes, *, size: int | None, mime: str | None, modified: str) -> dict:
    item_id = uuid.uuid4().hex.upper()
    mime = mime or mimetypes.guess_type(name)[0] or "application/octet-stream"
    item = {"id": item_id, "name": name, "lastModifiedDateTime": modified}
    item.update(_content_fields(item_id, data, 1, mime=mime))
    if size is not None:
        item["size"] = size
    return item


def folder_item(name: str, *, child_count: int, modified: str = MODIFIED) -> dict:
    item_id = uuid.uuid4().hex.upper()
    return {
        "id": item_id,
        "name": name,
        "folder": {"childCount": child_count},
        "lastModifiedDateTime": modified,
        "eTag": f'"{{{item_id}}},1"',
    }


def _content_fields(item_id: str, data: bytes, version: int, *, mime: str) -> dict:
    return {
        "size": len(data),
        "file": {"mimeType": mime, "hashes": {"sha256Hash": hashlib.sha256(data).hexdigest().upper()}},
        "eTag": f'"{{{item_id}}},{version}"',
        "cTag": f'"c:{{{item_id}}},{version}"',
    }


def _without_path(item: dict) -> dict:
    row = dict(item)
    if "parentReference" in row:
        row["parentReference"] = {k: v for k, v in row["parentReference"].items() if k != "path"}
    return row


def graph_error(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message, "innerError": {"request-id": str(uuid.uuid4())}}}
