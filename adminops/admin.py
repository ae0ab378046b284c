"""The operators' console: tenants, users and memberships, API keys, OAuth clients, service accounts,
the audit browser (read-only, with a chain check) and job runs. Who sees which rows:
`adminops.console` (superusers everything; other staff their tenants' rows, as their roles allow).

Secrets created here (API keys, client secrets) are rendered once in the response page itself, never
put in a message cookie or the session."""

import json

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import content_disposition_header

from adminops.archive import audit_chain_verify_archived
from adminops.console import (
    AUDITORS,
    EVERY_CONSOLE_ROLE,
    TENANT_ADMIN,
    ReadOnlyAdmin,
    TenantScopedAdmin,
    visible_tenants,
)
from adminops.models import (
    ApiKey,
    AuditArchive,
    AuditEntry,
    JobRun,
    Membership,
    OAuthClient,
    ServiceAccount,
    Tenant,
    UsageReport,
    User,
)
from adminops.people import user_person
from adminops.scopes import SCOPES, split_list, unknown_scopes
from adminops.services.api_keys import pinned_connections_check
from adminops.services.identity import (
    api_key_create,
    membership_remove,
    membership_save,
    roles_check,
)
from config.api.errors import ApiError


class MembershipForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ("user", "tenant", "roles")

    def clean_roles(self):
        roles = self.cleaned_data["roles"]
        if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
            raise forms.ValidationError('A list of roles, e.g. ["approver"].')
        try:
            roles_check(roles)
        except ApiError as exc:
            raise forms.ValidationError("; ".join(exc.details.values())) from None
        return roles


class MembershipInline(TenantScopedAdmin, admin.TabularInline):
    model = Membership
    form = MembershipForm
    extra = 0
    view_roles = TENANT_ADMIN


class MembershipsThroughService:
    """Membership rows edited on a page are saved by the identity service, which keeps the users'
    console access (staff status) in step with their roles."""

    def save_formset(self, request, form, formset, change):
        if formset.model is not Membership:
            return super().save_formset(request, form, formset, change)
        changed = formset.save(commit=False)
        for membership in formset.deleted_objects:
            membership_remove(membership=membership)
        for membership in changed:
            membership_save(membership=membership)
        return None


@admin.register(Tenant)
class TenantAdmin(TenantScopedAdmin, MembershipsThroughService, admin.ModelAdmin):
    list_display = ("name", "id", "domain", "status", "created_at")
    search_fields = ("name", "domain", "id")
    list_filter = ("status",)
    inlines = [MembershipInline]
    tenant_field = "id"
    view_roles = EVERY_CONSOLE_ROLE


@admin.register(User)
class TenantUserAdmin(MembershipsThroughService, UserAdmin):
    inlines = [MembershipInline]


def _actor(request) -> dict:
    person = user_person(request.user) or {}
    return {"type": "user", **person, "ipAddress": request.META.get("REMOTE_ADDR")}


def _shown_once(request, title: str, values: list[tuple[str, str]], continue_url: str):
    context = {
        "title": title,
        "values": values,
        "continue_url": continue_url,
        "site_header": "Administration",
    }
    response = TemplateResponse(request, "admin/adminops/shown_once.html", context)
    response["Cache-Control"] = "no-store"
    return response


class ShownOnceAdminMixin:
    """Adding through the admin goes through the service; the secret it returns is shown once on the
    response page (never in a message cookie) by `response_add`."""

    shown_once_label = ""

    def response_add(self, request, obj, post_url_continue=None):
        shown = getattr(request, "shown_once", None)
        if shown:
            url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
            return _shown_once(request, f"{self.shown_once_label} {obj.name}", shown, url)
        return super().response_add(request, obj, post_url_continue)


def _adopt(obj, created) -> None:
    """Point the admin's unsaved form object at the row the service created."""
    obj.pk = created.pk
    obj._state.adding = False
    obj.refresh_from_db()


class PinnedConnectionsForm(forms.ModelForm):
    """`connections` (pinned tool-hub connections, {domain: connection id}) checked as the API
    checks them: each a connection of the key's tenant serving that domain."""

    def clean(self):
        cleaned = super().clean()
        tenant = cleaned.get("tenant") or getattr(self.instance, "tenant", None)
        if "connections" in cleaned and tenant is not None:
            try:
                cleaned["connections"] = pinned_connections_check(
                    tenant=tenant, connections=cleaned["connections"] or {}
                )
            except ApiError as exc:
                self.add_error("connections", _field_messages(exc))
        return cleaned


def _field_messages(exc: ApiError) -> str:
    details = exc.details if isinstance(exc.details, dict) else {}
    return "; ".join(f"{name}: {message}" for name, message in details.items()) or exc.message


ADD_KEY_FIELDS = ("tenant", "name", "description", "scopes_text", "environment", "expires_at", "connections")


class ApiKeyChangeForm(PinnedConnectionsForm):
    class Meta:
        model = ApiKey
        fields = ("connections",)  # the admin adds the page's other fields


class ApiKeyAddForm(PinnedConnectionsForm):
    scopes_text = forms.CharField(
        label="Scopes", initial="*", help_text=f"Comma-separated: {', '.join(SCOPES)}"
    )

    class Meta:
        model = ApiKey
        fields = ("tenant", "name", "description", "environment", "expires_at", "connections")

    def clean_scopes_text(self):
        scopes = split_list(self.cleaned_data["scopes_text"])
        unknown = unknown_scopes(scopes)
        if not scopes or unknown:
            raise forms.ValidationError(f"Unknown or missing scopes: {', '.join(unknown)}")
        return scopes


@admin.register(ApiKey)
class ApiKeyAdmin(TenantScopedAdmin, ShownOnceAdminMixin, admin.ModelAdmin):
    list_display = ("name", "tenant", "prefix", "status", "environment", "expires_at", "last_used_at")
    list_filter = ("status", "environment")
    search_fields = ("name", "prefix", "tenant__name")
    exclude = ("key_hash", "previous_key_hash")
    readonly_fields = ("prefix", "previous_prefix", "usage_count", "last_used_at", "rotation_count")
    change_roles = TENANT_ADMIN

    def get_form(self, request, obj=None, **kwargs):
        kwargs["form"] = ApiKeyAddForm if obj is None else ApiKeyChangeForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ADD_KEY_FIELDS
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else super().get_readonly_fields(request, obj)

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        key, raw = api_key_create(
            tenant=obj.tenant,
            name=obj.name,
            scopes=form.cleaned_data["scopes_text"],
            environment=obj.environment,
            actor=_actor(request),
            created_by=request.user,
            description=obj.description,
            expires_at=obj.expires_at,
            connections=form.cleaned_data.get("connections") or {},
        )
        _adopt(obj, key)
        request.shown_once = [("API key", raw)]

    shown_once_label = "API key"


class OAuthClientAddForm(forms.ModelForm):
    scopes_text = forms.CharField(label="Scopes", help_text=f"Comma-separated: {', '.join(SCOPES)}")

    class Meta:
        model = OAuthClient
        fields = ("tenant", "name", "description")

    def clean_scopes_text(self):
        scopes = split_list(self.cleaned_data["scopes_text"])
        if not scopes or unknown_scopes(scopes):
            raise forms.ValidationError("Give known scopes, comma-separated.")
        return scopes


class OAuthClientAdmin(TenantScopedAdmin, ShownOnceAdminMixin, admin.ModelAdmin):
    """Adding here creates a confidential client-credentials client; edit the rest afterwards.
    django-oauth-toolkit registers this class for its application model (APPLICATION_ADMIN_CLASS)."""

    list_display = ("name", "tenant", "client_id", "client_type", "status", "last_used_at")
    list_filter = ("status", "client_type")
    search_fields = ("name", "client_id", "tenant__name")
    exclude = ("client_secret", "hash_client_secret", "user", "post_logout_redirect_uris", "algorithm")
    readonly_fields = ("client_id", "token_requests", "last_used_at", "secret_rotation_count")
    change_roles = TENANT_ADMIN

    def get_queryset(self, request):
        return super().get_queryset(request).registered()

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = OAuthClientAddForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("tenant", "name", "description", "scopes_text")
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else super().get_readonly_fields(request, obj)

    def save_model(self, request, obj, form, change):
        from adminops.services.oauth import ClientSpec, oauth_client_create, oauth_tokens_revoke

        if change:
            super().save_model(request, obj, form, change)
            if obj.status != OAuthClient.Status.ACTIVE:
                oauth_tokens_revoke(obj)  # disabled here too: its tokens stop at once
            return
        spec = ClientSpec(
            name=obj.name,
            description=obj.description,
            client_type=OAuthClient.ClientType.CONFIDENTIAL,
            redirect_uris=[],
            grant_types=["client_credentials"],
            scopes=form.cleaned_data["scopes_text"],
        )
        actor = _actor(request)
        client, secret = oauth_client_create(tenant=obj.tenant, spec=spec, actor=actor, request_id="")
        _adopt(obj, client)
        request.shown_once = [("client_id", client.client_id), ("client_secret", secret)]

    shown_once_label = "OAuth client"


@admin.register(ServiceAccount)
class ServiceAccountAdmin(TenantScopedAdmin, ShownOnceAdminMixin, admin.ModelAdmin):
    list_display = ("name", "tenant", "client_id", "status", "last_used_at", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "oauth_client__client_id", "tenant__name")
    exclude = ("oauth_client",)
    readonly_fields = ("client_id", "last_used_at", "created_by")
    change_roles = TENANT_ADMIN

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("tenant",)
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else super().get_readonly_fields(request, obj)

    def save_model(self, request, obj, form, change):
        from adminops.services.oauth import service_account_create, service_account_status_set

        if change:
            super().save_model(request, obj, form, change)
            service_account_status_set(account=obj, status=obj.status)
            return
        account, secret = service_account_create(tenant=obj.tenant, actor=_actor(request), request_id="")
        _adopt(obj, account)
        request.shown_once = [("client_id", account.client_id), ("client_secret", secret)]

    shown_once_label = "Service account"


class TenantFilter(admin.SimpleListFilter):
    title = "tenant"
    parameter_name = "tenant"

    def lookups(self, request, model_admin):
        return [(str(t.id), t.name) for t in visible_tenants(request, model_admin)]

    def queryset(self, request, queryset):
        return queryset.filter(tenant_id=self.value()) if self.value() else queryset


class ActorFilter(admin.SimpleListFilter):
    title = "actor"
    parameter_name = "actor"

    def lookups(self, request, model_admin):
        entries = model_admin.get_queryset(request).order_by()
        rows = entries.values_list("actor_id", "actor__name").distinct()[:200]
        return [(actor_id, f"{name} ({actor_id[:18]})") for actor_id, name in rows if actor_id]

    def queryset(self, request, queryset):
        return queryset.filter(actor_id=self.value()) if self.value() else queryset


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin, TenantScopedAdmin, admin.ModelAdmin):
    list_display = ("timestamp", "action", "status", "tenant_id", "actor_id", "resource_type")
    list_filter = (TenantFilter, "action", ActorFilter, "status", "category", "timestamp")
    date_hierarchy = "timestamp"
    search_fields = ("action", "actor_id", "request_id")
    ordering = ("-timestamp",)
    actions = ["verify_chain"]
    view_roles = AUDITORS

    @admin.action(description="Verify the hash chain of the selected entries' tenants")
    def verify_chain(self, request, queryset):
        for chain in sorted(set(queryset.values_list("chain", flat=True))):
            problems = audit_chain_verify_archived(chain)
            if problems:
                self.message_user(request, f"Chain {chain}: {'; '.join(problems)}", messages.ERROR)
            else:
                self.message_user(request, f"Chain {chain}: intact.", messages.SUCCESS)


@admin.register(JobRun)
class JobRunAdmin(admin.ModelAdmin):
    list_display = ("job_name", "status", "queued_at", "started_at", "finished_at", "items", "duration_ms")
    list_filter = ("job_name", "status")
    ordering = ("-queued_at",)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(AuditArchive)
class AuditArchiveAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """Read-only: the auditLogArchive job writes these; `verify_audit_chain` reads them."""

    list_display = ("chain", "first_seq", "last_seq", "entries", "first_timestamp", "last_timestamp", "path")
    list_filter = (TenantFilter,)
    search_fields = ("chain", "path", "sha256")
    ordering = ("chain", "first_seq")


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
        url = reverse("admin:adminops_usagereport_download", args=[report.pk])
        return format_html('<a href="{}">Download (JSON)</a>', url)

    def get_urls(self):
        view = self.admin_site.admin_view(self.download_view)
        download = path("<uuid:report_id>/download/", view, name="adminops_usagereport_download")
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
