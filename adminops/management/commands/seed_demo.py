"""Ensure a demo tenant with a user of each role and a fresh API key, and say how to use them.

Safe to run again: the tenant and users are reused; the demo key is replaced (keys are stored
hashed, so a new one is the only way to show one).
"""

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction

from adminops.audit import system_actor
from adminops.management.commands._output import emit
from adminops.models import ApiKey, Role, Tenant
from adminops.seeding import SEED_HOOKS
from adminops.services import api_key_create, tenant_user_create

DEMO_TENANT = "demo"
DEMO_PASSWORD = "demo-password-1"  # noqa: S105  (a documented demo login on a developer machine)
DEMO_USERS = {
    "demo-owner": [Role.TENANT_ADMIN],
    "demo-integrations": [Role.INTEGRATION_ADMIN],
    "demo-viewer": [Role.INTEGRATION_VIEWER],
    "demo-auditor": [Role.AUDIT_VIEWER],
    "demo-approver": [Role.APPROVER],
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
        for hook in SEED_HOOKS:
            hook(tenant)
        notes = [
            f"Demo tenant: {tenant.id}",
            f"Users (password {DEMO_PASSWORD}): {', '.join(DEMO_USERS)}",
            "Log in:  curl -s -X POST localhost:8000/api/v1/auth/token -H 'content-type: application/json' "
            f'-d \'{{"username": "demo-owner", "password": "{DEMO_PASSWORD}"}}\'',
            "Call:    curl -s localhost:8000/api/v1/admin/health -H 'X-API-Key: <key below>' "
            f"-H 'x-tenantid: {tenant.id}'",
            "Docs:    http://localhost:8000/api/docs/",
            f"Admin:   http://localhost:8000/admin/ (debug={settings.DEBUG})",
            "Demo API key (shown once):",
        ]
        payload = {"tenantId": tenant.id, "users": list(DEMO_USERS), "password": DEMO_PASSWORD, "apiKey": raw}
        emit(self, raw, payload, as_json=options["json"], notes=notes)
