"""Reads of identity. Every selector starts from the tenant's rows; other tenants' ids answer 404."""

from __future__ import annotations

import hmac
import uuid

from django.db.models import Q
from django.utils import timezone

from core.api.errors import ResourceNotFound
from core.models import Tenant
from core.scopes import scopes_within_roles
from identity.authcache import cached_lookup
from identity.keys import api_key_hash
from identity.models import ApiKey, Membership, OAuthClient


def api_key_get(*, tenant: Tenant, key_id: uuid.UUID) -> ApiKey:
    key = ApiKey.objects.filter(tenant=tenant, id=key_id).select_related("created_by", "updated_by").first()
    if key is None:
        raise ResourceNotFound("API key not found.", code="API_KEY_NOT_FOUND")
    return key


def api_key_list(*, tenant: Tenant):
    return ApiKey.objects.filter(tenant=tenant).select_related("created_by").order_by("-created_at", "id")


def api_key_find(raw: str) -> ApiKey | None:
    """The key a raw value names, whatever its state: the key whose current hash it is, or whose
    previous hash it is while the rotation's grace period lasts. Authentication and the validate
    endpoints both ask here. The row comes through the lookup cache (identity.authcache); the grace
    period is checked on every call."""
    digest = api_key_hash(raw)
    key = cached_lookup(digest, _api_key_by_hash)
    if key is None:
        return None
    if hmac.compare_digest(key.key_hash, digest):
        return key
    in_grace = key.previous_valid_until is not None and key.previous_valid_until > timezone.now()
    return key if in_grace and hmac.compare_digest(key.previous_key_hash, digest) else None


def _api_key_by_hash(digest: str) -> ApiKey | None:
    current = Q(key_hash=digest)
    previous = Q(previous_key_hash=digest, previous_valid_until__gt=timezone.now())
    return ApiKey.objects.select_related("tenant").filter(current | previous).first()


def oauth_client_get(*, tenant: Tenant, client_id: uuid.UUID, include_deleted: bool = True) -> OAuthClient:
    clients = OAuthClient.objects.registered().filter(tenant=tenant, id=client_id)
    if not include_deleted:
        clients = clients.exclude(status=OAuthClient.Status.DELETED)
    client = clients.first()
    if client is None:
        raise ResourceNotFound("OAuth client not found.", code="OAUTH_CLIENT_NOT_FOUND")
    return client


def oauth_client_list(*, tenant: Tenant):
    return OAuthClient.objects.registered().filter(tenant=tenant).order_by("-created_at", "id")


def member_scopes(*, user_id, tenant_id, scopes: list[str]) -> list[str] | None:
    """`scopes` narrowed to what the user's roles in the tenant allow an application acting for
    them (core.scopes.ROLE_SCOPES); None when the user is no member of the tenant."""
    roles = Membership.objects.filter(user_id=user_id, tenant_id=tenant_id).values_list("roles", flat=True)
    return scopes_within_roles(scopes, roles[0]) if roles else None
