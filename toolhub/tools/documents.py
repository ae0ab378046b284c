"""Document tools (`sitelib`): file search in a drive and file metadata, Graph-style driveItems."""

from __future__ import annotations

from config.api.timestamps import iso_ms_text
from toolhub.registry import tool_define

DRIVE_ID = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[A-Za-z0-9!_\\-]+$"}
ITEM_ID = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[A-Za-z0-9!_\\-]+$"}
_NSTR = {"type": ["string", "null"]}
ITEM = {
    "type": "object",
    "required": ["id", "name", "is_folder"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "name": {"type": "string"},
        "web_url": _NSTR,
        "size": {"type": ["integer", "null"]},
        "mime_type": _NSTR,
        "is_folder": {"type": "boolean"},
        "last_modified": _NSTR,
        "path": _NSTR,
    },
}


def _item(raw: dict) -> dict:
    return {
        "id": str(raw.get("id", "")),
        "name": str(raw.get("name") or ""),
        "web_url": raw.get("webUrl"),
        "size": raw.get("size") if isinstance(raw.get("size"), int) else None,
        "mime_type": (raw.get("file") or {}).get("mimeType"),
        "is_folder": "folder" in raw,
        "last_modified": iso_ms_text(raw.get("lastModifiedDateTime")),
        "path": (raw.get("parentReference") or {}).get("path"),
    }


def file_search(client, args: dict) -> dict:
    items = client.drive_search(args["drive_id"], text=args["query"], top=args.get("limit", 25))
    files = [_item(item) for item in items]
    return {"files": files, "count": len(files)}


def file_get(client, args: dict) -> dict:
    return _item(client.drive_item(args["drive_id"], args["item_id"]))


tool_define(
    "documents.file.search",
    "Search files",
    "Files and folders of a document library (drive) matching the query.",
    "read",
    {
        "required": ["drive_id", "query"],
        "properties": {
            "drive_id": DRIVE_ID,
            "query": {"type": "string", "minLength": 1, "maxLength": 200},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 25},
        },
    },
    {
        "type": "object",
        "required": ["files", "count"],
        "properties": {"files": {"type": "array", "items": ITEM}, "count": {"type": "integer"}},
    },
    file_search,
)
tool_define(
    "documents.file.get",
    "Get file metadata",
    "Metadata of one file or folder in a drive (name, size, type, location, modified).",
    "read",
    {"required": ["drive_id", "item_id"], "properties": {"drive_id": DRIVE_ID, "item_id": ITEM_ID}},
    ITEM,
    file_get,
)
