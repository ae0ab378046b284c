"""Reads of the tool hub. Every read starts from the tenant's rows: another tenant's object is
indistinguishable from one that does not exist."""

from __future__ import annotations

import uuid
from fnmatch import fnmatchcase
from functools import cache

from django.db import connection
from django.db.models import Case, IntegerField, QuerySet, Value, When

from adminops.audit import audit_head_peek, audit_in_one_statement
from adminops.models import Tenant
from config.api.errors import InvalidParameter
from config.api.ids import prefixed_uuid
from config.db import concrete_names, fetch_parts, instance_from
from toolhub.errors import ApprovalNotFound, ConnectionNotFound, ToolNotFound
from toolhub.models import APPROVAL_PREFIX, CONNECTION_PREFIX, Approval, ApprovalPolicy, Connection
from toolhub.registry import Tool, tool_lookup
from vault.models import Credential


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


def connection_resolve(*, tenant: Tenant, tool: Tool, connection_id: str | None) -> Connection:
    """The connection a call runs on: the one named, else the domain's default. It must be active,
    of the tool's domain and of a connector that implements the tool. The tenant's approval policy
    comes with it (see `policy_gates`)."""
    if connection_id is not None:
        pk = parse_public_id(connection_id, CONNECTION_PREFIX)
        connection = _with_policy(tenant, pk=pk) if pk else None
        where = f"Connection {connection_id!r} was not found"
    else:
        connection = _with_policy(tenant, domain=tool.domain)
        where = f"No default connection for the {tool.domain!r} domain"
    if connection is None:
        raise ConnectionNotFound(f"{where}.", details={"domain": tool.domain})
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


_POLICY_COLUMNS = ("id", "gated_risk_levels", "always_gate", "never_gate")
_UNREAD = object()


def _with_policy(tenant: Tenant, *, pk: uuid.UUID | None = None, domain: str = "") -> Connection | None:
    """The tenant's connection by id (else its default for `domain`), read in one prepared statement
    with what a call on it needs next: the tenant's approval policy (`connection.tenant_policy`,
    None when it has none), the live credential of the connection's integration
    (`connection.live_credential`, None when there is none) and, where entries are written in one
    statement, the head of one of the tenant's audit chains (`connection.audit_head`)."""
    head = audit_head_peek(tenant) if audit_in_one_statement() else None
    more, more_params = head.columns() if head is not None else ("", [])
    tenant_id = Connection._meta.get_field("tenant").get_db_prep_value(tenant.id, connection)
    if pk is not None:
        match = [tenant_id, Connection._meta.pk.get_db_prep_value(pk, connection)]
    else:
        match = [tenant_id, domain, True]
    lead = 2 if head is not None else 0
    sql = _with_policy_sql(by_id=pk is not None, more_columns=more)
    rows = fetch_parts(sql, [*more_params, Credential.Status.DELETED.value, *match], _parts(lead))
    if not rows:
        return None
    values = rows[0]
    row = instance_from(Connection, values, lead)
    row.tenant = tenant
    policy_at, credential_at = _offsets(lead)
    row.tenant_policy = _policy_of(values[policy_at:credential_at], tenant)
    credential = (
        instance_from(Credential, values, credential_at) if values[credential_at] is not None else None
    )
    if credential is not None:
        credential.tenant = tenant
    row.live_credential = credential
    # The head of one of the tenant's audit chains, read in the same statement, for the call's entry
    # (`audit_record_with`); None where entries are written in a transaction.
    row.audit_head = head.read(*values[:2]) if head is not None else None
    return row


def _offsets(lead: int) -> tuple[int, int]:
    """Where the policy's columns and the credential's start, after `lead` columns and the connection's."""
    policy_at = lead + len(concrete_names(Connection))
    return policy_at, policy_at + len(_POLICY_COLUMNS)


@cache
def _parts(lead: int) -> list:
    policy_at, credential_at = _offsets(lead)
    return [
        (lead, Connection, concrete_names(Connection)),
        (policy_at, ApprovalPolicy, _POLICY_COLUMNS),
        (credential_at, Credential, concrete_names(Credential)),
    ]


@cache
def _with_policy_sql(*, by_id: bool, more_columns: str = "") -> str:
    """Written once: the ORM compiled this join on every call for more than the database took to
    run it. At most one row: by primary key, or the one default per (tenant, domain) that a
    constraint guarantees, and the one live credential per (tenant, integration) that another does.
    `more_columns`: an audit head's (seq, last hash), their placeholders first."""
    quote = connection.ops.quote_name
    columns = ", ".join(
        f"{alias}.{quote(model._meta.get_field(name).column)}"
        for alias, model, names in (
            ("c", Connection, concrete_names(Connection)),
            ("p", ApprovalPolicy, _POLICY_COLUMNS),
            ("v", Credential, concrete_names(Credential)),
        )
        for name in names
    )
    if more_columns:
        columns = f"{more_columns}, {columns}"
    match = f"c.{quote('id')} = %s" if by_id else f"c.{quote('domain')} = %s AND c.{quote('is_default')} = %s"
    tenant = quote("tenant_id")
    credential = Credential._meta
    return (
        f"SELECT {columns} FROM {quote(Connection._meta.db_table)} c "  # noqa: S608  # nosec B608: quoted names and placeholders only
        f"LEFT JOIN {quote(ApprovalPolicy._meta.db_table)} p ON p.{tenant} = c.{tenant} "
        f"LEFT JOIN {quote(credential.db_table)} v ON v.{tenant} = c.{tenant} "
        f"AND v.{quote(credential.get_field('integration_id').column)} = c.{quote('integration_id')} "
        f"AND v.{quote(credential.get_field('status').column)} <> %s "
        f"WHERE c.{tenant} = %s AND {match}"
    )


def _policy_of(values: list, tenant: Tenant) -> ApprovalPolicy | None:
    policy_id, *lists = values
    if policy_id is None:
        return None
    return ApprovalPolicy(id=policy_id, tenant=tenant, **dict(zip(_POLICY_COLUMNS[1:], lists, strict=True)))


def policy_gates(*, tenant: Tenant, tool: Tool, connection: Connection | None = None) -> bool:
    """Does this tenant's policy put the tool behind an approval? (DESIGN section 9) With a
    connection from `connection_resolve`, the policy read with it; else one query."""
    policy = getattr(connection, "tenant_policy", _UNREAD)
    if policy is _UNREAD:
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
