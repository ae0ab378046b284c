"""Demo data: a block rule and an allow rule, so the admin's "Source rules" page shows the idea."""

from __future__ import annotations

from adminops.models import Tenant
from adminops.seeding import seed_hook
from knowledge.services import source_rule_ensure


@seed_hook
def seed_source_rules(tenant: Tenant) -> None:
    source_rule_ensure(
        tenant=tenant,
        kind="block",
        target="site",
        value="https://demo.example.com/sites/finance",
        note="Demo: finance never reaches the knowledge base (applied with blacklisted=true).",
    )
    source_rule_ensure(
        tenant=tenant,
        kind="allow",
        target="site",
        value="https://demo.example.com/sites/hr",
        audiences=["hr"],
        note="Demo: with source_restriction=true, the hr audience sees only this site.",
    )
