"""Ingestion's panels on the console's dashboard (core.dashboard): sync runs by status over the
last week, and failed files by error type."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count

from core.charts import BAD, Bar, bar_chart
from core.console import TENANT_ADMIN
from core.dashboard import Panel, Scope, dashboard_panel
from ingestion.admin.display import RUN_STATUS
from ingestion.models import FailedFileRow, SyncRun
from ingestion.services.failed_files import retention_cutoff

DAYS = 7
Status = SyncRun.Status


@dashboard_panel(roles=TENANT_ADMIN, order=50)
def sync_runs_by_status(scope: Scope) -> Panel:
    since = scope.now - timedelta(days=DAYS)
    runs = scope.rows(SyncRun.objects.filter(queued_at__gte=since))
    counts = dict(runs.values_list("status").annotate(runs=Count("id")).values_list("status", "runs"))
    bars = [
        Bar(label, counts.get(status, 0), colour, scope.changelist(SyncRun, status__exact=status))
        for status, (_symbol, label, colour) in RUN_STATUS.items()
    ]
    total = sum(counts.values())
    failing = counts.get(Status.FAILED, 0) + counts.get(Status.PARTIAL, 0)
    active = counts.get(Status.QUEUED, 0) + counts.get(Status.RUNNING, 0)
    return Panel(
        title=f"Sync runs (last {DAYS} days)",
        summary=f"{total} run{'' if total == 1 else 's'}: {active} queued or running, "
        f"{failing} failed or partly failed.",
        link=scope.changelist(SyncRun),
        chart=bar_chart(bars, title="Sync runs by status"),
        empty="" if total else f"No sync run in the last {DAYS} days.",
        attention=failing > 0,
    )


@dashboard_panel(roles=TENANT_ADMIN, order=60)
def failed_files_by_error_type(scope: Scope) -> Panel:
    if settings.FAILED_FILES_BACKEND != "orm":
        return Panel(
            title="Failed files",
            summary="Failed-file records are kept in Azure Tables: "
            "GET /v2/cloudstore/failed-files lists them.",
        )
    rows = scope.rows(FailedFileRow.objects.filter(failed_at__gte=retention_cutoff(now=scope.now)))
    counts = list(rows.values("error_type").annotate(files=Count("id")).order_by("-files", "error_type"))
    total = sum(row["files"] for row in counts)
    bars = [
        Bar(
            row["error_type"],
            row["files"],
            BAD,
            scope.changelist(FailedFileRow, error_type__exact=row["error_type"]),
        )
        for row in counts
    ]
    return Panel(
        title="Failed files by error type",
        summary=f"{total} file{'' if total == 1 else 's'} failed to ingest "
        f"(last {settings.FAILED_FILES_RETENTION_DAYS} days); retry them from the list.",
        link=scope.changelist(FailedFileRow),
        chart=bar_chart(bars, title="Failed files by error type"),
        empty="" if total else "No file failed to ingest.",
        attention=total > 0,
    )
