"""Identity's console pages: tenants with their members, users and memberships, API keys, OAuth
clients, service accounts (and identity realms, `identity.admin.realms`). Who sees which rows:
`core.console` (superusers everything; other staff their tenants' rows, as their roles allow).

Secrets created here (API keys, client secrets) are rendered once in the response page itself, never
put in a message cookie or the session."""

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.template.response import TemplateResponse
from django.urls import reverse

from core.api.errors import ApiError
from core.console import (
    EVERY_CONSOLE_ROLE,
    TENANT_ADMIN,
    TenantScopedAdmin,
    adopt,
    console_actor,
    person_field,
)
from core.models import Tenant
from core.scopes import SCOPES, split_list, unknown_scopes
from identity.admin import realms  # noqa: F401 (registers its page)
from identity.models import ApiKey, Membership, OAuthClient, ServiceAccount, User
from identity.services.api_keys import pinned_connections_check
from identity.services.oauth import (
    ClientSpec,
    oauth_client_create,
    oauth_tokens_revoke,
    service_account_create,
    service_account_status_set,
)
from identity.services.users import (
    api_key_create,
    membership_remove,
    membership_save,
    roles_check,
)


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


def _shown_once(request, title: str, values: list[tuple[str, str]], continue_url: str):
    context = {
        "title": title,
        "values": values,
        "continue_url": continue_url,
        "site_header": admin.site.site_header,
    }
    response = TemplateResponse(request, "admin/identity/shown_once.html", context)
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
    exclude = ("key_hash", "previous_key_hash", "revoked_by")
    readonly_fields = (
        "prefix",
        "previous_prefix",
        "usage_count",
        "last_used_at",
        "rotation_count",
        "revoked_by_person",
    )
    change_roles = TENANT_ADMIN
    revoked_by_person = person_field("revoked_by")

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
            actor=console_actor(request),
            created_by=request.user,
            description=obj.description,
            expires_at=obj.expires_at,
            connections=form.cleaned_data.get("connections") or {},
        )
        adopt(obj, key)
        request.shown_once = [("API key", raw)]

    shown_once_label = "API key"


class OAuthClientAddForm(forms.ModelForm):
    scopes_text = forms.CharField(label="Scopes", help_text=f"Comma-separated: {', '.join(SCOPES)}")

    class Meta:
        model = OAuthClient
        fields = ("tenant", "name", "description")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tenant"].required = True  # only clients that register themselves have none

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
    exclude = (
        "client_secret",
        "hash_client_secret",
        "user",
        "post_logout_redirect_uris",
        "algorithm",
        "created_by",
        "updated_by",
        "deleted_by",
    )
    readonly_fields = (
        "client_id",
        "token_requests",
        "last_used_at",
        "secret_rotation_count",
        "created_by_person",
        "updated_by_person",
        "deleted_by_person",
    )
    change_roles = TENANT_ADMIN
    created_by_person = person_field("created_by")
    updated_by_person = person_field("updated_by")
    deleted_by_person = person_field("deleted_by")

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
        actor = console_actor(request)
        client, secret = oauth_client_create(tenant=obj.tenant, spec=spec, actor=actor, request_id="")
        adopt(obj, client)
        request.shown_once = [("client_id", client.client_id), ("client_secret", secret)]

    shown_once_label = "OAuth client"


@admin.register(ServiceAccount)
class ServiceAccountAdmin(TenantScopedAdmin, ShownOnceAdminMixin, admin.ModelAdmin):
    list_display = ("name", "tenant", "client_id", "status", "last_used_at", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "oauth_client__client_id", "tenant__name")
    exclude = ("oauth_client", "created_by")
    readonly_fields = ("client_id", "last_used_at", "created_by_person")
    change_roles = TENANT_ADMIN
    created_by_person = person_field("created_by")

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("tenant",)
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else super().get_readonly_fields(request, obj)

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            service_account_status_set(account=obj, status=obj.status)
            return
        account, secret = service_account_create(
            tenant=obj.tenant, actor=console_actor(request), request_id=""
        )
        adopt(obj, account)
        request.shown_once = [("client_id", account.client_id), ("client_secret", secret)]

    shown_once_label = "Service account"
