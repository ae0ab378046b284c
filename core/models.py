"""The ground floor's rows: tenants, the audit trail and its chain heads, and the record of every
background job run. Every tenant-owned model of every app filters through `TenantOwnedQuerySet`.

The tables keep the names they were created with when these models lived in one app with the
identity models (`db_table`), so an upgraded database keeps its rows where they are."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from core.gencache import GenerationCache, GenerationQuerySet

# Entries that hold a tenant row (the API-key lookups of identity.authcache, the tool hub's routes)
# depend on this cache's generation: any write to a tenant makes them stale at once.
TENANTS = GenerationCache("tenants")


class TenantOwnedQuerySet(models.QuerySet):
    """Every tenant-owned model's queryset: `for_tenant` is the one way a selector starts."""

    def for_tenant(self, tenant, *conditions, **filters):
        """The tenant's rows, and those of them that match `conditions`/`filters` (in the same filter
        call: every call clones the query, which costs more than the lookup on the hot reads)."""
        return self.filter(*conditions, tenant_id=tenant.pk, **filters)


class TenantQuerySet(GenerationQuerySet):
    generation_caches = (TENANTS,)

    def active(self):
        return self.filter(status=Tenant.Status.ACTIVE)


class Tenant(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        SUSPENDED = "suspended"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=255, unique=True)
    display_name = models.CharField(max_length=255, blank=True)
    domain = models.CharField(max_length=255, blank=True)
    server_url = models.URLField(max_length=500, blank=True)
    realm_name = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    settings = models.JSONField(default=dict, blank=True)
    subscription = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantQuerySet.as_manager()

    class Meta:
        db_table = "adminops_tenant"

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    TENANT_ADMIN = "tenant_admin"
    INTEGRATION_ADMIN = "integration_admin"
    INTEGRATION_VIEWER = "integration_viewer"
    AUDIT_VIEWER = "audit_viewer"
    APPROVER = "approver"


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("Audit entries are append-only.")

    def delete(self):
        raise PermissionError("Audit entries are append-only.")

    def delete_archived(self) -> int:
        """Remove entries that `ops.archive` has written to a checksummed archive file and
        recorded in AuditArchive, in the same transaction as that record: the only deletion."""
        deleted, _ = super().delete()
        return deleted


class AuditEntry(models.Model):
    """Append-only: rows are inserted by `core.audit.audit_record` and never changed."""

    class Status(models.TextChoices):
        SUCCESS = "success"
        FAILURE = "failure"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    chain = models.CharField(max_length=40)  # tenant id, or "platform" for entries without a tenant
    seq = models.BigIntegerField()
    tenant_id = models.UUIDField(null=True, blank=True)  # a plain value: entries outlive their tenant
    action = models.CharField(max_length=64)
    category = models.CharField(max_length=32)
    actor = models.JSONField(default=dict)
    actor_id = models.CharField(max_length=64, blank=True)
    resource = models.JSONField(default=dict)
    resource_type = models.CharField(max_length=64, blank=True)
    details = models.JSONField(default=dict)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.SUCCESS)
    request_id = models.CharField(max_length=128, blank=True)
    timestamp = models.DateTimeField(default=timezone.now)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["chain", "seq"], name="audit_chain_seq_unique")]
        indexes = [
            models.Index(fields=["tenant_id", "-timestamp"], name="audit_tenant_time"),
            models.Index(fields=["action"], name="audit_action"),
        ]
        db_table = "adminops_auditentry"
        verbose_name = "audit entry"
        verbose_name_plural = "audit trail"

    def __str__(self) -> str:
        return f"{self.action} #{self.seq}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionError("Audit entries are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("Audit entries are append-only.")


class AuditChainHead(models.Model):
    """The last link of each chain; its row lock serialises writers of one chain."""

    chain = models.CharField(max_length=40, primary_key=True)
    seq = models.BigIntegerField(default=0)
    last_hash = models.CharField(max_length=64, default="0" * 64)

    class Meta:
        db_table = "adminops_auditchainhead"

    def __str__(self) -> str:
        return f"{self.chain} @ {self.seq}"


class JobRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        STARTED = "started"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    job_name = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    tenant_id = models.UUIDField(null=True, blank=True)
    params = models.JSONField(default=dict, blank=True)  # ids only, never secrets
    triggered_by = models.JSONField(default=dict, blank=True)
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    items = models.IntegerField(default=0)
    outcome = models.TextField(blank=True)
    duration_ms = models.IntegerField(null=True, blank=True)
    attempts = models.IntegerField(default=0)

    class Meta:
        db_table = "adminops_jobrun"
        indexes = [models.Index(fields=["job_name", "-queued_at"], name="jobrun_name_time")]

    def __str__(self) -> str:
        return f"{self.job_name} {self.status}"
