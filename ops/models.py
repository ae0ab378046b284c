"""What the roof keeps of its own: the audit trail's archive files and the monthly usage reports.

The tables keep the names they were created with (`db_table`), so an upgraded database keeps its
rows where they are."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from core.models import Tenant


class AuditArchive(models.Model):
    """One archive file: a run of consecutive entries of one chain (`first_seq`..`last_seq`), moved
    out of AuditEntry by the auditLogArchive job. Verification reads the file, checks `sha256`, and
    continues the chain from `last_hash` (ops.archive)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    chain = models.CharField(max_length=40)
    tenant_id = models.UUIDField(null=True, blank=True)  # None: the platform chains
    first_seq = models.BigIntegerField()
    last_seq = models.BigIntegerField()
    prev_hash = models.CharField(max_length=64)  # the link the first entry continues
    last_hash = models.CharField(max_length=64)
    entries = models.IntegerField()
    first_timestamp = models.DateTimeField()
    last_timestamp = models.DateTimeField()
    path = models.CharField(max_length=300)  # relative to AUDIT_ARCHIVE_DIR
    sha256 = models.CharField(max_length=64)
    size_bytes = models.BigIntegerField()
    job_run_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chain", "first_seq"], name="audit_archive_chain_start")
        ]
        indexes = [models.Index(fields=["tenant_id", "-created_at"], name="audit_archive_tenant")]
        db_table = "adminops_auditarchive"

    def __str__(self) -> str:
        return f"{self.chain} #{self.first_seq}..#{self.last_seq}"


class UsageReport(models.Model):
    """A tenant's usage in one calendar month (or the month so far), written by reportGeneration:
    counts and names only, never a secret. One per tenant and month; a later run replaces it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="usage_reports")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    complete = models.BooleanField(default=False)  # the whole month, not the month so far
    content = models.JSONField(default=dict)
    generated_at = models.DateTimeField(default=timezone.now)
    job_run_id = models.UUIDField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "period_start"], name="usage_report_tenant_month")
        ]
        db_table = "adminops_usagereport"

    def __str__(self) -> str:
        return f"{self.tenant} {self.period_start:%Y-%m}"
