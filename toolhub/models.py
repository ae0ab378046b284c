"""Tool hub data: connections, idempotency records, approvals and their policy, execution records.

Tools themselves are code (`toolhub.registry`), not rows. Correctness lives in constraints here:
one default connection per domain, one idempotency record per (tenant, principal, key), decisions
by compare-and-set on `Approval.status`.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.gencache import GenerationQuerySet
from core.models import Tenant
from toolhub.routing import ROUTES

CONNECTION_PREFIX = "conn_"
APPROVAL_PREFIX = "apr_"
EXECUTION_PREFIX = "exe_"


class RiskLevel(models.TextChoices):
    READ = "read"
    WRITE = "write"
    DESTRUCTIVE = "destructive"
    ADMIN = "admin"


class RoutedQuerySet(GenerationQuerySet):
    """Bulk writes to rows the routing cache holds make its entries stale at once
    (toolhub.routing); `save()` and deletes do it through signals."""

    generation_caches = (ROUTES,)


class Connection(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        INACTIVE = "inactive"

    class Health(models.TextChoices):
        UNKNOWN = "unknown"
        HEALTHY = "healthy"
        UNHEALTHY = "unhealthy"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="tool_connections")
    name = models.CharField(max_length=255)
    domain = models.CharField(max_length=32)
    connector = models.CharField(max_length=32)
    base_url = models.URLField(max_length=500)
    # The tenant's vault integrationId (a string, not a foreign key: the vault owns its rows).
    integration_id = models.CharField(max_length=255)
    is_default = models.BooleanField(default=False)
    settings = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    # The last probe (the connection test, or the `connectionHealth` job): an unhealthy connection
    # is left out of automatic routing (toolhub.selectors.connection_resolve).
    health = models.CharField(max_length=16, choices=Health.choices, default=Health.UNKNOWN)
    health_checked_at = models.DateTimeField(null=True, blank=True)
    health_error = models.CharField(max_length=300, blank=True)  # a short safe message, never a secret
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    created_by = models.JSONField(default=dict, blank=True)

    objects = RoutedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="connection_tenant_name_unique"),
            models.UniqueConstraint(
                fields=["tenant", "domain"], condition=Q(is_default=True), name="connection_one_default"
            ),
        ]
        indexes = [models.Index(fields=["tenant", "domain"], name="connection_tenant_domain")]

    def __str__(self) -> str:
        return f"{self.name} ({self.domain}/{self.connector})"

    @property
    def public_id(self) -> str:
        return f"{CONNECTION_PREFIX}{self.id.hex}"


class ApprovalPolicy(models.Model):
    """Which calls of a tenant need a human decision. No row: the default policy."""

    DEFAULT_GATED = [RiskLevel.DESTRUCTIVE.value, RiskLevel.ADMIN.value]

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="approval_policy")
    gated_risk_levels = models.JSONField(
        default=list, blank=True, help_text='Risk levels that need approval, e.g. ["write", "destructive"].'
    )
    always_gate = models.JSONField(
        default=list, blank=True, help_text='Tool key patterns that always need approval, e.g. ["itsm.*"].'
    )
    never_gate = models.JSONField(
        default=list, blank=True, help_text="Tool key patterns exempt from approval (checked first)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    objects = RoutedQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "approval policies"

    def __str__(self) -> str:
        return f"Approval policy of {self.tenant}"


class Approval(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"
        EXPIRED = "expired"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="tool_approvals")
    tool_key = models.CharField(max_length=128)
    risk_level = models.CharField(max_length=16, choices=RiskLevel.choices)
    connection = models.ForeignKey(Connection, null=True, blank=True, on_delete=models.SET_NULL)
    idempotency_key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    input_redacted = models.JSONField(default=dict, blank=True)
    requester = models.JSONField(default=dict)  # the audit actor of the call
    requester_key = models.CharField(max_length=200)  # Principal.rate_key
    requester_owner_id = models.CharField(max_length=64, blank=True)  # the user who made the API key
    channel = models.CharField(max_length=8, blank=True)  # how the call arrived: "rest" or "mcp"
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    reason = models.TextField(max_length=2000, blank=True)
    decided_by = models.JSONField(default=dict, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    executed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    request_id = models.CharField(max_length=128, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["tenant", "status", "-created_at"], name="approval_tenant_status"),
            models.Index(fields=["status", "expires_at"], name="approval_status_expiry"),
        ]
        verbose_name_plural = "approval queue"

    def __str__(self) -> str:
        return f"{self.tool_key} ({self.status})"

    @property
    def public_id(self) -> str:
        return f"{APPROVAL_PREFIX}{self.id.hex}"

    def is_expired_at(self, moment) -> bool:
        return self.status == self.Status.EXPIRED or (
            self.status == self.Status.PENDING and self.expires_at <= moment
        )


class IdempotencyRecord(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running"
        AWAITING_APPROVAL = "awaiting_approval"
        COMPLETED = "completed"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    principal_key = models.CharField(max_length=200)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    tool_key = models.CharField(max_length=128)
    status = models.CharField(max_length=20, choices=Status.choices)
    approval = models.ForeignKey(Approval, null=True, blank=True, on_delete=models.SET_NULL)
    response_status = models.IntegerField(null=True, blank=True)
    response_body = models.BinaryField(null=True, blank=True)  # the bytes first sent, replayed as sent
    lease_until = models.DateTimeField(null=True, blank=True)  # a running call older than this died
    # Set (compare-and-set) right before the vendor call: a taken-over call knows the vendor got it.
    upstream_started_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "principal_key", "key"], name="idempotency_scope_unique"
            )
        ]
        indexes = [models.Index(fields=["expires_at"], name="idempotency_expiry")]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"


class ExecutionRecord(models.Model):
    """One row per execute call that reached the tool stage: who, what, where, how it ended."""

    class Outcome(models.TextChoices):
        SUCCESS = "success"
        ERROR = "error"
        APPROVAL_REQUIRED = "approval_required"
        DRY_RUN = "dry_run"
        REPLAYED = "replayed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own: `execution_tenant_time` starts with the tenant (one index less to write
    # per tool call).
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="tool_executions", db_index=False
    )
    request_id = models.CharField(max_length=128, blank=True)
    principal = models.JSONField(default=dict)  # the audit actor
    principal_key = models.CharField(max_length=200)
    tool_key = models.CharField(max_length=128)
    connection_ref = models.CharField(max_length=64, blank=True)  # conn_<id>; survives a deletion
    outcome = models.CharField(max_length=20, choices=Outcome.choices)
    error_code = models.CharField(max_length=64, blank=True)
    http_status = models.IntegerField()
    duration_ms = models.IntegerField(default=0)
    upstream_ms = models.IntegerField(null=True, blank=True)
    input_redacted = models.JSONField(default=dict, blank=True)
    idempotency_key = models.CharField(max_length=255, blank=True)
    approval_ref = models.CharField(max_length=64, blank=True)
    # The vault credential the call used at the vendor (none: it did not get that far). The database
    # counts that use on the credential as the record is inserted (toolhub migration 0007), so a
    # call's record and its credential's counted access are one statement.
    credential_used = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["tenant", "-created_at"], name="execution_tenant_time")]

    def __str__(self) -> str:
        return f"{self.tool_key} {self.outcome} ({self.http_status})"

    @property
    def public_id(self) -> str:
        return f"{EXECUTION_PREFIX}{self.id.hex}"
