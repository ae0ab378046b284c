"""Start-up checks: the master keys parse (any command), and they are the keys this vault was set up
with (commands that touch the database, `migrate` included, so `make run` stops on a wrong key)."""

from __future__ import annotations

from django.core.checks import Error, Tags, register
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

from vault import keyring


@register(Tags.database)
def vault_master_keys_match(app_configs=None, databases=None, **kwargs):
    if not databases:
        return []
    try:
        keyring.keyring_verify(force=True)
    except keyring.MasterKeyMismatch as exc:
        return [Error(str(exc), hint="Set VAULT_MASTER_KEYS to the vault's keys.", id="vault.E002")]
    except (ImproperlyConfigured, DatabaseError):
        return []  # a malformed value stops start-up in ready(); tables may not exist before migrate
    return []
