"""IT documentation tools (`itdocs`): organizations and configurations, flattened from JSON:API."""

from __future__ import annotations

from toolhub.registry import tool_define

_STR = {"type": "string"}
_NSTR = {"type": ["string", "null"]}

ORGANIZATION = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": _STR,
        "name": _STR,
        "short_name": _NSTR,
        "type": _NSTR,
        "status": _NSTR,
        "description": _NSTR,
        "updated_at": _NSTR,
    },
}


def _attrs(resource: dict) -> dict:
    return resource.get("attributes") or {}


def _text(value) -> str | None:
    return None if value is None else str(value)


def organization_list(client, args: dict) -> dict:
    document = client.organizations(
        name=args.get("name"), page=args.get("page", 1), page_size=args.get("page_size", 50)
    )
    meta = document.get("meta") or {}
    organizations = [
        {
            "id": str(item.get("id")),
            "name": str(_attrs(item).get("name") or ""),
            "short_name": _text(_attrs(item).get("short-name")),
            "type": _text(_attrs(item).get("organization-type-name")),
            "status": _text(_attrs(item).get("organization-status-name")),
            "description": _text(_attrs(item).get("description")),
            "updated_at": _text(_attrs(item).get("updated-at")),
        }
        for item in document.get("data") or []
        if isinstance(item, dict)
    ]
    return {
        "organizations": organizations,
        "page": int(meta.get("current-page") or args.get("page", 1)),
        "total_pages": int(meta.get("total-pages") or 0),
        "total_count": int(meta.get("total-count") or len(organizations)),
    }


def configuration_get(client, args: dict) -> dict:
    resource = client.configuration(args["configuration_id"]).get("data") or {}
    attrs = _attrs(resource)
    return {
        "id": str(resource.get("id", "")),
        "name": str(attrs.get("name") or ""),
        "organization_id": _text(attrs.get("organization-id")),
        "organization_name": _text(attrs.get("organization-name")),
        "hostname": _text(attrs.get("hostname")),
        "primary_ip": _text(attrs.get("primary-ip")),
        "type": _text(attrs.get("configuration-type-name")),
        "status": _text(attrs.get("configuration-status-name")),
        "manufacturer": _text(attrs.get("manufacturer-name")),
        "model": _text(attrs.get("model-name")),
        "serial_number": _text(attrs.get("serial-number")),
        "notes": _text(attrs.get("notes")),
        "archived": bool(attrs.get("archived")),
        "updated_at": _text(attrs.get("updated-at")),
    }


tool_define(
    "itdocs.organization.list",
    "List organizations",
    "Organizations documented in the IT documentation platform, by name, one page at a time.",
    "read",
    {
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 255, "description": "Exact name filter."},
            "page": {"type": "integer", "minimum": 1, "default": 1},
            "page_size": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50},
        },
    },
    {
        "type": "object",
        "required": ["organizations", "page", "total_pages", "total_count"],
        "properties": {
            "organizations": {"type": "array", "items": ORGANIZATION},
            "page": {"type": "integer"},
            "total_pages": {"type": "integer"},
            "total_count": {"type": "integer"},
        },
    },
    organization_list,
)
tool_define(
    "itdocs.configuration.get",
    "Get a configuration",
    "One configuration item (server, workstation, network device) with its organization.",
    "read",
    {
        "required": ["configuration_id"],
        "properties": {"configuration_id": {"type": "string", "pattern": "^[0-9]{1,20}$"}},
    },
    {
        "type": "object",
        "required": ["id", "name", "archived"],
        "properties": {
            "id": {"type": "string", "minLength": 1},
            "name": _STR,
            "organization_id": _NSTR,
            "organization_name": _NSTR,
            "hostname": _NSTR,
            "primary_ip": _NSTR,
            "type": _NSTR,
            "status": _NSTR,
            "manufacturer": _NSTR,
            "model": _NSTR,
            "serial_number": _NSTR,
            "notes": _NSTR,
            "archived": {"type": "boolean"},
            "updated_at": _NSTR,
        },
    },
    configuration_get,
)
