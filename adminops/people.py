"""How people and machines appear in responses and in stored `createdBy`-style fields."""

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
