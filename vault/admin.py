"""Operators' pages. Secrets are never shown or editable here: the encrypted columns are not
form fields (EncryptedField is not editable) and are excluded from every page; changes that
matter (store, rotate, delete) go through the API so they are validated and audited."""

from __future__ import annotations

from django.contrib import admin

from core.console import (
    TENANT_ADMIN,
    ReadOnlyAdmin,
    TenantFilter,
    TenantScopedAdmin,
    person_field,
    warning,
)
from vault.models import Credential, DataKey, DekRotation

_SECRET_COLUMNS = ("access_token", "refresh_token", "secrets")


@admin.register(Credential)
class CredentialAdmin(ReadOnlyAdmin, TenantScopedAdmin, admin.ModelAdmin):
    """Superusers see every tenant's credentials, a tenant admin their tenants' (read-only)."""

    view_roles = TENANT_ADMIN
    list_display = (
        "integration_id",
        "name",
        "tenant",
        "auth_type",
        "status",
        "expiry",
        "expires_at",
        "created_at",
    )
    list_filter = ("auth_type", "status", "is_expired", "expires_at", TenantFilter)
    search_fields = ("integration_id", "name", "description")
    list_select_related = ("tenant",)
    exclude = (*_SECRET_COLUMNS, "is_expired", "created_by", "updated_by", "deleted_by")
    ordering = ("-created_at",)
    readonly_fields = (
        "id",
        "tenant",
        "integration_id",
        "name",
        "description",
        "auth_type",
        "scopes",
        "status",
        "token_endpoint",
        "authorization_endpoint",
        "metadata",
        "dek_version",
        "expires_at",
        "expiry",
        "created_at",
        "created_by_person",
        "updated_at",
        "updated_by_person",
        "last_accessed_at",
        "access_count",
        "last_refreshed_at",
        "refresh_failed_at",
        "refresh_error",
        "last_rotated_at",
        "rotation_due_at",
        "deleted_at",
        "deleted_by_person",
    )
    created_by_person = person_field("created_by")
    updated_by_person = person_field("updated_by")
    deleted_by_person = person_field("deleted_by")

    @admin.display(description="expiry", ordering="is_expired")
    def expiry(self, credential: Credential):
        """Expired is bad news: a warning, never Django's green check of a True boolean."""
        return warning("expired") if credential.is_expired else "valid"


@admin.register(DataKey)
class DataKeyAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("tenant", "version", "status", "kek_id", "created_at", "retired_at")
    list_filter = ("status", "kek_id")
    exclude = ("wrapped",)
    readonly_fields = ("tenant", "version", "status", "kek_id", "created_at", "retired_at")


@admin.register(DekRotation)
class DekRotationAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = (
        "id",
        "tenant",
        "from_version",
        "to_version",
        "status",
        "items_rotated",
        "items_total",
        "started_at",
    )
    list_filter = ("status",)
    exclude = ("initiated_by",)
    readonly_fields = [f.name for f in DekRotation._meta.fields if f.name != "initiated_by"]
    readonly_fields += ["initiated_by_person"]
    initiated_by_person = person_field("initiated_by")
