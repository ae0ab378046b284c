from django.contrib import admin

from ingestion.models import FailedFileRow


@admin.register(FailedFileRow)
class FailedFileAdmin(admin.ModelAdmin):
    """Records of the `orm` backend (with `azure_tables` they live in the Azure table instead)."""

    list_display = ("failed_at", "file_name", "error_type", "content_type", "retry_count", "tenant_id")
    list_filter = ("error_type", "content_type")
    search_fields = ("file_name", "file_id", "tenant_id", "source_url")
    ordering = ("-failed_at",)
    readonly_fields = ("file_key",)
