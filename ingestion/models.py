"""The `orm` backend's table. Keyed like the Azure table (tenant, content type, hash of the file id)
so both backends agree on what "the same file" means."""

from __future__ import annotations

from django.db import models

from ingestion.records import CONTENT_TYPES, ERROR_TYPES


class FailedFileRow(models.Model):
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
    failed_at = models.DateTimeField()
    retry_count = models.PositiveIntegerField(default=1)

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
