"""Wiki tools (`wikispace`): page search (CQL), page get, create and delete (v2 API), and a
permission granted in a space (v1 API; `admin`: it needs the space's Admin permission)."""

from __future__ import annotations

from toolhub.registry import nullable, tool_define

PAGE_ID = {"type": "string", "pattern": "^[0-9]{1,20}$"}
_STR = {"type": "string"}
PAGE = {
    "type": "object",
    "required": ["id", "title", "space_id", "status", "version"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "title": _STR,
        "space_id": _STR,
        "parent_id": nullable("string"),
        "status": _STR,
        "version": {"type": "integer"},
        "body": nullable("string"),
        "web_url": nullable("string"),
    },
}


def _page(raw: dict, base: str) -> dict:
    links = raw.get("_links") or {}
    webui = links.get("webui")
    return {
        "id": str(raw.get("id", "")),
        "title": str(raw.get("title") or ""),
        "space_id": str(raw.get("spaceId") or ""),
        "parent_id": None if raw.get("parentId") is None else str(raw.get("parentId")),
        "status": str(raw.get("status") or ""),
        "version": int((raw.get("version") or {}).get("number") or 0),
        "body": ((raw.get("body") or {}).get("storage") or {}).get("value"),
        "web_url": (links.get("base") or base) + webui if webui else None,
    }


def page_search(client, args: dict) -> dict:
    body = client.page_search(
        text=args["query"], space_key=args.get("space_key"), limit=args.get("limit", 10)
    )
    base = (body.get("_links") or {}).get("base") or client.base_url
    pages = [
        {
            "id": str(item.get("id", "")),
            "title": str(item.get("title") or ""),
            "space_key": (item.get("space") or {}).get("key"),
            "web_url": base + item["_links"]["webui"] if (item.get("_links") or {}).get("webui") else None,
        }
        for item in body.get("results") or []
        if isinstance(item, dict)
    ]
    return {"pages": pages, "count": len(pages)}


def page_get(client, args: dict) -> dict:
    return _page(client.page_get(args["page_id"]), client.base_url)


def page_create(client, args: dict) -> dict:
    raw = client.page_create(
        space_id=args["space_id"], title=args["title"], body=args["body"], parent_id=args.get("parent_id")
    )
    return _page(raw, client.base_url)


def page_delete(client, args: dict) -> dict:
    client.page_delete(args["page_id"])
    return {"page_id": args["page_id"], "deleted": True}


def space_permission_add(client, args: dict) -> dict:
    raw = client.space_permission_add(args["space_key"], subject=args["subject"], operation=args["operation"])
    subject, operation = raw.get("subject") or {}, raw.get("operation") or {}
    return {
        "id": str(raw.get("id") or ""),
        "space_key": args["space_key"],
        "subject": {
            "type": str(subject.get("type") or ""),
            "identifier": str(subject.get("identifier") or ""),
        },
        "operation": {"key": str(operation.get("key") or ""), "target": str(operation.get("target") or "")},
    }


tool_define(
    "wiki.page.search",
    "Search pages",
    "Pages whose text matches the query, optionally in one space.",
    "read",
    {
        "required": ["query"],
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 200},
            "space_key": {"type": "string", "pattern": "^[A-Za-z0-9_~]{1,255}$"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        },
    },
    {
        "type": "object",
        "required": ["pages", "count"],
        "properties": {
            "pages": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "title"],
                    "properties": {
                        "id": {"type": "string", "minLength": 1},
                        "title": _STR,
                        "space_key": nullable("string"),
                        "web_url": nullable("string"),
                    },
                },
            },
            "count": {"type": "integer"},
        },
    },
    page_search,
)
tool_define(
    "wiki.page.get",
    "Get a page",
    "One page with its storage-format body.",
    "read",
    {"required": ["page_id"], "properties": {"page_id": PAGE_ID}},
    PAGE,
    page_get,
)
tool_define(
    "wiki.page.create",
    "Create a page",
    "A new page in a space (storage-format body), optionally under a parent page.",
    "write",
    {
        "required": ["space_id", "title", "body"],
        "properties": {
            "space_id": PAGE_ID,
            "title": {"type": "string", "minLength": 1, "maxLength": 255},
            "body": {"type": "string", "maxLength": 500000},
            "parent_id": PAGE_ID,
        },
    },
    PAGE,
    page_create,
)
tool_define(
    "wiki.page.delete",
    "Delete a page",
    "Move a page to its space's trash (a space admin can restore or purge it there).",
    "destructive",
    {"required": ["page_id"], "properties": {"page_id": PAGE_ID}, "examples": [{"page_id": "65536"}]},
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["page_id", "deleted"],
        "properties": {"page_id": _STR, "deleted": {"const": True}},
    },
    page_delete,
)


SPACE_KEY = {"type": "string", "pattern": "^[A-Za-z0-9_~]{1,255}$"}
# The operations the platform grants in a space: a key and the targets it takes.
SPACE_OPERATIONS = {
    "read": ["space"],
    "create": ["page", "blogpost", "comment", "attachment"],
    "delete": ["space", "page", "blogpost", "comment", "attachment"],
    "export": ["space"],
    "administer": ["space"],
    "archive": ["page"],
    "restrict_content": ["space"],
}
SUBJECT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["type", "identifier"],
    "properties": {
        "type": {"enum": ["user", "group"]},
        "identifier": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "description": "A user's account id, or a group's name or id.",
        },
    },
}
OPERATION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["key", "target"],
    "properties": {"key": {"enum": list(SPACE_OPERATIONS)}, "target": {"type": "string"}},
    "oneOf": [
        {"properties": {"key": {"const": key}, "target": {"enum": targets}}}
        for key, targets in SPACE_OPERATIONS.items()
    ],
    "description": "What the subject may do: read space; create, delete page, blogpost, comment or "
    "attachment; delete, export, administer or restrict_content space; archive page.",
}
tool_define(
    "wiki.space_permission.add",
    "Grant a permission in a space",
    "Give a user or a group one permission in a space (read it, create or delete pages, blog posts, "
    "comments or attachments, export it, administer it, ...). Needs the space's Admin permission.",
    "admin",
    {
        "required": ["space_key", "subject", "operation"],
        "properties": {"space_key": SPACE_KEY, "subject": SUBJECT, "operation": OPERATION},
        "examples": [
            {
                "space_key": "ENG",
                "subject": {"type": "group", "identifier": "engineering-leads"},
                "operation": {"key": "create", "target": "page"},
            },
            {
                "space_key": "ENG",
                "subject": {"type": "user", "identifier": "5b10ac8d82e05b22cc7d4ef5"},
                "operation": {"key": "read", "target": "space"},
            },
        ],
    },
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "space_key", "subject", "operation"],
        "properties": {
            "id": {"type": "string", "minLength": 1},
            "space_key": _STR,
            "subject": {
                "type": "object",
                "required": ["type", "identifier"],
                "properties": {"type": _STR, "identifier": _STR},
            },
            "operation": {
                "type": "object",
                "required": ["key", "target"],
                "properties": {"key": _STR, "target": _STR},
            },
        },
    },
    space_permission_add,
)
