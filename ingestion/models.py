"""The failed-file store's `orm` table, and the sync configurations and runs of ingestion (DESIGN
section 15)."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from core.models import TenantOwnedQuerySet
from ingestion.records import CONTENT_TYPES, ERROR_TYPES


class FailedFileRow(models.Model):
    """The `orm` backend's table. Keyed like the Azure table (tenant, content type, hash of the file
    id) so both backends agree on what "the same file" means."""

    # A string, not a foreign key: the store's interface is the same for both backends, and the
    # Azure table cannot cascade either. A deleted tenant's rows go through the store's
    # forget_tenant once the deletion commits (ingestion.services.on_tenant_deleted, a post_delete
    # receiver), in both backends alike.
    tenant_id = models.CharField(max_length=64)
    content_type = models.CharField(max_length=32, choices=[(c, c) for c in CONTENT_TYPES])
    file_key = models.CharField(max_length=64, help_text="SHA-256 of the file id.")
    file_id = models.TextField()
    platform_domain = models.CharField(max_length=255, blank=True)
    file_name = models.TextField(blank=True)
    source_url = models.TextField(blank=True)
    error_type = models.CharField(max_length=32, choices=[(e, e) for e in ERROR_TYPES])
    error_message = models.TextField(blank=True)
    failed_at = models.DateTimeField("last failed at")
    retry_count = models.PositiveIntegerField("times failed", default=1)

    class Meta:
        verbose_name = "failed file"
        constraints = [
            models.UniqueConstraint(
                fields=["tenant_id", "content_type", "file_key"], name="failed_file_unique_file"
            )
        ]
        indexes = [
            models.Index(fields=["tenant_id", "content_type", "-failed_at"], name="failed_file_listing"),
            models.Index(fields=["failed_at"], name="failed_file_retention"),
        ]

    def __str__(self) -> str:
        return f"{self.file_name or self.file_id} ({self.error_type})"


SYNC_CONFIGURATION_PREFIX = "scfg-"
SYNC_RUN_PREFIX = "run-"


class Platform(models.TextChoices):
    SITELIB = "sitelib"
    WIKISPACE = "wikispace"
    ITSMPLATFORM = "itsmplatform"


class SyncConfiguration(models.Model):
    """What to ingest from one platform into a tenant's knowledge base, and with which vault
    credential (DESIGN section 15). Never a secret here: the credential stays in the vault."""

    class ProcessorMode(models.TextChoices):
        AUTO = "auto"
        MANUAL = "manual"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey("core.Tenant", on_delete=models.CASCADE, related_name="sync_configurations")
    platform = models.CharField(max_length=16, choices=Platform.choices)
    name = models.CharField(max_length=255)
    integration_id = models.CharField(
        "vault credential", max_length=255, help_text="The integration id of the credential the runs use."
    )
    platform_domain = models.CharField(max_length=255, help_text="vectordb_config.platform_domain")
    scope = models.JSONField(
        default=dict,
        blank=True,
        help_text="sitelib: site_urls, sub_sites, drives, folders, pages; wikispace: space; "
        "itsmplatform: knowledge_bases, article_query_names.",
    )
    content_restriction = models.JSONField(
        default=dict, blank=True, help_text="audience, blacklisted, source_restriction."
    )
    use_ocr = models.BooleanField("read text in images (OCR)", default=False)
    processor_mode = models.CharField(
        "processing",
        max_length=8,
        choices=ProcessorMode.choices,
        default=ProcessorMode.AUTO,
        help_text="auto: scheduled runs happen; manual: only Sync now and uploads run it.",
    )
    interval_minutes = models.PositiveIntegerField(
        "run every (minutes)",
        null=True,
        blank=True,
        help_text="Run every this many minutes (the dataSync job); empty: on request only.",
    )
    enabled = models.BooleanField(
        "scheduled runs on", default=True, help_text="Off: scheduled runs stop; ingested content stays."
    )
    last_sync = models.DateTimeField(
        "synced up to",
        null=True,
        blank=True,
        help_text="End of the window of the last run that finished (success or partial).",
    )
    delta_tokens = models.JSONField(
        default=dict,
        blank=True,
        help_text="Per drive id: the platform's delta link of the last finished run.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantOwnedQuerySet.as_manager()

    class Meta:
        verbose_name = "sync configuration"
        indexes = [models.Index(fields=["tenant", "platform", "-created_at"], name="sync_config_tenant")]

    def __str__(self) -> str:
        return self.name

    @property
    def public_id(self) -> str:
        return f"{SYNC_CONFIGURATION_PREFIX}{self.id}"


class SyncRun(models.Model):
    """One run of a configuration: its state, its window and what it did to each kind of item."""

    class Kind(models.TextChoices):
        UPLOAD = "upload"
        INGEST = "ingest"
        SCHEDULED = "scheduled"
        RETRY = "retry"
        # Reads the readers of indexed items again; downloads and embeds nothing (DESIGN section 19).
        PERMISSIONS = "permissions"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCESS = "success"
        PARTIAL = "partial"
        FAILED = "failed"
        STOPPED = "stopped"

    ACTIVE = (Status.QUEUED, Status.RUNNING)
    ENDED_WELL = (Status.SUCCESS, Status.PARTIAL)  # runs that move last_sync on

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    configuration = models.ForeignKey(SyncConfiguration, on_delete=models.CASCADE, related_name="runs")
    tenant = models.ForeignKey("core.Tenant", on_delete=models.CASCADE, related_name="sync_runs")
    job_id = models.CharField(max_length=255)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    incremental = models.BooleanField(default=False)
    window_start = models.DateTimeField(null=True, blank=True)
    window_end = models.DateTimeField(null=True, blank=True)
    discovered = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    succeeded = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    chunks_written = models.PositiveIntegerField(default=0)
    vectors_removed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, help_text="Why the run as a whole failed or stopped.")
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who holds the run (one attempt of its task) and until when: renewed at every document, taken
    # over by another attempt once it has expired (a worker that died).
    attempts = models.PositiveIntegerField(default=0)
    lease_holder = models.CharField(max_length=64, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    stop_requested = models.BooleanField(default=False)
    retry_items = models.JSONField(
        default=dict, blank=True, help_text="A retry run's items: item key -> content type."
    )
    triggered_by = models.JSONField("started by", default=dict, blank=True)

    objects = TenantOwnedQuerySet.as_manager()

    class Meta:
        verbose_name = "sync run"
        constraints = [
            # One run per configuration at a time (DESIGN section 15): the database refuses a second.
            models.UniqueConstraint(
                fields=["configuration"],
                condition=models.Q(status__in=["queued", "running"]),
                name="sync_run_one_active_per_configuration",
            )
        ]
        indexes = [
            models.Index(fields=["tenant", "-queued_at"], name="sync_run_tenant_time"),
            models.Index(fields=["configuration", "-queued_at"], name="sync_run_config_time"),
            models.Index(fields=["tenant", "job_id"], name="sync_run_job"),
            models.Index(fields=["status", "lease_expires_at"], name="sync_run_lease"),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} {self.status}"

    @property
    def public_id(self) -> str:
        return f"{SYNC_RUN_PREFIX}{self.id}"


class SyncRunItem(models.Model):
    """What a run did with one source item, written in the same transaction as the item's effect
    (its document, its failure record, the run's counters): an attempt that resumes the run passes
    over the items already here, so nothing is done or counted twice."""

    class Outcome(models.TextChoices):
        SUCCEEDED = "succeeded"
        SKIPPED = "skipped"
        FAILED = "failed"
        REMOVED = "removed"

    run = models.ForeignKey(SyncRun, on_delete=models.CASCADE, related_name="items")
    item_key = models.CharField(max_length=512, help_text="The platform's id of the item.")
    content_type = models.CharField(max_length=32, blank=True, help_text="<platform>_article or _attachment.")
    name = models.TextField(blank=True)
    source_url = models.TextField(blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    error_type = models.CharField(max_length=32, blank=True)
    error_message = models.TextField(blank=True)
    chunks_written = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "sync run item"
        constraints = [
            models.UniqueConstraint(fields=["run", "item_key"], name="sync_run_item_once"),
        ]

    def __str__(self) -> str:
        return f"{self.name or self.item_key} ({self.outcome})"
