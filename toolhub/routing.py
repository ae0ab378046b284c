"""The cache of the hub's routing reads (`core.gencache`): a call's connection, with its tenant's
approval policy, found by id or as its domain's default, scoped by tenant. A write to a connection,
an approval policy or a tenant moves its tenant's generation on (signals connected in
ToolhubConfig.ready), a bulk `update()`/`delete()` every tenant's, so a deactivated, re-pointed or
deleted connection, a connection whose health a check changed (recorded with `save()`), or a
changed policy, applies to the next call in every process. An API key's pinned connections travel
on the key itself (the authentication cache), so routing a pinned call needs no other read."""

from __future__ import annotations

from core.gencache import GenerationCache

ROUTES = GenerationCache("hub-routes")


def on_change(sender, instance, **kwargs) -> None:
    """post_save / post_delete receiver for Connection, ApprovalPolicy and Tenant: the entries of
    the row's tenant become stale."""
    ROUTES.invalidate(str(getattr(instance, "tenant_id", None) or instance.pk))
