"""Wiki tools (`wikispace`): page search (CQL), page get, create and delete (v2 API)."""

from __future__ import annotations

from toolhub.registry import tool_define

PAGE_ID = {"type": "string", "pattern": "^[0-9]{1,20}$"}
_STR = {"type": "string"}
PAGE = {
    "type": "object",
    "required": ["id", "title", "space_id", "status", "version"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "title": _STR,
        "space_id": _STR,
        "parent_id": {"type": ["string", "null"]},
        "status": _STR,
        "version": {"type": "integer"},
        "body": {"type": ["string", "null"]},
        "web_url": {"type": ["string", "null"]},
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
                        "space_key": {"type": ["string", "null"]},
                        "web_url": {"type": ["string", "null"]},
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
