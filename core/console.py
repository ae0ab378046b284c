"""Who sees what in the operators' console (`/admin/`, DESIGN section 3).

Superusers see everything, through Django's own permission checks. Every other console user is
staff because a membership grants a console role (`identity.services.users.console_access_sync`)
and sees only the rows of the tenants where their roles allow it: a page declares which roles may
view its rows and which may change them. Django's per-model permissions are not consulted for
them: memberships decide, in one place.
"""

from __future__ import annotations

import json
import uuid

from django.contrib import admin
from django.contrib.admin.options import InlineModelAdmin
from django.db import models
from django.templatetags.static import static
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import capfirst

from core.audit import client_ip
from core.models import Role, Tenant
from core.people import person_label
from core.principals import Principal
from core.tenancy import effective_roles

TENANT_ADMIN = frozenset({Role.TENANT_ADMIN})
APPROVERS = frozenset({Role.APPROVER})
AUDITORS = frozenset({Role.AUDIT_VIEWER})
# The roles that open the console (its users are staff because a membership grants one of them).
EVERY_CONSOLE_ROLE = TENANT_ADMIN | APPROVERS | AUDITORS


def console_actor(request) -> dict:
    """The signed-in console user as the audit trail's actor of what they do on a page."""
    return Principal.of_user(request.user).as_actor(client_ip(request))


def adopt(obj, created) -> None:
    """Point a page's unsaved form object at the row a service created in its place."""
    obj.pk = created.pk
    obj._state.adding = False  # Model._state: Django's documented per-instance state
    obj.refresh_from_db()


def console_roles(request) -> dict[uuid.UUID, frozenset[str]]:
    """The effective roles of the signed-in user in each of their tenants, read once per request."""
    roles = getattr(request, "console_roles", None)
    if roles is None:
        roles = {}
        if request.user.is_authenticated:  # an anonymous visitor of the sign-in page has none
            rows = request.user.memberships.values_list("tenant_id", "roles")  # core.tenancy says why
            roles = {tenant_id: effective_roles(granted) for tenant_id, granted in rows}
        request.console_roles = roles
    return roles


def console_tenant_ids(request, roles: frozenset[str]) -> set[uuid.UUID]:
    """The tenants in which the signed-in user holds one of `roles`."""
    return {tenant_id for tenant_id, held in console_roles(request).items() if held & roles}


class ReadOnlyAdmin:
    """Mix into a ModelAdmin before the other classes: a console page that shows rows and never
    adds, changes or deletes them (the service that owns them writes them, audited)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class TenantScopedAdmin:
    """Mix into a ModelAdmin (or inline) before Django's class. `tenant_field` names the field that
    holds the row's tenant id; `view_roles` may read the rows of their tenants, `change_roles` may
    also add and change them. Deleting stays with superusers."""

    tenant_field = "tenant_id"
    tenant_column = "tenant"  # left out of the list for someone who sees a single tenant
    view_roles: frozenset[str] = frozenset()
    change_roles: frozenset[str] = frozenset()

    def scoped_tenant_ids(self, request, roles: frozenset[str] | None = None) -> set[uuid.UUID]:
        return console_tenant_ids(request, self.view_roles | self.change_roles if roles is None else roles)

    def allows(self, request, roles: frozenset[str], obj=None) -> bool:
        """Whether the signed-in user holds one of `roles` in `obj`'s tenant (without `obj`: in any
        of their tenants); a superuser anywhere. Pages ask it for their own actions too."""
        if request.user.is_superuser:
            return True
        tenants = console_tenant_ids(request, roles)
        return bool(tenants) and (obj is None or getattr(obj, self.tenant_field) in tenants)

    def has_module_permission(self, request):
        if request.user.is_superuser:
            return super().has_module_permission(request)
        return bool(self.scoped_tenant_ids(request))

    def has_view_permission(self, request, obj=None):
        if request.user.is_superuser:
            return super().has_view_permission(request, obj)
        return self.allows(request, self.view_roles | self.change_roles, obj)

    def has_change_permission(self, request, obj=None):
        if request.user.is_superuser:
            return super().has_change_permission(request, obj)
        return self.allows(request, self.change_roles, obj)

    def has_add_permission(self, request, obj=None):
        if request.user.is_superuser:
            if isinstance(self, InlineModelAdmin):
                return super().has_add_permission(request, obj)
            return super().has_add_permission(request)
        return self.allows(request, self.change_roles)

    def has_delete_permission(self, request, obj=None):
        if request.user.is_superuser:
            return super().has_delete_permission(request, obj)
        return False

    def changelist_view(self, request, extra_context=None):
        # Titled as the index names the page ("Approval queue"), not "Select approval to view".
        title = capfirst(self.model._meta.verbose_name_plural)
        return super().changelist_view(request, {"title": title, **(extra_context or {})})

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{f"{self.tenant_field}__in": self.scoped_tenant_ids(request)})

    def get_list_display(self, request):
        columns = super().get_list_display(request)
        if request.user.is_superuser or len(self.scoped_tenant_ids(request)) > 1:
            return columns
        return [column for column in columns if column != self.tenant_column]

    def get_readonly_fields(self, request, obj=None):
        fields = tuple(super().get_readonly_fields(request, obj))
        if request.user.is_superuser or obj is None:
            return fields
        # A row stays in its tenant, and the user pickers would list other tenants' people.
        related = [f.name for f in self.model._meta.fields if isinstance(f, models.ForeignKey)]
        return fields + tuple(name for name in related if name not in fields)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "tenant" and not request.user.is_superuser:
            tenant_ids = self.scoped_tenant_ids(request, self.change_roles)
            kwargs["queryset"] = Tenant.objects.filter(id__in=tenant_ids)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def visible_tenants(request, model_admin) -> models.QuerySet[Tenant]:
    """The tenants a list filter may name: all for a superuser, else the user's scoped ones."""
    tenants = Tenant.objects.order_by("name")
    if request.user.is_superuser:
        return tenants
    return tenants.filter(id__in=model_admin.scoped_tenant_ids(request))


# Shown on console pages: plain words with an honest icon (a check only where the news is good).


def to_the_second(moment) -> str:
    """A time as the console shows it: local time (UTC by default), to the second."""
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else "—"


def warning(text: str):
    return format_html('<img src="{}" alt=""> {}', static("admin/img/icon-alert.svg"), text)


def good(text: str):
    return format_html('<img src="{}" alt=""> {}', static("admin/img/icon-yes.svg"), text)


def json_block(value) -> str:
    """A stored JSON value, indented, in a <pre> block."""
    return format_html('<pre class="console-json">{}</pre>', json.dumps(value, indent=2, sort_keys=True))


def person_field(name: str, description: str = ""):
    """A read-only column or field showing the person stored as JSON in `name` ("Name (type)"):
    `created_by_person = person_field("created_by")`, with `created_by` excluded from the page."""

    @admin.display(description=description or name.replace("_", " "))
    def show(model_admin, obj) -> str:
        return person_label(getattr(obj, name))

    return show


class TenantFilter(admin.SimpleListFilter):
    title = "tenant"
    parameter_name = "tenant"

    def lookups(self, request, model_admin):
        return [(str(t.id), t.name) for t in visible_tenants(request, model_admin)]

    def queryset(self, request, queryset):
        return queryset.filter(tenant_id=self.value()) if self.value() else queryset
