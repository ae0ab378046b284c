"""Master-key rotation: after adding a new key first in VAULT_MASTER_KEYS (keep the old one listed),
re-wrap every data key under it. Then the old master key can be removed from the list."""

from __future__ import annotations

import json

from django.db import transaction

from core.commands import OperatorCommand
from vault import keyring
from vault.models import DataKey


class Command(OperatorCommand):
    help = "Re-wrap every tenant data key under the active master key (the first in VAULT_MASTER_KEYS)."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args, **options):
        keyring.forget_cached_keys()
        keyring.keyring_verify(force=True)
        active = keyring.master_keys().active_id
        rewrapped = 0
        for row_id in DataKey.objects.exclude(kek_id=active).values_list("id", flat=True):
            with transaction.atomic():
                row = DataKey.objects.select_for_update().get(id=row_id)
                if row.kek_id == active:
                    continue
                raw = keyring.unwrap(
                    row.wrapped, tenant_id=row.tenant_id, version=row.version, kek_id=row.kek_id
                )
                row.kek_id, row.wrapped = keyring.wrap(raw, tenant_id=row.tenant_id, version=row.version)
                row.save(update_fields=["kek_id", "wrapped"])
                rewrapped += 1
        keyring.forget_cached_keys()
        result = {"activeMasterKey": active, "rewrapped": rewrapped}
        if options["json"]:
            self.stdout.write(json.dumps(result))
        else:
            self.stdout.write(f"Re-wrapped {rewrapped} data key(s) under master key {active!r}.")
            self.stdout.write(str(rewrapped))
