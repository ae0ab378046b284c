"""The vault's row caches (`core.gencache`).

`ACTIVE_DEKS`: which data-key version is each tenant's active one (vault.keyring); any write to a
data key (a new key, a rotation retiring keys) makes every entry stale, through `DataKeyQuerySet`
and the signals connected in VaultConfig.ready.

`IN_USE`: the cache of credentials as connectors use them (`core.gencache`, scoped by tenant): the tool
hub reads a connection's credential on every call, and the row, with its secrets still sealed,
comes from here. A change to a credential moves its tenant's generation on (`post_save` and
`post_delete`, connected in VaultConfig.ready; a new row was in no entry, as only found rows are
cached), a bulk write through the queryset (an expiry flag, a DEK rotation batch) every tenant's;
counting an access changes nothing a use reads and keeps the cache. Expiry and refresh are decided
on every use, on the row as read."""

from __future__ import annotations

from core.gencache import GenerationCache

ACTIVE_DEKS = GenerationCache("vault-active-dek")
IN_USE = GenerationCache("vault-use")
# Columns that only count accesses: writing them leaves the cached rows valid.
ACCESS_FIELDS = frozenset({"last_accessed_at", "access_count"})


def on_save(sender, instance, created=False, update_fields=None, **kwargs) -> None:
    if not created and (update_fields is None or not set(update_fields) <= ACCESS_FIELDS):
        IN_USE.invalidate(str(instance.tenant_id))


def on_delete(sender, instance, **kwargs) -> None:
    IN_USE.invalidate(str(instance.tenant_id))
