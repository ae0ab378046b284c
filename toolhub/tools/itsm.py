"""ITSM tools (`itsmplatform`): incidents through the Table API, knowledge-article search, and a
role granted to a user (`admin`: it needs the instance's user administration)."""

from __future__ import annotations

from core.api.timestamps import iso_ms_text
from integrations.errors import VendorNotFound
from integrations.itsm import ARTICLE_FIELDS, INCIDENT_FIELDS, field_text, query_value
from toolhub.registry import nullable, tool_define

DATE_TIMES = {"opened_at", "sys_updated_on"}  # the date-times among INCIDENT_FIELDS, ARTICLE_FIELDS

SYS_ID = {"type": "string", "pattern": "^[0-9a-f]{32}$", "description": "The record's sys_id."}
LEVEL = {"type": "integer", "minimum": 1, "maximum": 3}
INCIDENT = {
    "type": "object",
    "required": ["sys_id", "number", "short_description", "state"],
    "properties": {name: {"type": "string"} for name in INCIDENT_FIELDS}
    | {"sys_id": {"type": "string", "minLength": 1}},
}
EDITABLE = {
    "short_description": {"type": "string", "minLength": 1, "maxLength": 160},
    "description": {"type": "string", "maxLength": 4000},
    "urgency": LEVEL,
    "impact": LEVEL,
    "category": {"type": "string", "maxLength": 40},
    "assignment_group": {"type": "string", "maxLength": 32},
    "caller_id": {"type": "string", "maxLength": 32},
}


def _flat(row: dict, fields: list[str]) -> dict:
    """Table API values are strings (references as sys_ids, with exclude_reference_link); its
    date-times (UTC, `2026-11-20 10:00:00`) are given in the API's timestamp form."""
    flat = {name: "" if row.get(name) is None else str(row.get(name)) for name in fields}
    return flat | {name: iso_ms_text(flat[name]) or flat[name] for name in DATE_TIMES.intersection(flat)}


def _fields(values: dict) -> dict:
    return {name: str(value) for name, value in values.items()}


def incident_get(client, args: dict) -> dict:
    if "sys_id" in args:
        row = client.incident_get(args["sys_id"])
    else:
        row = client.incident_find(args["number"])
        if row is None:
            raise VendorNotFound(f"No incident {args['number']}.", platform="itsmplatform", status=404)
    return _flat(row, INCIDENT_FIELDS)


def incident_list(client, args: dict) -> dict:
    conditions = []
    if "active" in args:
        conditions.append(f"active={str(args['active']).lower()}")
    for name in ("state", "priority"):
        if name in args:
            conditions.append(f"{name}={args[name]}")
    if "assignment_group" in args:
        conditions.append(f"assignment_group={query_value(args['assignment_group'])}")
    conditions.append("ORDERBYDESCsys_updated_on")
    limit, offset = args.get("limit", 20), args.get("offset", 0)
    rows = client.incident_list(query="^".join(conditions), limit=limit, offset=offset)
    return {"incidents": [_flat(r, INCIDENT_FIELDS) for r in rows], "limit": limit, "offset": offset}


def incident_create(client, args: dict) -> dict:
    return _flat(client.incident_create(_fields(args)), INCIDENT_FIELDS)


def incident_update(client, args: dict) -> dict:
    return _flat(client.incident_update(args["sys_id"], _fields(args["fields"])), INCIDENT_FIELDS)


def incident_delete(client, args: dict) -> dict:
    client.incident_delete(args["sys_id"])
    return {"sys_id": args["sys_id"], "deleted": True}


def knowledge_search(client, args: dict) -> dict:
    rows = client.knowledge_search(text=args["query"], limit=args.get("limit", 10))
    articles = [_flat(r, ARTICLE_FIELDS) for r in rows]
    return {"articles": articles, "count": len(articles)}


tool_define(
    "itsm.incident.get",
    "Get an incident",
    "One incident by sys_id or by number (INC0010001).",
    "read",
    {
        "properties": {"sys_id": SYS_ID, "number": {"type": "string", "pattern": "^[A-Z]{2,8}[0-9]{4,12}$"}},
        "oneOf": [{"required": ["sys_id"]}, {"required": ["number"]}],
    },
    INCIDENT,
    incident_get,
)
tool_define(
    "itsm.incident.list",
    "List incidents",
    "Incidents, most recently updated first, filtered by state, priority, activity or assignment group.",
    "read",
    {
        "properties": {
            "active": {"type": "boolean"},
            "state": {"type": "integer", "minimum": 1, "maximum": 8},
            "priority": {"type": "integer", "minimum": 1, "maximum": 5},
            "assignment_group": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
            "offset": {"type": "integer", "minimum": 0, "default": 0},
        }
    },
    {
        "type": "object",
        "required": ["incidents", "limit", "offset"],
        "properties": {
            "incidents": {"type": "array", "items": INCIDENT},
            "limit": {"type": "integer"},
            "offset": {"type": "integer"},
        },
    },
    incident_list,
)
tool_define(
    "itsm.incident.create",
    "Create an incident",
    "Open a new incident.",
    "write",
    {"required": ["short_description"], "properties": EDITABLE},
    INCIDENT,
    incident_create,
)
tool_define(
    "itsm.incident.update",
    "Update an incident",
    "Change fields of an incident (state, assignment, notes, ...).",
    "write",
    {
        "required": ["sys_id", "fields"],
        "properties": {
            "sys_id": SYS_ID,
            "fields": {
                "type": "object",
                "additionalProperties": False,
                "minProperties": 1,
                "properties": EDITABLE
                | {
                    "state": {"type": "integer", "minimum": 1, "maximum": 8},
                    "assigned_to": {"type": "string", "maxLength": 32},
                    "close_code": {"type": "string", "maxLength": 40},
                    "close_notes": {"type": "string", "maxLength": 4000},
                    "work_notes": {"type": "string", "maxLength": 4000},
                },
            },
        },
    },
    INCIDENT,
    incident_update,
)
tool_define(
    "itsm.incident.delete",
    "Delete an incident",
    "Delete an incident for good.",
    "destructive",
    {"required": ["sys_id"], "properties": {"sys_id": SYS_ID}},
    {
        "type": "object",
        "required": ["sys_id", "deleted"],
        "properties": {"sys_id": {"type": "string"}, "deleted": {"const": True}},
    },
    incident_delete,
)
tool_define(
    "itsm.knowledge.search",
    "Search knowledge articles",
    "Published knowledge articles whose title or text contains the query.",
    "read",
    {
        "required": ["query"],
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 200},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        },
    },
    {
        "type": "object",
        "required": ["articles", "count"],
        "properties": {
            "articles": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["sys_id", "number", "short_description"],
                    "properties": {name: {"type": "string"} for name in ARTICLE_FIELDS},
                },
            },
            "count": {"type": "integer"},
        },
    },
    knowledge_search,
)


def user_role_grant(client, args: dict) -> dict:
    row = client.user_role_grant(args["user"], args["role"])
    return {
        "sys_id": field_text(row.get("sys_id")),
        "user": field_text(row.get("user")),
        "role": field_text(row.get("role")),
        "state": field_text(row.get("state")) or None,
        "inherited": field_text(row.get("inherited")).lower() == "true",
    }


tool_define(
    "itsm.user_role.grant",
    "Grant a user a role",
    "Give a user one role of the ITSM instance (a sys_user_has_role record), by the sys_ids of the "
    "user (sys_user) and the role (sys_user_role). Needs the instance's user_admin or admin role.",
    "admin",
    {
        "required": ["user", "role"],
        "properties": {
            "user": SYS_ID | {"description": "The user's sys_id (sys_user)."},
            "role": SYS_ID | {"description": "The role's sys_id (sys_user_role)."},
        },
        "examples": [
            {"user": "62826bf03710200044e0bfc8bcbe5df1", "role": "282bf1fac6112285017366cb5f867469"}
        ],
    },
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["sys_id", "user", "role", "state", "inherited"],
        "properties": {
            "sys_id": {"type": "string", "minLength": 1},
            "user": {"type": "string"},
            "role": {"type": "string"},
            "state": nullable("string"),
            "inherited": {"type": "boolean"},
        },
    },
    user_role_grant,
)
