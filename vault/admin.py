"""Operators' pages. Secrets are never shown or editable here: the encrypted columns are not
form fields (EncryptedField is not editable) and are excluded from every page; changes that
matter (store, rotate, delete) go through the API so they are validated and audited."""

from __future__ import annotations

from django.contrib import admin

from adminops.console import ReadOnlyAdmin
from vault.models import Credential, DataKey, DekRotation

_SECRET_COLUMNS = ("access_token", "refresh_token", "secrets")


@admin.register(Credential)
class CredentialAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = (
        "integration_id",
        "name",
        "tenant",
        "auth_type",
        "status",
        "is_expired",
        "expires_at",
        "created_at",
    )
    list_filter = ("auth_type", "status", "is_expired", "expires_at", "tenant")
    search_fields = ("integration_id", "name", "description")
    list_select_related = ("tenant",)
    exclude = _SECRET_COLUMNS
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
        "is_expired",
        "created_at",
        "created_by",
        "updated_at",
        "updated_by",
        "last_accessed_at",
        "access_count",
        "last_refreshed_at",
        "refresh_failed_at",
        "refresh_error",
        "last_rotated_at",
        "rotation_due_at",
        "deleted_at",
        "deleted_by",
    )


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
    readonly_fields = [f.name for f in DekRotation._meta.fields]
