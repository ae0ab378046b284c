"""The operators' pages of ingestion: failed files, sync configurations ("Sync now"), and runs with
their counters and failed items (read-only; "Stop run"). Tenant admins see their tenants' rows."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.html import format_html_join

from adminops.audit import client_ip
from adminops.console import TENANT_ADMIN, ReadOnlyAdmin, TenantScopedAdmin
from adminops.principals import Principal
from config.api.errors import ApiError
from ingestion.models import FailedFileRow, SyncConfiguration, SyncRun, SyncRunItem
from ingestion.services.configurations import sync_configuration_delete, sync_configuration_stop
from ingestion.services.runs import sync_run_queue, sync_run_stop

FAILURES_SHOWN = 50


@admin.register(FailedFileRow)
class FailedFileAdmin(admin.ModelAdmin):
    """Records of the `orm` backend (with `azure_tables` they live in the Azure table instead)."""

    list_display = ("failed_at", "file_name", "error_type", "content_type", "retry_count", "tenant_id")
    list_filter = ("error_type", "content_type")
    search_fields = ("file_name", "file_id", "tenant_id", "source_url")
    ordering = ("-failed_at",)
    readonly_fields = ("file_key",)


def _actor(request) -> dict:
    return Principal.of_user(request.user).as_actor(client_ip(request))


@admin.register(SyncConfiguration)
class SyncConfigurationAdmin(TenantScopedAdmin, admin.ModelAdmin):
    """Configurations come from uploads; here operators rename them, schedule them (`interval
    minutes`), start a run now, Stop Sync (no more scheduled runs, the active one stopped, what was
    ingested kept), and delete them with everything they ingested."""

    list_display = (
        "name",
        "tenant",
        "platform",
        "integration_id",
        "enabled",
        "interval_minutes",
        "last_sync",
    )
    list_filter = ("platform", "enabled", ("tenant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("name", "integration_id", "platform_domain", "tenant__name")
    change_roles = TENANT_ADMIN
    actions = ["sync_now", "stop_sync", "delete_with_knowledge"]
    readonly_fields = (
        "id",
        "tenant",
        "platform",
        "integration_id",
        "platform_domain",
        "scope",
        "content_restriction",
        "last_sync",
        "delta_tokens",
        "created_at",
        "updated_at",
    )
    fields = ("name", "enabled", "interval_minutes", "processor_mode", "use_ocr", *readonly_fields)

    def has_add_permission(self, request):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # a bare row delete would leave the credential behind
        return actions

    def delete_model(self, request, obj):
        sync_configuration_delete(configuration=obj, actor=_actor(request))

    @admin.action(description="Stop Sync (no more scheduled runs; the knowledge stays)")
    def stop_sync(self, request, queryset):
        for configuration in queryset.select_related("tenant"):
            sync_configuration_stop(configuration=configuration, actor=_actor(request))
            self.message_user(request, f"{configuration}: stopped.", messages.SUCCESS)

    @admin.action(description="Delete with everything it ingested (documents, failures, credential)")
    def delete_with_knowledge(self, request, queryset):
        if not self.has_delete_permission(request):
            self.message_user(request, "Not allowed.", messages.ERROR)
            return
        for configuration in queryset.select_related("tenant"):
            removed = sync_configuration_delete(configuration=configuration, actor=_actor(request))
            self.message_user(
                request,
                f"{configuration}: deleted with {removed['documents_deleted']} documents.",
                messages.SUCCESS,
            )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("tenant")

    @admin.action(description="Sync now (an incremental run)")
    def sync_now(self, request, queryset):
        for configuration in queryset.select_related("tenant"):
            try:
                run = sync_run_queue(
                    configuration=configuration,
                    kind=SyncRun.Kind.INGEST,
                    incremental=True,
                    actor=_actor(request),
                )
            except ApiError as exc:
                self.message_user(request, f"{configuration}: {exc.message}", messages.ERROR)
                continue
            self.message_user(request, f"{configuration}: {run.public_id} queued.", messages.SUCCESS)


@admin.register(SyncRun)
class SyncRunAdmin(ReadOnlyAdmin, TenantScopedAdmin, admin.ModelAdmin):
    list_display = (
        "public_id",
        "configuration",
        "tenant",
        "kind",
        "status",
        "discovered",
        "processed",
        "succeeded",
        "skipped",
        "failed",
        "chunks_written",
        "vectors_removed",
        "queued_at",
        "finished_at",
    )
    list_filter = ("status", "kind", ("tenant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("id", "job_id", "configuration__name")
    ordering = ("-queued_at",)
    view_roles = TENANT_ADMIN
    actions = ["stop_runs"]
    readonly_fields = [*(f.name for f in SyncRun._meta.fields), "failures"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("configuration", "tenant")

    @admin.display(description="failed items")
    def failures(self, run: SyncRun):
        rows = run.items.filter(outcome=SyncRunItem.Outcome.FAILED).order_by("finished_at")
        return format_html_join(
            "\n",
            "<div><b>{}</b> {}: {}</div>",
            (
                (item.error_type, item.name or item.item_key, item.error_message)
                for item in rows[:FAILURES_SHOWN]
            ),
        )

    @admin.action(description="Stop run (at its next document)")
    def stop_runs(self, request, queryset):
        for run in queryset.select_related("configuration__tenant"):
            if not self._may_stop(request, run):
                self.message_user(request, f"{run.public_id}: not one of your tenants' runs.", messages.ERROR)
                continue
            stopped = sync_run_stop(run=run, actor=_actor(request))
            if stopped.status == SyncRun.Status.STOPPED:
                note = "stopped."
            elif stopped.stop_requested and stopped.status == SyncRun.Status.RUNNING:
                note = "stops at its next document."
            else:
                note = f"already {stopped.status}."
            self.message_user(request, f"{run.public_id} {note}", messages.SUCCESS)

    def _may_stop(self, request, run: SyncRun) -> bool:
        return request.user.is_superuser or run.tenant_id in self.scoped_tenant_ids(request, TENANT_ADMIN)
