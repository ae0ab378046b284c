"""How people and machines appear in responses, in stored `createdBy`-style fields and on the
console's pages."""

from __future__ import annotations


def person(actor: dict | None) -> dict | None:
    """{id, name, email} of an audit actor (or of a stored one); None when there is nobody."""
    if not actor:
        return None
    return {"id": actor.get("id", ""), "name": actor.get("name", ""), "email": actor.get("email", "")}


def user_person(user) -> dict | None:
    if user is None:
        return None
    return {"id": str(user.id), "name": user.display_name, "email": user.email}


def tenant_ref(tenant) -> dict:
    return {"id": str(tenant.id), "name": tenant.name}


KINDS = {
    "user": "user",
    "api_key": "API key",
    "oauth_client": "OAuth client",
    "service_account": "service account",
    "system": "system",
}


def person_label(actor: dict | None) -> str:
    """ "Name (type)" of an audit actor or a stored `createdBy`-style value, for people to read."""
    if not actor:
        return "—"
    name = actor.get("name") or actor.get("email") or actor.get("id") or "unknown"
    kind = actor.get("type") or ""
    return f"{name} ({KINDS.get(kind, kind)})" if kind else str(name)


def resource_label(resource: dict | None) -> str:
    """ "type: name" of an audit resource (its id when it has no name)."""
    if not resource:
        return "—"
    kind = str(resource.get("type") or "").replace("_", " ")
    name = resource.get("name") or resource.get("id") or ""
    return f"{kind}: {name}" if kind and name else kind or str(name) or "—"
