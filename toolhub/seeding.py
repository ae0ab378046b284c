"""Demo data: a `knowledge` connection, so the demo tenant's first tool call needs no vendor
(`knowledge.documents.search` over the demo handbook that knowledge's seeding writes)."""

from __future__ import annotations

from core.audit import system_actor
from core.models import Tenant
from core.seeding import seed_hook
from toolhub.selectors import connection_list
from toolhub.services.connections import connection_create

DEMO_CONNECTION = "demo-knowledge"


@seed_hook
def seed_knowledge_connection(tenant: Tenant) -> str:
    # seed_demo runs on every `make run`: the connection is made once (again only if deleted).
    connection = connection_list(tenant=tenant).filter(name=DEMO_CONNECTION).first()
    if connection is None:
        connection = connection_create(
            tenant=tenant,
            actor=system_actor("seed_demo"),
            name=DEMO_CONNECTION,
            domain="knowledge",
            connector="knowledge",
        )  # the knowledge domain's default, unless the tenant already chose another
    default = "the default" if connection.is_default else "not the default"
    return f"Knowledge connection: {DEMO_CONNECTION} ({connection.public_id}, {default} of its domain)"
