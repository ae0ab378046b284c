"""Sync configurations in the console: created by uploads; here operators rename and schedule them,
see their latest run, "Sync now", "Stop sync" (no more scheduled runs, the active run stopped, what
was ingested kept) and delete them with everything they ingested. The buttons on a configuration's
page and the list's actions call the same services as the API."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from core.api.errors import ApiError
from core.console import TENANT_ADMIN, TenantScopedAdmin, console_actor, to_the_second
from ingestion.admin.display import labelled, run_status
from ingestion.models import SyncConfiguration, SyncRun
from ingestion.services.configurations import sync_configuration_delete, sync_configuration_stop, sync_now

RUNS_SHOWN = 10
RUN_COLUMNS = ("Queued", "Status", "Kind", "Succeeded", "Skipped", "Failed", "Error")


def _latest(field: str) -> Subquery:
    runs = SyncRun.objects.filter(configuration=OuterRef("pk")).order_by("-queued_at")
    return Subquery(runs.values(field)[:1])


@admin.register(SyncConfiguration)
class SyncConfigurationAdmin(TenantScopedAdmin, admin.ModelAdmin):
    list_display = ("name", "tenant", "platform", "latest_run", "schedule", "last_sync")
    list_filter = ("platform", "enabled", ("tenant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("name", "integration_id", "platform_domain", "tenant__name")
    change_roles = TENANT_ADMIN
    actions = ["sync_now", "stop_sync", "delete_with_knowledge"]
    change_form_template = "admin/ingestion/syncconfiguration/change_form.html"
    readonly_fields = (
        "tenant", "platform", "platform_domain", "integration_id", "scope_list", "restrictions",
        "recent_runs", "last_sync", "delta_links", "created_at", "updated_at", "id",
    )  # fmt: skip
    fieldsets = (
        (None, {"fields": ("name", "enabled", "interval_minutes", "processor_mode", "use_ocr")}),
        (
            "Source",
            {
                "fields": (
                    "tenant",
                    "platform",
                    "platform_domain",
                    "integration_id",
                    "scope_list",
                    "restrictions",
                )
            },
        ),
        ("Runs", {"fields": ("recent_runs", "last_sync", "delta_links")}),
        ("Record", {"fields": ("id", "created_at", "updated_at"), "classes": ("collapse",)}),
    )

    def get_queryset(self, request):
        queryset = super().get_queryset(request).select_related("tenant")
        return queryset.annotate(latest_status=_latest("status"), latest_queued_at=_latest("queued_at"))

    def has_add_permission(self, request):
        return False  # uploads create configurations (POST /v2/.../upload)

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # a bare row delete would leave the credential behind
        return actions

    def delete_model(self, request, obj):
        sync_configuration_delete(configuration=obj, actor=console_actor(request))

    # ---- columns and fields

    @admin.display(description="latest run", ordering="latest_queued_at")
    def latest_run(self, configuration):
        if configuration.latest_queued_at is None:
            return run_status(None)
        when = f"{configuration.latest_queued_at:%Y-%m-%d %H:%M}"
        return format_html("{} <small>{}</small>", run_status(configuration.latest_status), when)

    @admin.display(description="schedule", ordering="interval_minutes")
    def schedule(self, configuration) -> str:
        if not configuration.enabled:
            return "Stopped (runs on request only)"
        if configuration.interval_minutes:
            return f"Every {configuration.interval_minutes} min"
        return "On request"

    @admin.display(description="scope")
    def scope_list(self, configuration):
        return labelled(configuration.scope, "Everything the credential can read")

    @admin.display(description="content restriction")
    def restrictions(self, configuration):
        return labelled(configuration.content_restriction, "None")

    @admin.display(description="delta links")
    def delta_links(self, configuration) -> str:
        count = len(configuration.delta_tokens or {})
        return (
            f"{count} drive{'' if count == 1 else 's'} resume from the last finished run" if count else "None"
        )

    @admin.display(description="recent runs")
    def recent_runs(self, configuration):
        runs = configuration.runs.order_by("-queued_at")[:RUNS_SHOWN]
        rows = [
            (reverse("admin:ingestion_syncrun_change", args=[run.pk]), to_the_second(run.queued_at),
             run_status(run.status), run.kind, run.succeeded, run.skipped, run.failed, run.error or "")
            for run in runs
        ]  # fmt: skip
        if not rows:
            return "No run yet."
        body = format_html_join(
            "",
            "<tr><td><a href='{}'>{}</a></td>" + "<td>{}</td>" * (len(RUN_COLUMNS) - 1) + "</tr>",
            rows,
        )
        head = format_html_join("", "<th>{}</th>", [(h,) for h in RUN_COLUMNS])
        return format_html("<table><tr>{}</tr>{}</table>", head, body)

    # ---- actions and buttons: the services the API uses

    @admin.action(description="Sync now (an incremental run)")
    def sync_now(self, request, queryset):
        for configuration in queryset:
            self._sync_now(request, configuration)

    @admin.action(description="Stop sync (no more scheduled runs; the knowledge stays)")
    def stop_sync(self, request, queryset):
        for configuration in queryset:
            self._stop(request, configuration)

    @admin.action(
        description="Delete with everything it ingested (documents, failures, credential)",
        permissions=["delete"],
    )
    def delete_with_knowledge(self, request, queryset):
        for configuration in queryset:
            removed = sync_configuration_delete(configuration=configuration, actor=console_actor(request))
            note = f"deleted with {removed['documents_deleted']} documents."
            self.message_user(request, f"{configuration}: {note}", messages.SUCCESS)

    def _sync_now(self, request, configuration) -> None:
        try:
            run = sync_now(
                tenant=configuration.tenant,
                configuration_id=configuration.id,
                platform=configuration.platform,
                incremental=True,
                actor=console_actor(request),
                request_id=getattr(request, "request_id", None),
            )
        except ApiError as exc:
            self.message_user(request, f"{configuration}: {exc.message}", messages.ERROR)
            return
        self.message_user(request, f"{configuration}: run {run.public_id} queued.", messages.SUCCESS)

    def _stop(self, request, configuration) -> None:
        sync_configuration_stop(
            configuration=configuration,
            actor=console_actor(request),
            request_id=getattr(request, "request_id", None),
        )
        self.message_user(
            request,
            f"{configuration}: stopped; no more scheduled runs, its knowledge stays.",
            messages.SUCCESS,
        )

    def get_urls(self):
        def button(view, name):
            wrapped = self.admin_site.admin_view(require_POST(view))
            return path(
                f"<path:object_id>/{name}/",
                wrapped,
                name=f"ingestion_syncconfiguration_{name.replace('-', '_')}",
            )

        return [button(self.sync_now_view, "sync-now"), button(self.stop_view, "stop"), *super().get_urls()]

    def sync_now_view(self, request, object_id):
        return self._button(request, object_id, self._sync_now)

    def stop_view(self, request, object_id):
        return self._button(request, object_id, self._stop)

    def _button(self, request, object_id, act):
        configuration = self.get_object(request, object_id)
        if configuration is None:
            raise Http404("No such sync configuration.")
        if not self.has_change_permission(request, configuration):
            raise PermissionDenied
        act(request, configuration)
        return HttpResponseRedirect(
            reverse("admin:ingestion_syncconfiguration_change", args=[configuration.pk])
        )
