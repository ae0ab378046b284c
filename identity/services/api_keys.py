"""API keys: create, rotate (with an optional grace period), revoke or delete, validate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.api.errors import Conflict, value_error
from core.api.ratelimit import Bucket, principal_rate, rate_limit_peek, rate_parse
from core.api.timestamps import iso_ms
from core.audit import audit_record
from core.models import Tenant
from core.people import person
from core.principals import Principal
from core.scopes import SCOPES, unknown_scopes
from identity.keys import api_key_display_prefix, api_key_generate, api_key_hash
from identity.models import ApiKey, User
from identity.netaddr import ip_allowed, is_ip, network_errors
from identity.selectors import api_key_find
from identity.services.users import api_key_create

API_KEY_RETENTION_DAYS = 90  # a revoked key's row is kept this long, then `cleanupExpiredSessions` removes it
CATEGORY = "api_keys"


@dataclass(frozen=True)
class KeySpec:
    name: str
    scopes: list[str]
    environment: str = ApiKey.Environment.LIVE
    description: str = ""
    protocol: str = ""
    ip_whitelist: tuple[str, ...] = ()
    tool_patterns: tuple[str, ...] = ()
    expires_in_days: int | None = None
    connections: dict | None = None  # pinned connections, {domain: connection id}


def api_key_issue(
    *, tenant: Tenant, spec: KeySpec, actor: dict, user: User | None, request_id: str
) -> tuple[ApiKey, str]:
    """Validate and create a key; the raw key is returned this once."""
    if not spec.scopes:
        raise value_error("scopes", f"At least one scope is required; valid scopes: {', '.join(SCOPES)}.")
    scopes_check(spec.scopes)
    ip_whitelist_check(list(spec.ip_whitelist))
    connections = pinned_connections_check(tenant=tenant, connections=spec.connections or {})
    if tenant.api_keys.filter(name=spec.name).exists():
        raise _duplicate(spec.name)
    expires_at = timezone.now() + timedelta(days=spec.expires_in_days) if spec.expires_in_days else None
    try:
        return api_key_create(
            tenant=tenant,
            name=spec.name,
            scopes=spec.scopes,
            tool_patterns=list(spec.tool_patterns),
            environment=spec.environment,
            actor=actor,
            created_by=user,
            request_id=request_id,
            description=spec.description,
            protocol=spec.protocol,
            ip_whitelist=list(spec.ip_whitelist),
            expires_at=expires_at,
            connections=connections,
        )
    except IntegrityError:  # a concurrent create with the same name won the race
        raise _duplicate(spec.name) from None


def _duplicate(name: str) -> Conflict:
    return Conflict(f"An API key named {name!r} already exists.", code="API_KEY_NAME_EXISTS")


PinsCheck = Callable[..., dict[str, str]]
_PINS_CHECKS: list[PinsCheck] = []


def pinned_connections_check_register(check: PinsCheck) -> PinsCheck:
    """The tool hub owns connections and registers their check here (ToolhubConfig.ready):
    `check(*, tenant, pins) -> {domain: public connection id}`, raising 422 for a bad pin."""
    if check not in _PINS_CHECKS:
        _PINS_CHECKS.append(check)
    return check


def pinned_connections_check(*, tenant: Tenant, connections: object) -> dict[str, str]:
    """422 naming `connections.<domain>` unless each pinned connection is the tenant's and serves
    that domain (the registered check's answer)."""
    if not _PINS_CHECKS:
        if connections:
            raise value_error("connections", "No connections can be pinned in this deployment.")
        return {}
    return _PINS_CHECKS[0](tenant=tenant, pins=connections)


def api_key_update(
    *, tenant: Tenant, key: ApiKey, connections: object, actor: dict, user: User | None, request_id: str
) -> ApiKey:
    """Replace a key's pinned connections (the only field an update changes)."""
    checked = pinned_connections_check(tenant=tenant, connections=connections)
    with transaction.atomic():
        key = ApiKey.objects.select_for_update().get(id=key.id, tenant=tenant)
        key.connections, key.updated_at, key.updated_by = checked, timezone.now(), user
        key.save(update_fields=["connections", "updated_at", "updated_by"])
        audit_record(
            tenant=tenant,
            action="API_KEY_UPDATED",
            category=CATEGORY,
            actor=actor,
            resource={"type": "api_key", "id": str(key.id), "name": key.name},
            details={"connections": checked},
            request_id=request_id,
        )
    return key


def scopes_check(scopes: list[str]) -> None:
    """422 for a scope this service does not know (API keys and OAuth clients)."""
    unknown = unknown_scopes(scopes)
    if unknown:
        raise value_error(
            "scopes", f"Unknown scope(s): {', '.join(unknown)}; valid scopes: {', '.join(SCOPES)}."
        )


def ip_whitelist_check(entries: list[str]) -> None:
    """422 for an entry that is neither an IP address nor a CIDR range."""
    bad = network_errors(entries)
    if bad:
        raise value_error("ipWhitelist", f"Not an IP address or CIDR range: {', '.join(bad)}.")


@dataclass(frozen=True)
class Rotation:
    key: ApiKey
    raw: str
    previous_prefix: str
    grace_minutes: int


def api_key_rotate(
    *,
    tenant: Tenant,
    key: ApiKey,
    grace_minutes: int,
    expires_in_days: int | None,
    actor: dict,
    user: User | None,
    request_id: str,
) -> Rotation:
    now = timezone.now()
    raw = api_key_generate(key.environment)
    with transaction.atomic():
        key = ApiKey.objects.select_for_update().get(id=key.id, tenant=tenant)
        if not key.usable_at(now):
            raise Conflict(
                f"Only an active key can be rotated; this key is {api_key_state(key, now)}.",
                code="KEY_INACTIVE",
            )
        previous_prefix = key.prefix
        key.previous_key_hash = key.key_hash if grace_minutes else ""
        key.previous_prefix = previous_prefix
        key.previous_valid_until = now + timedelta(minutes=grace_minutes) if grace_minutes else None
        key.key_hash, key.prefix = api_key_hash(raw), api_key_display_prefix(raw)
        key.last_rotated_at, key.rotated_by, key.rotation_count = now, user, key.rotation_count + 1
        key.updated_at, key.updated_by = now, user
        if expires_in_days:
            key.expires_at = now + timedelta(days=expires_in_days)
        key.save()
        audit_record(
            tenant=tenant,
            action="API_KEY_ROTATED",
            category=CATEGORY,
            actor=actor,
            resource={"type": "api_key", "id": str(key.id), "name": key.name},
            details={
                "previousPrefix": previous_prefix,
                "newPrefix": key.prefix,
                "graceMinutes": grace_minutes,
            },
            request_id=request_id,
        )
    return Rotation(key, raw, previous_prefix, grace_minutes)


def api_key_state(key: ApiKey, now=None) -> str:
    """The key's status as callers see it: an active key past its expiry is `expired` at once
    (the expiry job updates the row later)."""
    now = now or timezone.now()
    if key.status == ApiKey.Status.ACTIVE and key.expires_at is not None and key.expires_at <= now:
        return ApiKey.Status.EXPIRED
    return key.status


def api_key_revoke(*, tenant: Tenant, key: ApiKey, permanent: bool, actor: dict, request_id: str) -> dict:
    """Revoke (kept for API_KEY_RETENTION_DAYS, 409 a second time) or, with `permanent`, delete."""
    now = timezone.now()
    with transaction.atomic():
        key = ApiKey.objects.select_for_update().get(id=key.id, tenant=tenant)
        previous = api_key_state(key, now)
        resource = {"type": "api_key", "id": str(key.id), "name": key.name}
        if permanent:
            audit_record(
                tenant=tenant,
                action="API_KEY_DELETED",
                category=CATEGORY,
                actor=actor,
                resource=resource,
                details={"prefix": key.prefix, "previousStatus": previous},
                request_id=request_id,
            )
            key.delete()
            return {
                "previousStatus": previous,
                "revokedAt": key.revoked_at or now,
                "deleted": True,
                "key": key,
            }
        if key.status == ApiKey.Status.REVOKED:
            raise Conflict(
                "This API key was already revoked.",
                code="API_KEY_ALREADY_REVOKED",
                details={"revokedAt": iso_ms(key.revoked_at)},
            )
        key.status, key.revoked_at, key.revoked_by = ApiKey.Status.REVOKED, now, person(actor)
        key.previous_key_hash, key.previous_valid_until = "", None
        key.save()
        audit_record(
            tenant=tenant,
            action="API_KEY_REVOKED",
            category=CATEGORY,
            actor=actor,
            resource=resource,
            details={"prefix": key.prefix, "previousStatus": previous},
            request_id=request_id,
        )
    return {"previousStatus": previous, "revokedAt": now, "deleted": False, "key": key}


def api_keys_expire_and_purge(*, now=None) -> int:
    """The job's half for keys: mark keys past expiry `expired`; remove revoked keys past retention."""
    now = now or timezone.now()
    expired = ApiKey.objects.filter(status=ApiKey.Status.ACTIVE, expires_at__lte=now).update(
        status=ApiKey.Status.EXPIRED
    )
    cutoff = now - timedelta(days=API_KEY_RETENTION_DAYS)
    purged, _ = ApiKey.objects.filter(status=ApiKey.Status.REVOKED, revoked_at__lte=cutoff).delete()
    return expired + purged


@dataclass(frozen=True)
class CheckResult:
    key: ApiKey | None
    reason: str | None  # None: valid
    message: str


def api_key_check(
    *, raw: str, client_ip: str | None, scope: str | None, tenant_id=None, request_id: str = ""
) -> CheckResult:
    """Validate a raw key the way authentication would, and say why not (DESIGN section 13)."""
    if client_ip is not None and not is_ip(client_ip):
        raise value_error("clientIp", "clientIp must be an IPv4 or IPv6 address.")
    key = api_key_find(raw)
    if key is None or (tenant_id is not None and key.tenant_id != tenant_id):
        return CheckResult(None, "INVALID_KEY", "The API key is not recognised.")
    result = CheckResult(key, *_first_problem(key, client_ip, scope, ip_allowed))
    audit_record(
        tenant=key.tenant,
        action="API_KEY_VALIDATED",
        category=CATEGORY,
        actor={"type": "api_key", "id": str(key.id), "name": key.name, "email": "", "ipAddress": client_ip},
        resource={"type": "api_key", "id": str(key.id), "name": key.name},
        details={"valid": result.reason is None, "reason": result.reason},
        status="success" if result.reason is None else "failure",
        request_id=request_id,
    )
    return result


def _first_problem(key: ApiKey, client_ip, scope, ip_allowed) -> tuple[str | None, str]:
    now = timezone.now()
    state = api_key_state(key, now)
    if state == ApiKey.Status.REVOKED:
        return "KEY_REVOKED", "The API key was revoked."
    if state == ApiKey.Status.EXPIRED:
        return "KEY_EXPIRED", "The API key has expired."
    if state != ApiKey.Status.ACTIVE:
        return "KEY_INACTIVE", "The API key is inactive."
    if key.tenant.status != Tenant.Status.ACTIVE:
        return "TENANT_INACTIVE", "The key's tenant is not active."
    if not ip_allowed(client_ip, key.ip_whitelist):
        return "IP_NOT_ALLOWED", "The client address is not in the key's allow-list."
    unknown = unknown_scopes(key.scopes)
    if unknown:
        return "SCOPE_INVALID", f"The key carries scopes this service does not know: {', '.join(unknown)}."
    if scope and not _grants(key, scope):
        return "SCOPE_INVALID", f"The key does not carry the requested scope {scope}."
    if minute_count(key) >= per_minute_limit():
        return "RATE_LIMIT_EXCEEDED", "The key has used its requests for this minute."
    return None, "The API key is valid."


def _grants(key: ApiKey, scope: str) -> bool:
    return Principal.of_api_key(key).has_scope(scope)


def per_minute_limit() -> int:
    """Requests a key may make a minute: the count of the principal rate ("600/m")."""
    return rate_parse(principal_rate())[0]


def minute_count(key: ApiKey) -> int:
    """Requests of this key in the current minute: the rate limiter's own bucket, read, not counted."""
    return rate_limit_peek(Bucket("principal", Principal.of_api_key(key).rate_key, principal_rate()))
