"""The console's first page (`/admin/`): panels that each app registers for the roles that may see
them, rendered for the tenants where the signed-in user holds one of those roles (superusers: every
tenant). adminops reads no other app's tables: toolhub, vault and ingestion register their own
panels in a `dashboard` module, found the way Django's admin finds `admin` modules.

A panel is a function `(scope) -> Panel | None` that reads the scope's rows in one aggregated query
and says what to show: a summary line, a chart (server-drawn SVG, `adminops.charts`), a table, and
the changelist it leads to.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib import admin
from django.db import models
from django.db.models import F, Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.module_loading import autodiscover_modules

from adminops.charts import BAD, GOOD, WARN, Bar, bar_chart
from adminops.console import TENANT_ADMIN, console_tenant_ids
from adminops.models import ApiKey, Tenant
from adminops.services.api_keys import per_minute_limit
from adminops.usage import api_keys_current_use

TENANTS_LISTED = 500  # in the tenant picker; a superuser past this many picks by URL


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


def dashboard(request) -> dict:
    """The dashboard's context: the tenant picker and the panels this user may see."""
    user = request.user
    every_role = frozenset().union(*(roles for _, roles in registered_panels()))
    visible = None if user.is_superuser else console_tenant_ids(request, every_role)
    tenants = Tenant.objects.order_by("name").values_list("id", "name")
    if visible is not None:
        tenants = tenants.filter(id__in=visible)
    names = dict(tenants[:TENANTS_LISTED])
    chosen = _chosen_tenant(request, visible)
    panels = []
    for function, roles in registered_panels():
        tenant_ids = _panel_tenants(request, roles, visible, chosen)
        if tenant_ids is not None and not tenant_ids:
            continue
        panel = function(Scope(request, tenant_ids, names, timezone.now()))
        if panel is not None:
            panels.append(panel)
    return {"panels": panels, "tenants": list(names.items()), "chosen": chosen}


def _chosen_tenant(request, visible: set[uuid.UUID] | None) -> uuid.UUID | None:
    try:
        chosen = uuid.UUID(request.GET.get("tenant", ""))
    except ValueError:
        return None
    return chosen if visible is None or chosen in visible else None


def _panel_tenants(request, roles, visible, chosen) -> set[uuid.UUID] | None:
    if visible is None:
        return None if chosen is None else {chosen}
    allowed = console_tenant_ids(request, roles)
    return allowed & {chosen} if chosen is not None else allowed


# ---- adminops's own panel


NEAR_LIMIT = 0.8  # of the per-minute rate limit
KEYS_READ = 500  # the most recently used active keys; an idle key is not near its limit
KEYS_SHOWN = 6


@dashboard_panel(roles=TENANT_ADMIN, order=40)
def api_keys_near_their_limit(scope: Scope) -> Panel:
    keys = scope.rows(ApiKey.objects.filter(status=ApiKey.Status.ACTIVE))
    keys = keys.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=scope.now))
    keys = list(
        keys.order_by(F("last_used_at").desc(nulls_last=True)).values_list("id", "name", "tenant_id")[
            :KEYS_READ
        ]
    )
    use = api_keys_current_use([key_id for key_id, _, _ in keys])
    limit = per_minute_limit()
    busy = sorted(
        (
            (use[str(key_id)], key_id, name, tenant_id)
            for key_id, name, tenant_id in keys
            if any(use[str(key_id)])
        ),
        key=lambda row: row[0],
        reverse=True,
    )[:KEYS_SHOWN]
    near = sum(1 for minute, _hour in use.values() if minute >= NEAR_LIMIT * limit)
    link = scope.changelist(ApiKey)
    bars, rows = [], []
    for (minute, hour), key_id, name, tenant_id in busy:
        share = minute / limit
        key_link = scope.detail(ApiKey, key_id)
        color = BAD if share >= 1 else WARN if share >= NEAR_LIMIT else GOOD
        bars.append(Bar(name, round(100 * share, 1), color, key_link, f"{share:.0%}"))
        rows.append(Row((name, scope.tenant_name(tenant_id), f"{minute} / {limit}", hour), key_link))
    return Panel(
        title="API keys near their rate limit",
        summary=f"{near} of {len(keys)} active keys at {NEAR_LIMIT:.0%} or more of {limit} calls a minute.",
        link=link,
        chart=bar_chart(bars, maximum=100, title="Share of the per-minute limit used"),
        headers=("Key", "Tenant", "This minute", "This hour"),
        rows=rows,
        empty="" if busy else "No key has made calls this hour.",
        attention=near > 0,
    )
