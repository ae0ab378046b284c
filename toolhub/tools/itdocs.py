"""IT documentation tools (`itdocs`): organizations and configurations, flattened from JSON:API;
a configuration's create, update and delete."""

from __future__ import annotations

from toolhub.registry import nullable, tool_define

_STR = {"type": "string"}
_NSTR = nullable("string")

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


ID = {"type": "string", "pattern": "^[0-9]{1,18}$"}
CONFIGURATION = {
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
}
# What a configuration's create and update may set (attributes of the platform, in snake case).
EDITABLE = {
    "name": {"type": "string", "minLength": 1, "maxLength": 255},
    "configuration_type_id": ID | {"description": "The configuration type (server, workstation, ...)."},
    "configuration_status_id": ID | {"description": "The configuration status (active, inactive, ...)."},
    "hostname": {"type": "string", "maxLength": 255},
    "primary_ip": {"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]},
    "serial_number": {"type": "string", "maxLength": 255},
    "notes": {"type": "string", "maxLength": 10000},
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


def _configuration(document: dict) -> dict:
    resource = document.get("data") or {}
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


def _attributes(values: dict) -> dict:
    """Input fields as the platform's kebab-case attributes; its ids are numbers."""
    return {
        name.replace("_", "-"): int(value) if name.endswith("_id") else value
        for name, value in values.items()
    }


def configuration_get(client, args: dict) -> dict:
    return _configuration(client.configuration(args["configuration_id"]))


def configuration_create(client, args: dict) -> dict:
    return _configuration(client.configuration_create(_attributes(args)))


def configuration_update(client, args: dict) -> dict:
    return _configuration(client.configuration_update(args["configuration_id"], _attributes(args["fields"])))


def configuration_delete(client, args: dict) -> dict:
    client.configuration_delete(args["configuration_id"])
    return {"configuration_id": args["configuration_id"], "deleted": True}


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
    CONFIGURATION,
    configuration_get,
)
tool_define(
    "itdocs.configuration.create",
    "Create a configuration",
    "Document a new configuration item (server, workstation, network device) of an organization.",
    "write",
    {
        "required": ["organization_id", "name", "configuration_type_id", "configuration_status_id"],
        "properties": {"organization_id": ID} | EDITABLE,
        "examples": [
            {
                "organization_id": "1000",
                "name": "srv-02",
                "configuration_type_id": "1",
                "configuration_status_id": "1",
                "hostname": "srv-02.acme.local",
                "primary_ip": "10.1.2.4",
            }
        ],
    },
    CONFIGURATION,
    configuration_create,
)
tool_define(
    "itdocs.configuration.update",
    "Update a configuration",
    "Change fields of a configuration item, or archive it; fields left out keep their values.",
    "write",
    {
        "required": ["configuration_id", "fields"],
        "properties": {
            "configuration_id": ID,
            "fields": {
                "type": "object",
                "additionalProperties": False,
                "minProperties": 1,
                "properties": EDITABLE | {"archived": {"type": "boolean"}},
            },
        },
        "examples": [
            {"configuration_id": "5000", "fields": {"primary_ip": "10.1.2.9", "notes": "Moved to rack 4."}},
            {"configuration_id": "5000", "fields": {"archived": True}},
        ],
    },
    CONFIGURATION,
    configuration_update,
)
tool_define(
    "itdocs.configuration.delete",
    "Delete a configuration",
    "Delete a configuration item for good (archiving it, with itdocs.configuration.update, keeps it).",
    "destructive",
    {
        "required": ["configuration_id"],
        "properties": {"configuration_id": ID},
        "examples": [{"configuration_id": "5000"}],
    },
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["configuration_id", "deleted"],
        "properties": {"configuration_id": {"type": "string"}, "deleted": {"const": True}},
    },
    configuration_delete,
)
