"""Failed files in the console (records of the `orm` store; with `azure_tables` they live in the
Azure table and GET /v2/cloudstore/failed-files lists them). "Retry" queues the selected files in
a retry run of the configuration that recorded them, through the service of POST
/v2/cloudstore/retry-failed."""

from __future__ import annotations

import uuid

from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.utils.html import format_html

from core.api.errors import ApiError
from core.console import TENANT_ADMIN, TenantScopedAdmin, console_actor
from core.models import Tenant
from ingestion.models import FailedFileRow
from ingestion.services.retry import failed_files_retry

SKIPPED_WHY = "no configuration of the tenant recorded them, or a run of theirs is active"


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def platform_of(content_type: str) -> str:
    return content_type.rsplit("_", 1)[0]  # sitelib_attachment -> sitelib


class _WithTenantNames(ChangeList):
    """The page's rows carry their tenant's name (the store keeps the tenant id as text): one query."""

    def get_results(self, request):
        super().get_results(request)
        ids = {_uuid(row.tenant_id) for row in self.result_list} - {None}
        names = {str(pk): name for pk, name in Tenant.objects.filter(id__in=ids).values_list("id", "name")}
        for row in self.result_list:
            row.tenant_name = names.get(row.tenant_id, row.tenant_id)


@admin.register(FailedFileRow)
class FailedFileAdmin(TenantScopedAdmin, admin.ModelAdmin):
    list_display = ("file", "error_type", "error_message", "platform", "tenant", "retry_count", "failed_at")
    list_filter = ("error_type", "content_type")
    search_fields = ("file_name", "file_id", "source_url")
    ordering = ("-failed_at",)
    view_roles = TENANT_ADMIN
    actions = ["retry_files"]
    fields = (
        "file_name", "source", "file_id", "tenant", "platform_domain", "content_type", "error_type",
        "error_message", "failed_at", "retry_count",
    )  # fmt: skip
    readonly_fields = fields

    def get_changelist(self, request, **kwargs):
        return _WithTenantNames

    def has_view_permission(self, request, obj=None):
        if obj is None or request.user.is_superuser:
            return super().has_view_permission(request, obj)
        return _uuid(obj.tenant_id) in self.scoped_tenant_ids(request)

    def has_add_permission(self, request):
        return False  # ingestion records failures

    def has_change_permission(self, request, obj=None):
        return False

    def has_retry_permission(self, request) -> bool:
        return self.allows(request, TENANT_ADMIN)

    @admin.display(description="file", ordering="file_name")
    def file(self, row: FailedFileRow) -> str:
        return row.file_name or row.file_id

    @admin.display(description="platform", ordering="content_type")
    def platform(self, row: FailedFileRow) -> str:
        return row.get_content_type_display().replace("_", " ")

    @admin.display(description="tenant")
    def tenant(self, row: FailedFileRow) -> str:
        name = getattr(row, "tenant_name", None)
        if name is None:  # the detail page: one row
            name = Tenant.objects.filter(id=_uuid(row.tenant_id)).values_list("name", flat=True).first()
        return name or row.tenant_id

    @admin.display(description="source")
    def source(self, row: FailedFileRow):
        if row.source_url.startswith(("https://", "http://")):
            return format_html(
                '<a href="{}" rel="noreferrer noopener" target="_blank">{}</a>',
                row.source_url,
                row.source_url,
            )
        return row.source_url or "—"

    @admin.action(
        description="Retry the selected files (a retry run of their configuration)", permissions=["retry"]
    )
    def retry_files(self, request, queryset):
        groups: dict[tuple[str, str], list[str]] = {}
        for row in queryset.only("tenant_id", "content_type", "file_id"):
            groups.setdefault((row.tenant_id, platform_of(row.content_type)), []).append(row.file_id)
        tenants = {str(t.id): t for t in Tenant.objects.filter(id__in={_uuid(t) for t, _ in groups} - {None})}
        for (tenant_id, platform), file_ids in groups.items():
            if tenant_id not in tenants:
                self.message_user(
                    request, f"{len(file_ids)} files of a deleted tenant: nothing to retry.", messages.WARNING
                )
                continue
            self._retry(request, tenants[tenant_id], platform, file_ids)

    def _retry(self, request, tenant: Tenant, platform: str, file_ids: list[str]) -> None:
        try:
            result = failed_files_retry(
                tenant=tenant,
                platform=platform,
                file_ids=file_ids,
                actor=console_actor(request),
                request_id=getattr(request, "request_id", None),
            )
        except ApiError as exc:
            self.message_user(request, f"{tenant} ({platform}): {exc.message}", messages.ERROR)
            return
        runs = ", ".join(run.public_id for run in result.runs) or "no run"
        note = f"{tenant} ({platform}): {result.queued} queued for another attempt in {runs}"
        if result.skipped:
            note += f"; {result.skipped} skipped ({SKIPPED_WHY})"
        self.message_user(request, note + ".", messages.SUCCESS if result.queued else messages.WARNING)
