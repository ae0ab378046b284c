"""Reads of the tool hub. Every read starts from the tenant's rows: another tenant's object is
indistinguishable from one that does not exist."""

from __future__ import annotations

import uuid
from fnmatch import fnmatchcase

from django.db.models import Case, IntegerField, QuerySet, Value, When

from core.api.errors import InvalidParameter, value_error
from core.api.ids import prefixed_uuid
from core.api.timestamps import iso_ms
from core.models import Tenant
from toolhub.errors import ApprovalNotFound, ConnectionNotFound, ToolNotFound
from toolhub.models import APPROVAL_PREFIX, CONNECTION_PREFIX, Approval, ApprovalPolicy, Connection
from toolhub.registry import Tool, tool_lookup
from toolhub.routing import ROUTES


def tool_get(*, key: str) -> Tool:
    tool = tool_lookup(key)
    if tool is None:
        raise ToolNotFound(f"No tool {key!r}.", details={"tool_key": key[:128]})
    return tool


def parse_public_id(raw: str, prefix: str) -> uuid.UUID | None:
    """`conn_<hex>` / `apr_<hex>` as the API shows them, or the bare UUID; None for anything else."""
    return prefixed_uuid(raw, prefix)


def _path_id(raw: str, prefix: str, what: str) -> uuid.UUID:
    parsed = parse_public_id(raw, prefix)
    if parsed is None:
        raise InvalidParameter(
            f"Invalid {what} id.", details={"id": f"Expected {prefix}<32 hex digits> or a UUID."}
        )
    return parsed


def connection_list(*, tenant: Tenant, domain: str | None = None, status: str | None = None) -> QuerySet:
    queryset = Connection.objects.filter(tenant=tenant).order_by("domain", "name")
    if domain:
        queryset = queryset.filter(domain=domain)
    if status:
        queryset = queryset.filter(status=status)
    return queryset


def connection_get(*, tenant: Tenant, connection_id: str) -> Connection:
    pk = _path_id(connection_id, CONNECTION_PREFIX, "connection")
    connection = Connection.objects.filter(tenant=tenant, id=pk).first()
    if connection is None:
        raise ConnectionNotFound("Connection not found.")
    return connection


def connection_resolve(
    *, tenant: Tenant, tool: Tool, connection_id: str | None, pinned: str | None = None
) -> Connection:
    """The connection a call runs on (named-endpoints 8.1): the one named (used even when
    unhealthy: the answer warns), else the connection `pinned` by the caller's API key for the
    tool's domain, else the domain's default; automatic routing skips an unhealthy connection.
    It must be active, of the tool's domain and of a connector that implements the tool. The
    tenant's approval policy is read with it, in the same query (see `policy_gates`), through the
    routing cache."""
    if connection_id is not None:
        pk = parse_public_id(connection_id, CONNECTION_PREFIX)
        connection = _routed(tenant, id=pk) if pk else None
        return _usable(connection, tool, f"Connection {connection_id!r} was not found")
    unhealthy = None
    for connection, missing in _automatic(tenant, tool, pinned):
        try:
            usable = _usable(connection, tool, missing)
        except ConnectionNotFound:
            if missing and unhealthy is None:
                raise  # the default's own error
            continue  # a pinned connection deleted or switched off: the next candidate
        if usable.health != Connection.Health.UNHEALTHY:
            return usable
        unhealthy = unhealthy or usable
    raise ConnectionNotFound(
        f"The connection for the {tool.domain!r} domain is unhealthy: {unhealthy.health_error}",
        details={"domain": tool.domain, "connection_id": unhealthy.public_id, "health": "unhealthy"},
    )


def connections_using(credential) -> int:
    """How many of the tenant's connections use this vault credential (vault.usage asks)."""
    return Connection.objects.filter(
        tenant_id=credential.tenant_id, integration_id=credential.integration_id
    ).count()


def connection_pins_check(*, tenant: Tenant, pins: object) -> dict[str, str]:
    """An API key's pinned connections, `{domain: connection id}`, checked: each a connection of
    `tenant` serving that domain (else 422 naming `connections.<domain>`). Returns them with the
    ids in their public form."""
    if not isinstance(pins, dict):
        raise value_error("connections", 'An object of domain to connection id, e.g. {"itsm": "conn_…"}.')
    checked = {}
    for domain, raw in pins.items():
        pk = parse_public_id(raw, CONNECTION_PREFIX) if isinstance(raw, str) else None
        connection = Connection.objects.filter(tenant=tenant, id=pk).first() if pk else None
        if connection is None:
            raise value_error(("connections", domain), "No connection with this id in this tenant.")
        if connection.domain != domain:
            raise value_error(
                ("connections", domain), f"This connection serves the {connection.domain!r} domain."
            )
        checked[domain] = connection.public_id
    return checked


def connection_warnings(connection: Connection) -> list[dict]:
    """What a successful answer adds about its connection: only a connection named explicitly
    can be unhealthy here (automatic routing skips those)."""
    if connection.health != Connection.Health.UNHEALTHY:
        return []
    return [
        {
            "code": "CONNECTION_UNHEALTHY",
            "message": f"The connection failed its last health check: {connection.health_error}",
            "connection_id": connection.public_id,
            "health_checked_at": iso_ms(connection.health_checked_at),
        }
    ]


def _automatic(tenant: Tenant, tool: Tool, pinned: str | None):
    """The candidates of automatic routing, looked up only as needed: the pinned connection (no
    message: a missing one is skipped), then the domain's default."""
    pin = parse_public_id(pinned, CONNECTION_PREFIX) if pinned else None
    if pin is not None:
        yield _routed(tenant, id=pin), ""
    missing = f"No default connection for the {tool.domain!r} domain"
    yield _routed(tenant, domain=tool.domain, is_default=True), missing


def _usable(connection: Connection | None, tool: Tool, missing: str) -> Connection:
    if connection is None:
        raise ConnectionNotFound(f"{missing}.", details={"domain": tool.domain})
    if connection.status != Connection.Status.ACTIVE:
        raise ConnectionNotFound(
            f"The connection for the {tool.domain!r} domain is inactive.",
            details={"domain": tool.domain, "connection_id": connection.public_id},
        )
    if connection.domain != tool.domain or connection.connector not in tool.implementations:
        raise ConnectionNotFound(
            f"The connection does not serve the {tool.domain!r} domain with a connector for this tool.",
            details={"domain": tool.domain, "connection_id": connection.public_id},
        )
    return connection


def _routed(tenant: Tenant, **match) -> Connection | None:
    """The tenant's connection that `match` names, with the tenant's approval policy."""
    key = f"{tenant.id}:" + ",".join(f"{name}={value}" for name, value in sorted(match.items()))

    def load() -> Connection | None:  # only on a miss: building the query costs as much as a hit
        rows = Connection.objects.filter(tenant=tenant, **match)
        return rows.select_related("tenant__approval_policy").first()

    return ROUTES.lookup(key, load, scope=str(tenant.id))


def policy_gates(*, tenant: Tenant, tool: Tool, connection: Connection | None = None) -> bool:
    """Does this tenant's policy put the tool behind an approval? (DESIGN section 9) With a
    connection from `connection_resolve`, the policy read with it; else one query."""
    if connection is not None:
        policy = getattr(connection.tenant, "approval_policy", None)
    else:
        policy = ApprovalPolicy.objects.filter(tenant=tenant).first()
    if policy is None:
        return tool.risk_level in ApprovalPolicy.DEFAULT_GATED
    if any(fnmatchcase(tool.key, pattern) for pattern in policy.never_gate):
        return False
    if any(fnmatchcase(tool.key, pattern) for pattern in policy.always_gate):
        return True
    return tool.risk_level in policy.gated_risk_levels


def approval_list(*, tenant: Tenant, status: str | None = None, requester_key: str | None = None) -> QuerySet:
    """Pending first (oldest first: the queue), then decided ones, newest first."""
    queryset = Approval.objects.filter(tenant=tenant).select_related("connection")
    if status:
        queryset = queryset.filter(status=status)
    if requester_key is not None:
        queryset = queryset.filter(requester_key=requester_key)
    pending_first = Case(
        When(status=Approval.Status.PENDING, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    return queryset.order_by(pending_first, "-created_at")


def approval_get(*, tenant: Tenant, approval_id: str, requester_key: str | None = None) -> Approval:
    pk = _path_id(approval_id, APPROVAL_PREFIX, "approval")
    queryset = Approval.objects.filter(tenant=tenant, id=pk)
    if requester_key is not None:
        queryset = queryset.filter(requester_key=requester_key)
    approval = queryset.select_related("connection").first()
    if approval is None:
        raise ApprovalNotFound("Approval not found.")
    return approval
