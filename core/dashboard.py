"""The console dashboard's registry (`/admin/`, rendered by ops.dashboard): panels that each app
registers for the roles that may see them, in a `dashboard` module found the way Django's admin
finds `admin` modules.

A panel is a function `(scope) -> Panel | None` that reads the scope's rows in one aggregated query
and says what to show: a summary line, a chart (server-drawn SVG, `core.charts`), a table, and
the changelist it leads to.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib import admin
from django.db import models
from django.urls import NoReverseMatch, reverse
from django.utils.http import urlencode
from django.utils.module_loading import autodiscover_modules


@dataclass(frozen=True)
class Row:
    cells: tuple[object, ...]
    link: str = ""  # the first cell links here when set


@dataclass
class Panel:
    title: str
    summary: str
    link: str = ""  # the changelist, "" when the user may not open it
    chart: str = ""  # safe SVG markup
    headers: tuple[str, ...] = ()
    rows: list[Row] = field(default_factory=list)
    empty: str = ""  # said instead of the chart and table when there is nothing to show
    attention: bool = False  # something needs a person


@dataclass
class Scope:
    """Whose rows a panel reads: `tenant_ids` None means every tenant (a superuser)."""

    request: object
    tenant_ids: set[uuid.UUID] | None
    tenant_names: dict[uuid.UUID, str]
    now: datetime

    def rows(self, queryset: models.QuerySet, tenant_field: str = "tenant_id") -> models.QuerySet:
        if self.tenant_ids is None:
            return queryset
        return queryset.filter(**{f"{tenant_field}__in": self.tenant_ids})

    def tenant_name(self, tenant_id) -> str:
        key = tenant_id if isinstance(tenant_id, uuid.UUID) else uuid.UUID(str(tenant_id))
        return self.tenant_names.get(key) or str(key)

    def changelist(self, model: type[models.Model], **filters) -> str:
        """The model's console list with `filters`, or "" when this user may not open it."""
        url = self._admin_url(model, "changelist")
        return f"{url}?{urlencode(filters)}" if url and filters else url

    def detail(self, model: type[models.Model], pk) -> str:
        """A row's console page, or "" when this user may not open the model's list."""
        return self._admin_url(model, "change", pk)

    def _admin_url(self, model: type[models.Model], page: str, *args) -> str:
        if not admin.site.is_registered(model):
            return ""
        if not admin.site.get_model_admin(model).has_view_permission(self.request):
            return ""
        try:
            return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{page}", args=args)
        except NoReverseMatch:
            return ""


PanelFunction = Callable[[Scope], Panel | None]


@dataclass(frozen=True)
class _Registered:
    function: PanelFunction
    roles: frozenset[str]
    order: int


_PANELS: dict[str, _Registered] = {}
_discovered = False


def dashboard_panel(*, roles: frozenset[str], order: int = 100) -> Callable[[PanelFunction], PanelFunction]:
    """Register a panel for users holding one of `roles` in a tenant (superusers see every panel)."""

    def register(function: PanelFunction) -> PanelFunction:
        _PANELS[f"{function.__module__}.{function.__qualname__}"] = _Registered(function, roles, order)
        return function

    return register


def registered_panels() -> list[tuple[PanelFunction, frozenset[str]]]:
    global _discovered
    if not _discovered:
        autodiscover_modules("dashboard")
        _discovered = True
    ordered = sorted(_PANELS.values(), key=lambda p: (p.order, p.function.__qualname__))
    return [(p.function, p.roles) for p in ordered]
