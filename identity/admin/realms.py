"""Identity realms (DESIGN section 17) in the console, for tenant admins. Every change goes through
the service the API uses (`identity.services.realms`): the same checks as /api/v1/admin/realms
(an HTTPS issuer the outbound guard allows, known roles), audited, and the realm's cached signing
keys dropped."""

from django import forms
from django.contrib import admin
from django.db import models

from core.api.errors import ApiError
from core.console import TENANT_ADMIN, TenantFilter, TenantScopedAdmin, adopt, console_actor
from identity.apis.realms import RealmInputSerializer
from identity.models import IdentityRealm
from identity.services import realms as svc

EDITABLE = (
    "name",
    "issuer",
    "audience",
    "jwks_url",
    "username_claim",
    "roles_claim",
    "role_mapping",
    "groups_claim",
    "group_mapping",
)


def _https_urls(field, **kwargs):
    """Form fields of the model's fields; a URL typed without a scheme means HTTPS."""
    if isinstance(field, models.URLField):
        kwargs["assume_scheme"] = "https"
    return field.formfield(**kwargs)


class IdentityRealmForm(forms.ModelForm):
    class Meta:
        formfield_callback = _https_urls
        model = IdentityRealm
        fields = ("tenant", *EDITABLE)
        help_texts = {
            "role_mapping": 'External role → this service\'s role, e.g. {"helpdesk": "integration_viewer"}.',
            "jwks_url": "Blank: the issuer's discovery document names it.",
            "group_mapping": 'Token group → source principals, e.g. {"hr": ["group:sitelib:8d1f…"]}.',
        }

    def clean(self):
        cleaned = super().clean()
        if "group_mapping" in cleaned and cleaned["group_mapping"] is None:
            cleaned["group_mapping"] = {}  # a blank field maps no groups
        values = {api: cleaned.get(field) for api, field in svc.FIELDS.items() if field in cleaned}
        checked = RealmInputSerializer(data={**values, "jwksUrl": values.get("jwksUrl") or None})
        for name, problems in ({} if checked.is_valid() else checked.errors).items():
            self.add_error(svc.FIELDS.get(name), "; ".join(str(p) for p in _flat(problems)))
        checked_here = ("issuer", "jwksUrl", "roleMapping", "groupMapping")
        rest = [name for name in checked_here if svc.FIELDS[name] not in self.errors]
        try:  # URLs in HTTPS and allowed by the outbound guard, external role names
            svc.realm_values_check({name: values[name] for name in rest if name in values})
        except ApiError as exc:
            for name, message in (exc.details or {}).items():
                self.add_error(svc.FIELDS.get(name), message)
        tenant = cleaned.get("tenant") or getattr(self.instance, "tenant", None)
        others = IdentityRealm.objects.filter(tenant=tenant, name=cleaned.get("name")).exclude(
            pk=self.instance.pk
        )
        if tenant is not None and others.exists():
            self.add_error("name", "The tenant has an identity realm of this name already.")
        return cleaned

    def api_values(self) -> dict:
        """The changed settings in the API's names, as the service takes them."""
        names = {field: api for api, field in svc.FIELDS.items()}
        return {names[field]: self.cleaned_data[field] for field in self.changed_data if field in names}


def _flat(problems):
    if isinstance(problems, dict):
        return [f"{key}: {p}" for key, value in problems.items() for p in _flat(value)]
    return problems if isinstance(problems, list) else [problems]


@admin.register(IdentityRealm)
class IdentityRealmAdmin(TenantScopedAdmin, admin.ModelAdmin):
    form = IdentityRealmForm
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}  # issuers are HTTPS
    list_display = ("name", "tenant", "issuer", "audience", "created_at")
    search_fields = ("name", "issuer", "tenant__name")
    list_filter = (TenantFilter,)
    change_roles = TENANT_ADMIN
    readonly_fields = ("created_at", "updated_at")

    def has_delete_permission(self, request, obj=None):
        # Deleting goes through the service too (audited, keys dropped): the realm's tenant admins.
        return self.allows(request, self.change_roles, obj)

    def save_model(self, request, obj, form, change):
        actor = console_actor(request)
        if change:
            changes = form.api_values()
            if changes:
                realm = IdentityRealm.objects.get(pk=obj.pk)
                svc.realm_update(realm=realm, changes=changes, actor=actor, request_id="")
            obj.refresh_from_db()
            return
        values = {api: form.cleaned_data[field] for api, field in svc.FIELDS.items()}
        adopt(obj, svc.realm_create(tenant=obj.tenant, values=values, actor=actor, request_id=""))

    def delete_model(self, request, obj):
        svc.realm_delete(realm=obj, actor=console_actor(request), request_id="")

    def delete_queryset(self, request, queryset):
        for realm in queryset:
            self.delete_model(request, realm)
