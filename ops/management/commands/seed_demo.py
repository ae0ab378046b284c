"""Ensure a demo tenant with a user of each role and a demo API key, and say how to use them.

Safe to run again (`make run` runs it on every start): the tenant and users are reused, and so is
the demo key while it is active, so a key pasted into another terminal keeps working. Keys are
stored hashed, so the demo key's secret is kept where it can be shown again: `var/demo_api_key`
(under VAR_DIR, 0600, like the generated keys beside it). A new key replaces it only when that
file is missing or its key is no longer active (revoked, expired, rotated or deleted).
"""

import json
import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from core.audit import system_actor
from core.commands import emit
from core.models import Role, Tenant
from core.seeding import SEED_HOOKS
from identity.keys import api_key_hash
from identity.models import ApiKey
from identity.services.users import api_key_create, tenant_user_create

DEMO_TENANT = "demo"
DEMO_KEY_NAME = "demo"
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
        raw, kept = demo_api_key(tenant)
        base = f"http://127.0.0.1:{os.environ.get('PORT') or 8000}"  # where `make run` serves (bin/serve)
        seeded = [note for hook in SEED_HOOKS if (note := hook(tenant))]
        console_users = ", ".join(f"{name} ({what})" for name, what in CONSOLE_USERS.items())
        login = json.dumps({"username": "demo-owner", "password": DEMO_PASSWORD})
        notes = [
            f"Demo tenant: {tenant.id}",
            f"Users (password {DEMO_PASSWORD}): {', '.join(DEMO_USERS)}",
            f"Console: {base}/admin/; sign in as {console_users}",
            f"API docs: {base}/api/docs/",
            *seeded,
            f"Log in:  curl -s -X POST {base}/api/v1/auth/token "
            f"-H 'content-type: application/json' -d '{login}'",
            "First tool call: README.md, 'Your first tool call'. In its shell, first paste:",
            f"export TENANT_ID={tenant.id} API_KEY={raw}",
            f'Call:    curl -s {base}/api/v1/tools -H "X-API-Key: $API_KEY" -H "x-tenantid: $TENANT_ID"',
            "Demo API key (the one of the last start, still active):"
            if kept
            else f"Demo API key (new; kept in {Path(settings.VAR_DIR) / 'demo_api_key'} for the next start):",
        ]
        payload = {"tenantId": tenant.id, "users": list(DEMO_USERS), "password": DEMO_PASSWORD, "apiKey": raw}
        emit(self, raw, payload, as_json=options["json"], notes=notes)


def demo_api_key(tenant: Tenant) -> tuple[str, bool]:
    """The demo key's secret, and whether it is the one kept from before (still active)."""
    kept_in = Path(settings.VAR_DIR) / "demo_api_key"
    kept = kept_in.read_text().strip() if kept_in.is_file() else ""
    key = ApiKey.objects.filter(tenant=tenant, name=DEMO_KEY_NAME).first()
    if key is not None and kept and key.key_hash == api_key_hash(kept) and key.usable_at(timezone.now()):
        return kept, True
    if key is not None:  # its secret is unknown here, or it no longer works
        key.delete()
    _, raw = api_key_create(tenant=tenant, name=DEMO_KEY_NAME, scopes=["*"], actor=system_actor("seed_demo"))
    transaction.on_commit(lambda: _keep(kept_in, raw))  # never a secret for a key that was not stored
    return raw, False


def _keep(path: Path, raw: str) -> None:
    """Written whole, readable by its owner alone from the start (0600 at creation)."""
    draft = path.with_name(f".{path.name}.{os.getpid()}")
    with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
        out.write(raw + "\n")
    draft.replace(path)
