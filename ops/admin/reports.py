"""Job runs and the usage reports the reportGeneration job writes."""

import json

from django.contrib import admin
from django.http import Http404, HttpResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import content_disposition_header

from core.console import TENANT_ADMIN, TenantScopedAdmin, person_field
from core.models import JobRun
from ops.models import UsageReport


@admin.register(JobRun)
class JobRunAdmin(admin.ModelAdmin):
    list_display = ("job_name", "status", "queued_at", "started_at", "finished_at", "items", "duration_ms")
    list_filter = ("job_name", "status")
    ordering = ("-queued_at",)
    exclude = ("triggered_by",)
    readonly_fields = ("triggered_by_person",)
    triggered_by_person = person_field("triggered_by")

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(UsageReport)
class UsageReportAdmin(TenantScopedAdmin, admin.ModelAdmin):
    """Written by the reportGeneration job. Superusers see every tenant's reports; a tenant admin sees
    their tenants' reports, and no one else does."""

    view_roles = TENANT_ADMIN

    list_display = ("tenant", "month", "complete", "generated_at", "download")
    list_filter = ("complete",)
    search_fields = ("tenant__name",)
    ordering = ("-period_start", "tenant__name")
    exclude = ("content",)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("tenant")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="month", ordering="period_start")
    def month(self, report):
        return f"{report.period_start:%Y-%m}"

    @admin.display(description="report")
    def download(self, report):
        url = reverse("admin:ops_usagereport_download", args=[report.pk])
        return format_html('<a href="{}">Download (JSON)</a>', url)

    def get_urls(self):
        view = self.admin_site.admin_view(self.download_view)
        download = path("<uuid:report_id>/download/", view, name="ops_usagereport_download")
        return [download, *super().get_urls()]

    def download_view(self, request, report_id):
        report = self.get_queryset(request).filter(id=report_id).first()
        if report is None or not self.has_view_permission(request, report):
            raise Http404("No such report.")
        body = json.dumps(report.content, indent=2, sort_keys=True).encode()
        response = HttpResponse(body, content_type="application/json")
        name = f"usage-{report.tenant.name}-{report.period_start:%Y-%m}.json"
        response["Content-Disposition"] = content_disposition_header(True, name)
        response["Cache-Control"] = "no-store"
        return response
