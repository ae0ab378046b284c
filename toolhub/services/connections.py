"""Connections: a tenant's link to one vendor instance for one domain, authenticated by a vault
credential named by its integrationId. At most one default per domain (a partial unique constraint
backs it; changing the default happens under row locks in one transaction). A connection of the
`knowledge` connector links to the tenant's own knowledge base: no base URL, no credential."""

from __future__ import annotations

import json
import re
import time

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.api.errors import ApiError, Conflict, FieldError, RequestInvalid, value_error
from core.api.timestamps import iso_ms
from core.audit import audit_record
from core.models import Tenant
from core.outbound import guard_field
from toolhub.connectors import CONNECTORS, connection_probe
from toolhub.errors import ConnectionNotFound
from toolhub.models import Connection
from toolhub.registry import DOMAINS
from toolhub.routing import ROUTES
from vault.selectors import credential_get_by_integration

MAX_SETTINGS_BYTES = 16 * 1024
_SECRET_NAME = re.compile(r"pass(word)?|secret|token|api[_-]?key|private|credential", re.I)
UPDATABLE = ("name", "base_url", "integration_id", "is_default", "settings", "status")


def connection_create(
    *,
    tenant: Tenant,
    actor: dict,
    name: str,
    domain: str,
    connector: str,
    base_url: str = "",
    integration_id: str = "",
    is_default: bool | None = None,
    settings: dict | None = None,
    request_id: str = "",
) -> Connection:
    _check_domain(domain, connector)
    _check_target(tenant, connector, {"base_url": base_url, "integration_id": integration_id})
    _check_settings(settings or {})
    connection = Connection(
        tenant=tenant,
        name=name,
        domain=domain,
        connector=connector,
        base_url=base_url,
        integration_id=integration_id,
        settings=settings or {},
        created_by=_person(actor),
    )
    with _unique_name(name), transaction.atomic():
        has_default = Connection.objects.filter(tenant=tenant, domain=domain, is_default=True).exists()
        wants_default = is_default if is_default is not None else not has_default
        if wants_default:
            _clear_default(tenant, domain)
        connection.is_default = wants_default
        connection.save(force_insert=True)
        _audit(
            connection, "CONNECTION_CREATED", actor, request_id, {"domain": domain, "connector": connector}
        )
    return connection


def connection_update(
    *, tenant: Tenant, connection: Connection, actor: dict, changes: dict, request_id: str = ""
) -> Connection:
    if "status" in changes and changes["status"] not in Connection.Status.values:
        raise value_error("status", "Must be one of: active, inactive.", v2_type="value_error.const")
    targets = {k: v for k, v in changes.items() if k in ("base_url", "integration_id")}
    if targets:
        _check_target(tenant, connection.connector, targets)
    if "settings" in changes:
        _check_settings(changes["settings"])
    with _unique_name(changes.get("name", "")), transaction.atomic():
        locked = Connection.objects.select_for_update().get(id=connection.id, tenant=tenant)
        changed = {k: v for k, v in changes.items() if k in UPDATABLE and getattr(locked, k) != v}
        if changed.get("is_default"):
            _clear_default(tenant, locked.domain)
        for name, value in changed.items():
            setattr(locked, name, value)
        locked.save()
        _audit(locked, "CONNECTION_UPDATED", actor, request_id, {"changed": sorted(changed)})
    return locked


def connection_delete(*, tenant: Tenant, connection: Connection, actor: dict, request_id: str = "") -> None:
    with transaction.atomic():
        _audit(connection, "CONNECTION_DELETED", actor, request_id, {"domain": connection.domain})
        Connection.objects.filter(id=connection.id, tenant=tenant).delete()


def connection_test(*, tenant: Tenant, connection: Connection, actor: dict, request_id: str = "") -> dict:
    """A real authenticated read at the vendor (the connector's probe). The answer says how it
    went; the connection keeps it as its health. The `connectionHealth` job runs this too."""
    started = time.perf_counter()
    error: dict | None = None
    problem: str | None = None
    try:
        connection_probe(connection=connection, tenant=tenant, actor=actor, request_id=request_id)
    except ApiError as exc:
        error = {"code": exc.code, "message": exc.message, "details": exc.details}
        problem = health_message(exc)
    if not connection_health_record(connection=connection, error=problem):
        raise ConnectionNotFound("Connection not found.")  # deleted while its probe ran
    return {
        "connection_id": connection.public_id,
        "healthy": error is None,
        "checked_at": iso_ms(connection.health_checked_at),
        "latency_ms": int((time.perf_counter() - started) * 1000),
        "error": error,
    }


def connection_health_record(*, connection: Connection, error: str | None) -> bool:
    """Store a probe's outcome; False when the connection is gone. The routing cache of the
    connection's tenant is invalidated (toolhub.routing), so automatic routing sees the new health
    at once; `updated_at` stays (a check is no edit)."""
    connection.health = Connection.Health.UNHEALTHY if error else Connection.Health.HEALTHY
    connection.health_checked_at = timezone.now()
    connection.health_error = (error or "")[:300]
    fields = {name: getattr(connection, name) for name in ("health", "health_checked_at", "health_error")}
    recorded = Connection.objects.filter(pk=connection.pk).update(**fields) == 1
    ROUTES.invalidate(str(connection.tenant_id))
    return recorded


def health_message(exc: ApiError) -> str:
    """A short message for `health_error`, made of codes and statuses only: a vendor's own text
    may echo what it was sent, so it is not kept."""
    details = exc.details if isinstance(exc.details, dict) else {}
    if exc.code == "RATE_LIMITED":
        return "The vendor is rate limiting this service (429)."
    if exc.code == "UPSTREAM_ERROR" and details.get("status"):
        return f"The vendor answered HTTP {details['status']}."
    if exc.code == "UPSTREAM_ERROR":
        return "The vendor did not answer in time." if exc.status_code == 504 else "The vendor call failed."
    if exc.code == "CONNECTION_NOT_FOUND":
        return f"The connection's credential cannot be used ({details.get('reason') or 'unknown reason'})."
    return f"The check failed ({exc.code})."


def _clear_default(tenant: Tenant, domain: str) -> None:
    current = Connection.objects.select_for_update().filter(tenant=tenant, domain=domain, is_default=True)
    for row in current:  # lock, then clear: two concurrent default changes queue here
        Connection.objects.filter(id=row.id).update(is_default=False)


class _unique_name:
    """A duplicate name (the unique constraint) is a 409 naming the field; the default constraint
    cannot fire because the old default is cleared under lock first."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if isinstance(exc, IntegrityError):
            raise Conflict(
                f"A connection named {self.name!r} already exists.",
                code="CONNECTION_ALREADY_EXISTS",
                details={"name": self.name},
            ) from None
        return False


def _check_domain(domain: str, connector: str) -> None:
    if domain not in DOMAINS:
        raise value_error("domain", f"Unknown domain; allowed: {', '.join(sorted(DOMAINS))}.")
    if connector not in DOMAINS[domain]:
        raise value_error("connector", f"The {domain} domain is served by: {', '.join(DOMAINS[domain])}.")


_FIELD_NAMES = {"base_url": "base_url", "integration_id": "integrationId"}


def _check_target(tenant: Tenant, connector: str, values: dict) -> None:
    """A vendor's connection needs its base URL (one the guard would call) and a live credential of
    the tenant; the knowledge connector's takes neither. `values` holds the fields being set."""
    if not CONNECTORS[connector].vendor:
        given = [_FIELD_NAMES[name] for name, value in values.items() if value]
        if given:
            raise value_error(given[0], f"The {connector} connector takes no {given[0]}: leave it out.")
        return
    missing = [_FIELD_NAMES[name] for name, value in values.items() if not value]
    if missing:
        raise RequestInvalid(
            [
                FieldError((f,), "This field is required.", "value_error.missing", "field required", True)
                for f in missing
            ]
        )
    if "base_url" in values:
        guard_field("base_url", values["base_url"])
    if "integration_id" in values:
        _check_credential(tenant, values["integration_id"])


def _check_settings(settings: dict) -> None:
    if len(json.dumps(settings)) > MAX_SETTINGS_BYTES:
        raise value_error("settings", "Settings may hold at most 16 KiB of JSON.")
    secretish = sorted(k for k in settings if _SECRET_NAME.search(str(k)))
    if secretish:
        raise value_error(
            "settings", f"Secrets belong in the vault credential, not in settings ({', '.join(secretish)})."
        )
    for name in ("connect_timeout", "read_timeout"):
        value = settings.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 120
        ):
            raise value_error(("settings", name), "Seconds, a number above 0 and at most 120.")
    if "login_url" in settings:
        if not isinstance(settings["login_url"], str):
            raise value_error(("settings", "login_url"), "Must be a URL string.")
        guard_field("settings.login_url", settings["login_url"])


def _check_credential(tenant: Tenant, integration_id: str) -> None:
    try:
        credential_get_by_integration(tenant=tenant, integration_id=integration_id)
    except ApiError:
        raise value_error("integrationId", "No credential with this integrationId in this tenant.") from None


def _person(actor: dict) -> dict:
    return {"type": actor.get("type"), "id": actor.get("id"), "name": actor.get("name")}


def _audit(connection: Connection, action: str, actor: dict, request_id: str, details: dict) -> None:
    audit_record(
        tenant=connection.tenant,
        action=action,
        category="tools",
        actor=actor,
        resource={"type": "connection", "id": connection.public_id, "name": connection.name},
        details=details,
        request_id=request_id,
    )
