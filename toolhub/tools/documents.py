"""Document tools (`sitelib`): file search in a drive and file metadata, Graph-style driveItems;
writes (a small file's upload, a new folder), the delete of an item and its sharing with people
(`admin`: it grants access)."""

from __future__ import annotations

import base64

from core.api.timestamps import iso_ms_text
from toolhub.registry import nullable, tool_define

DRIVE_ID = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[A-Za-z0-9!_\\-]+$"}
ITEM_ID = {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[A-Za-z0-9!_\\-]+$"}
_NSTR = nullable("string")
# A name the platform accepts for a file or folder: none of " * : < > ? / \ | and no control
# character, no leading or trailing space, not only dots and spaces.
NAME_PATTERN = r'^(?![^\x00-\x1f]*[\x00-\x1f])(?![ .]*$)[^\s"*:<>?/\\|](?:[^"*:<>?/\\|]*[^\s"*:<>?/\\|])?$'
NAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": 255,
    "pattern": NAME_PATTERN,
    "description": 'A file or folder name: no " * : < > ? / \\ |, no leading or trailing space.',
}
PARENT_ID = ITEM_ID | {"description": "The folder to create in; the drive's root when left out."}
CONFLICT = {
    "enum": ["fail", "replace", "rename"],
    "default": "fail",
    "description": "When the name is taken: fail (the platform answers 409), replace the item, or "
    "rename the new one.",
}
MAX_UPLOAD_BYTES = 512 * 1024  # the whole request body is capped at 1 MiB (API_MAX_BODY_BYTES)
BASE64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
ITEM = {
    "type": "object",
    "required": ["id", "name", "is_folder"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "name": {"type": "string"},
        "web_url": _NSTR,
        "size": nullable("integer"),
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


def file_upload(client, args: dict) -> dict:
    if "content_base64" in args:
        content, content_type = base64.b64decode(args["content_base64"]), "application/octet-stream"
    else:
        content, content_type = args["text"].encode(), "text/plain; charset=utf-8"
    raw = client.file_upload(
        args["drive_id"],
        args.get("parent_id"),
        name=args["name"],
        content=content,
        content_type=args.get("content_type", content_type),
        conflict=args.get("conflict", "fail"),
    )
    return _item(raw)


def folder_create(client, args: dict) -> dict:
    raw = client.folder_create(
        args["drive_id"], args.get("parent_id"), name=args["name"], conflict=args.get("conflict", "fail")
    )
    return _item(raw)


def item_delete(client, args: dict) -> dict:
    client.item_delete(args["drive_id"], args["item_id"])
    return {"drive_id": args["drive_id"], "item_id": args["item_id"], "deleted": True}


_DRIVE_EXAMPLE = "b!kG9xXqA1Q0y3Zl7oT5Vw8A"
tool_define(
    "documents.file.upload",
    "Upload a small file",
    f"Put a small file (at most {MAX_UPLOAD_BYTES} bytes) into a folder of a drive, from text or "
    "base64 content, in one request; the platform answers the new (or replaced) file's metadata.",
    "write",
    {
        "required": ["drive_id", "name"],
        "properties": {
            "drive_id": DRIVE_ID,
            "parent_id": PARENT_ID,
            "name": NAME,
            "text": {
                "type": "string",
                "maxLength": MAX_UPLOAD_BYTES,
                "description": f"The file's content as text, stored as UTF-8 (at most {MAX_UPLOAD_BYTES} "
                "characters; the request body itself is capped at 1 MiB).",
            },
            "content_base64": {
                "type": "string",
                "maxLength": 4 * -(-MAX_UPLOAD_BYTES // 3),
                "pattern": BASE64,
                "description": f"The file's bytes in standard base64 (at most {MAX_UPLOAD_BYTES} bytes "
                "decoded).",
            },
            "content_type": {
                "type": "string",
                "maxLength": 127,
                "pattern": "^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+(?:; ?[a-z0-9_-]+=[A-Za-z0-9_.-]+)?$",
                "description": "The media type sent; text/plain (text) or application/octet-stream (base64) "
                "when left out.",
            },
            "conflict": CONFLICT,
        },
        "oneOf": [{"required": ["text"]}, {"required": ["content_base64"]}],
        "examples": [
            {"drive_id": _DRIVE_EXAMPLE, "name": "notes.txt", "text": "Change window: Saturday 22:00."},
            {
                "drive_id": _DRIVE_EXAMPLE,
                "parent_id": "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K",
                "name": "logo.png",
                "content_base64": "iVBORw0KGgo=",
                "content_type": "image/png",
                "conflict": "rename",
            },
        ],
    },
    ITEM,
    file_upload,
)
tool_define(
    "documents.folder.create",
    "Create a folder",
    "A new folder in a drive, at its root or in a folder.",
    "write",
    {
        "required": ["drive_id", "name"],
        "properties": {"drive_id": DRIVE_ID, "parent_id": PARENT_ID, "name": NAME, "conflict": CONFLICT},
        "examples": [{"drive_id": _DRIVE_EXAMPLE, "name": "2026 audits", "conflict": "rename"}],
    },
    ITEM,
    folder_create,
)
tool_define(
    "documents.item.delete",
    "Delete a file or folder",
    "Delete a file, or a folder with everything in it (the platform keeps it in the site's recycle bin).",
    "destructive",
    {
        "required": ["drive_id", "item_id"],
        "properties": {"drive_id": DRIVE_ID, "item_id": ITEM_ID},
        "examples": [{"drive_id": _DRIVE_EXAMPLE, "item_id": "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K"}],
    },
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["drive_id", "item_id", "deleted"],
        "properties": {
            "drive_id": {"type": "string"},
            "item_id": {"type": "string"},
            "deleted": {"const": True},
        },
    },
    item_delete,
)


def _permission(raw: dict) -> dict:
    """A granted permission: its id, roles and the email of the person it is granted to (the
    platform names them in `grantedToV2`, `grantedTo` or the invitation, whichever it gives)."""
    emails = [
        ((raw.get(member) or {}).get("user") or {}).get("email") for member in ("grantedToV2", "grantedTo")
    ] + [(raw.get("invitation") or {}).get("email")]
    return {
        "id": str(raw.get("id") or ""),
        "roles": [str(role) for role in raw.get("roles") or []],
        "granted_to_email": next((e for e in emails if isinstance(e, str) and e), None),
    }


def item_share(client, args: dict) -> dict:
    granted = client.item_invite(
        args["drive_id"],
        args["item_id"],
        emails=args["recipients"],
        role=args.get("role", "read"),
        send_invitation=args.get("send_invitation", True),
        message=args.get("message"),
    )
    permissions = [_permission(raw) for raw in granted]
    return {
        "drive_id": args["drive_id"],
        "item_id": args["item_id"],
        "permissions": permissions,
        "count": len(permissions),
    }


MAX_RECIPIENTS = 25
tool_define(
    "documents.item.share",
    "Share a file or folder with people",
    "Grant people, by email, read or write access to a file or folder (they must sign in to open "
    "it); the platform mails them an invitation unless send_invitation is false. Needs the right "
    "to manage the item's permissions.",
    "admin",
    {
        "required": ["drive_id", "item_id", "recipients"],
        "properties": {
            "drive_id": DRIVE_ID,
            "item_id": ITEM_ID,
            "recipients": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_RECIPIENTS,
                "uniqueItems": True,
                "items": {"type": "string", "format": "email", "minLength": 3, "maxLength": 254},
                "description": f"The email addresses to grant access to (at most {MAX_RECIPIENTS}).",
            },
            "role": {"enum": ["read", "write"], "default": "read", "description": "The access granted."},
            "send_invitation": {
                "type": "boolean",
                "default": True,
                "description": "Mail the people an invitation; false grants access silently.",
            },
            "message": {
                "type": "string",
                "minLength": 1,
                "maxLength": 2000,
                "description": "Plain text put in the invitation mail.",
            },
        },
        "examples": [
            {
                "drive_id": _DRIVE_EXAMPLE,
                "item_id": "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K",
                "recipients": ["robin@example.com"],
                "role": "write",
                "message": "The runbooks for the change window.",
            },
            {
                "drive_id": _DRIVE_EXAMPLE,
                "item_id": "01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K",
                "recipients": ["auditor@example.com", "lead@example.com"],
                "send_invitation": False,
            },
        ],
    },
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["drive_id", "item_id", "permissions", "count"],
        "properties": {
            "drive_id": {"type": "string"},
            "item_id": {"type": "string"},
            "permissions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["id", "roles", "granted_to_email"],
                    "properties": {
                        "id": {"type": "string", "minLength": 1},
                        "roles": {"type": "array", "items": {"type": "string"}},
                        "granted_to_email": _NSTR,
                    },
                },
            },
            "count": {"type": "integer", "minimum": 0},
        },
    },
    item_share,
)
