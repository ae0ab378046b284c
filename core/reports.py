"""What apps contribute to a tenant's statistics and usage reports (rendered by ops.stats and
ops.reports), registered the way jobs and seed hooks are, so the roof reads each app's numbers
through the app itself:

- `@report_section(name)`: (tenant, start, end) -> dict of counts for the month's usage report.
  Counts, names and times only: never a secret (docs/administration.md lists the contents).
- `@storage_measure(name)`: (tenant) -> characters of the tenant's stored text, summed into the
  statistics' `usage.storageUsedMB` (a byte each for ASCII: one cheap aggregate, not an exact
  on-disk size).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db.models import Count, Sum, TextField
from django.db.models.functions import Cast, Length

from core.models import Tenant

ReportSection = Callable[[Tenant, datetime, datetime], dict]
StorageMeasure = Callable[[Tenant], int]
REPORT_SECTIONS: dict[str, ReportSection] = {}
STORAGE_MEASURES: dict[str, StorageMeasure] = {}


def report_section(name: str) -> Callable[[ReportSection], ReportSection]:
    def register(function: ReportSection) -> ReportSection:
        REPORT_SECTIONS[name] = function
        return function

    return register


def storage_measure(name: str) -> Callable[[StorageMeasure], StorageMeasure]:
    def register(function: StorageMeasure) -> StorageMeasure:
        STORAGE_MEASURES[name] = function
        return function

    return register


def text_length(queryset, *columns: str) -> int:
    """Characters stored in these columns (text, or JSON as its text) of the rows: one query."""
    sums = queryset.aggregate(**{c: Sum(Length(Cast(c, output_field=TextField()))) for c in columns})
    return sum(value or 0 for value in sums.values())


def counts_by(rows, field: str) -> dict[str, int]:
    """{value of `field`: rows with it}, in one grouped query."""
    return dict(rows.order_by().values_list(field).annotate(n=Count("pk")).values_list(field, "n"))
