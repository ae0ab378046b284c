"""The cache of API-key lookups (`core.gencache`): the lookup (one SELECT with the tenant joined)
is the largest cost of a small authenticated request. A revoked, disabled, expired or rotated-away
key, or a suspended tenant, stops authenticating at once, in every process: any write to an API key
moves this cache's generation on, any write to a tenant the tenants' one that its entries also check
(`post_save`/`post_delete` signals, connected in IdentityConfig.ready and CoreConfig.ready, and the
querysets' `update()`/`delete()`, so bulk updates and cascades count too). Time-dependent checks
(expiry, a previous key's grace period) run on every request, on the cached row, never from the
cache's own TTL. Entries hold the key's row (hashes, never the raw key).
"""

from __future__ import annotations

from core.gencache import GenerationCache
from core.models import TENANTS

API_KEYS = GenerationCache("apikey-auth", depends_on=(TENANTS,))
GENERATION_KEY = API_KEYS.generation_key


def cached_lookup(digest: str, load):
    """The ApiKey for `digest` (with its tenant), from the cache when its generation is current,
    else from `load(digest)` (the database), cached for the next request."""
    return API_KEYS.lookup(digest, lambda: load(digest))


def invalidate_all() -> None:
    API_KEYS.invalidate()


# Usage statistics flushed onto a key's row (identity.usage) do not change who may authenticate.
USAGE_FIELDS = frozenset(
    {"usage_count", "success_count", "failure_count", "last_used_at", "last_used_ip", "first_used_at"}
)


def on_save(sender, update_fields=None, **kwargs) -> None:
    """post_save receiver for ApiKey."""
    if update_fields is None or not set(update_fields) <= USAGE_FIELDS:
        invalidate_all()


def on_delete(sender, **kwargs) -> None:
    invalidate_all()
