"""The cache of API-key lookups (`config.gencache`): the lookup (one SELECT with the tenant joined)
is the largest cost of a small authenticated request. A revoked, disabled, expired or rotated-away
key, or a suspended tenant, stops authenticating at once, in every process: any write to an API key
or a tenant moves the generation on (`post_save`/`post_delete` signals, connected in
AdminopsConfig.ready, and the querysets' `update()`/`delete()`, so bulk updates and cascades count
too). Time-dependent checks (expiry, a previous key's grace period) run on every request, on the
cached row, never from the cache's own TTL. Entries hold the key's row (hashes, never the raw key).
"""

from __future__ import annotations

from config.gencache import GenerationCache

API_KEYS = GenerationCache("apikey-auth")
GENERATION_KEY = API_KEYS.generation_key


def cached_lookup(digest: str, load):
    """The ApiKey for `digest` (with its tenant), from the cache when its generation is current,
    else from `load(digest)` (the database), cached for the next request."""
    return API_KEYS.lookup(digest, lambda: load(digest))


def invalidate_all() -> None:
    API_KEYS.invalidate()


# Usage statistics flushed onto a key's row (adminops.usage) do not change who may authenticate.
USAGE_FIELDS = frozenset(
    {"usage_count", "success_count", "failure_count", "last_used_at", "last_used_ip", "first_used_at"}
)


def on_save(sender, update_fields=None, **kwargs) -> None:
    """post_save receiver for ApiKey and Tenant."""
    if update_fields is None or not set(update_fields) <= USAGE_FIELDS:
        invalidate_all()


def on_delete(sender, **kwargs) -> None:
    invalidate_all()
