"""Ensure a demo tenant with a user of each role and a fresh API key, and say how to use them.

Safe to run again: the tenant and users are reused; the demo key is replaced (keys are stored
hashed, so a new one is the only way to show one).
"""

import json

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction

from core.audit import system_actor
from core.commands import emit
from core.models import Role, Tenant
from core.seeding import SEED_HOOKS
from identity.models import ApiKey
from identity.services.users import api_key_create, tenant_user_create

DEMO_TENANT = "demo"
BASE = "http://127.0.0.1:8000"  # where `make run` serves (bin/serve, PORT)
DEMO_PASSWORD = "demo-password-1"  # noqa: S105  (a documented demo login on a developer machine)
DEMO_USERS = {
    "demo-owner": [Role.TENANT_ADMIN],
    "demo-integrations": [Role.INTEGRATION_ADMIN],
    "demo-viewer": [Role.INTEGRATION_VIEWER],
    "demo-auditor": [Role.AUDIT_VIEWER],
    "demo-approver": [Role.APPROVER],
}
# Their roles make them staff (identity.services.users): the console is theirs.
CONSOLE_USERS = {
    "demo-owner": "tenant admin",
    "demo-approver": "approvals",
    "demo-auditor": "audit trail",
}


class Command(BaseCommand):
    help = "Create or refresh the demo tenant, its users and an API key."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true")

    @transaction.atomic
    def handle(self, *args, **options):
        tenant, _ = Tenant.objects.get_or_create(
            name=DEMO_TENANT, defaults={"display_name": "Demo", "domain": "demo.local"}
        )
        for username, roles in DEMO_USERS.items():
            tenant_user_create(
                tenant=tenant,
                username=username,
                password=DEMO_PASSWORD,
                roles=roles,
                email=f"{username}@demo.local",
            )
        ApiKey.objects.filter(tenant=tenant, name="demo").delete()
        _, raw = api_key_create(tenant=tenant, name="demo", scopes=["*"], actor=system_actor("seed_demo"))
        seeded = [note for hook in SEED_HOOKS if (note := hook(tenant))]
        console_users = ", ".join(f"{name} ({what})" for name, what in CONSOLE_USERS.items())
        login = json.dumps({"username": "demo-owner", "password": DEMO_PASSWORD})
        notes = [
            f"Demo tenant: {tenant.id}",
            f"Users (password {DEMO_PASSWORD}): {', '.join(DEMO_USERS)}",
            f"Console: {BASE}/admin/ (debug={settings.DEBUG}); sign in as {console_users}",
            f"API docs: {BASE}/api/docs/",
            *seeded,
            f"Log in:  curl -s -X POST {BASE}/api/v1/auth/token "
            f"-H 'content-type: application/json' -d '{login}'",
            "First tool call: README.md, 'Your first tool call'. In its shell, first paste:",
            f"export TENANT_ID={tenant.id} API_KEY={raw}",
            f'Call:    curl -s {BASE}/api/v1/tools -H "X-API-Key: $API_KEY" -H "x-tenantid: $TENANT_ID"',
            "Demo API key (shown once):",
        ]
        payload = {"tenantId": tenant.id, "users": list(DEMO_USERS), "password": DEMO_PASSWORD, "apiKey": raw}
        emit(self, raw, payload, as_json=options["json"], notes=notes)
