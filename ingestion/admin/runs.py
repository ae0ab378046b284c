"""Sync runs in the console, read-only: status, counters, the failed items with their errors, who
started the run; "Stop run" ends a queued run at once and a running one at its next document."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.html import format_html_join

from core.console import TENANT_ADMIN, ReadOnlyAdmin, TenantScopedAdmin, console_actor
from ingestion.admin.display import actor_text, run_status
from ingestion.models import SyncRun, SyncRunItem
from ingestion.services.runs import sync_run_stop

FAILURES_SHOWN = 50


@admin.register(SyncRun)
class SyncRunAdmin(ReadOnlyAdmin, TenantScopedAdmin, admin.ModelAdmin):
    # What fits a 1280-pixel window; a run's page shows every counter.
    list_display = (
        "queued_at", "configuration", "tenant", "kind", "state", "succeeded", "skipped", "failed", "duration",
    )  # fmt: skip
    list_display_links = ("queued_at",)
    list_filter = ("status", "kind", ("tenant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("id", "job_id", "configuration__name")
    ordering = ("-queued_at",)
    view_roles = TENANT_ADMIN
    actions = ["stop_runs"]
    fieldsets = (
        (None, {"fields": ("run_id", "configuration", "tenant", "kind", "state", "incremental",
                           "started_by")}),
        ("When", {"fields": ("queued_at", "started_at", "finished_at", "duration", "window_start",
                             "window_end")}),
        ("Counters", {"fields": ("discovered", "processed", "succeeded", "skipped", "failed",
                                 "chunks_written", "vectors_removed")}),
        ("Errors", {"fields": ("error", "failures", "retried_files")}),
        ("Worker", {"fields": ("job_id", "attempts", "lease_holder", "lease_expires_at", "stop_requested"),
                    "classes": ("collapse",)}),
    )  # fmt: skip

    def get_readonly_fields(self, request, obj=None):
        return [name for _, options in self.fieldsets for name in options["fields"]]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("configuration", "tenant")

    @admin.display(description="run id")
    def run_id(self, run: SyncRun) -> str:
        return run.public_id

    @admin.display(description="status", ordering="status")
    def state(self, run: SyncRun):
        return run_status(run.status)

    @admin.display(description="started by")
    def started_by(self, run: SyncRun) -> str:
        return actor_text(run.triggered_by) or "—"

    @admin.display(description="took")
    def duration(self, run: SyncRun) -> str:
        if not (run.started_at and run.finished_at):
            return "—"
        seconds = int((run.finished_at - run.started_at).total_seconds())
        return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"

    @admin.display(description="failed items")
    def failures(self, run: SyncRun):
        rows = run.items.filter(outcome=SyncRunItem.Outcome.FAILED).order_by("finished_at")
        shown = [
            (item.error_type, item.name or item.item_key, item.error_message)
            for item in rows[:FAILURES_SHOWN]
        ]
        return format_html_join("\n", "<div><b>{}</b> {}: {}</div>", shown) or "None"

    @admin.display(description="files retried")
    def retried_files(self, run: SyncRun) -> str:
        count = len(run.retry_items or {})
        return f"{count} file{'' if count == 1 else 's'}" if count else "—"

    @admin.action(description="Stop run (a queued run at once, a running one at its next document)")
    def stop_runs(self, request, queryset):
        for run in queryset.select_related("configuration__tenant"):
            if not self.allows(request, TENANT_ADMIN, run):
                self.message_user(request, f"{run.public_id}: not one of your tenants' runs.", messages.ERROR)
                continue
            stopped = sync_run_stop(run=run, actor=console_actor(request))
            if stopped.status == SyncRun.Status.STOPPED:
                note = "stopped."
            elif stopped.stop_requested and stopped.status == SyncRun.Status.RUNNING:
                note = "stops at its next document."
            else:
                note = f"already {stopped.status}."
            self.message_user(request, f"{run.public_id} {note}", messages.SUCCESS)
