"""Response shapes of the vault endpoints: plain dict builders (cheap per request) and the matching
serializers that describe them in the OpenAPI schema."""

from __future__ import annotations

from rest_framework import serializers

from core.api.schema import PaginationSerializer
from core.api.timestamps import iso_ms
from core.models import Tenant
from core.people import tenant_ref
from vault import keyring
from vault.models import Credential, DekRotation
from vault.services.refresh import refresh_error_of
from vault.services.secrets import Revealed


def credential_record(credential, tenant: Tenant) -> dict:
    """Every field but the secrets; shared by store, update, details, list, rotate. `credential`: a
    model instance, or a row of `vault.selectors.credential_page` (the same attribute names)."""
    return _record(credential, tenant_ref(tenant))


def credential_records(credentials: list, tenant: Tenant) -> list[dict]:
    """`credential_record` of each credential of a page (of one tenant, written once)."""
    owner = tenant_ref(tenant)
    return [_record(credential, owner) for credential in credentials]


def _record(credential, owner: dict) -> dict:
    return {
        "id": f"cred-{credential.id}",
        "integrationId": credential.integration_id,
        "credentialName": credential.name,
        "description": credential.description,
        "authType": credential.auth_type,
        "scopes": credential.scopes,
        "status": credential.status,
        "tokenEndpoint": credential.token_endpoint or None,
        "authorizationEndpoint": credential.authorization_endpoint or None,
        "metadata": credential.metadata,
        "expiresAt": iso_ms(credential.expires_at),
        "isExpired": credential.is_expired,
        "createdAt": iso_ms(credential.created_at),
        "createdBy": credential.created_by,
        "updatedAt": iso_ms(credential.updated_at),
        "updatedBy": credential.updated_by,
        "lastAccessedAt": iso_ms(credential.last_accessed_at),
        "accessCount": credential.access_count,
        "lastRefreshedAt": iso_ms(credential.last_refreshed_at),
        "lastRotatedAt": iso_ms(credential.last_rotated_at),
        "rotationDue": credential.rotation_due_at is not None,
        "refreshError": refresh_error_of(credential),
        "tenant": owner,
    }


def decrypted_record(credential: Credential, tenant: Tenant, revealed: Revealed, refresh_error) -> dict:
    return credential_record(credential, tenant) | {
        "accessToken": revealed.access_token,
        "refreshToken": revealed.refresh_token,
        "secrets": revealed.secrets or {},
        "refreshError": refresh_error,
    }


def deleted_record(credential: Credential, affected: int) -> dict:
    return {
        "id": credential.public_id,
        "integrationId": credential.integration_id,
        "credentialName": credential.name,
        "authType": credential.auth_type,
        "status": credential.status,
        "deletedAt": iso_ms(credential.deleted_at),
        "deletedBy": credential.deleted_by,
        "integrationsAffected": affected,
    }


def rotation_record(rotation: DekRotation) -> dict:
    tenant_id = rotation.tenant_id
    remaining = None
    if rotation.status == DekRotation.Status.IN_PROGRESS:
        remaining = (
            Credential.objects.filter(tenant_id=tenant_id).exclude(dek_version=rotation.to_version).count()
        )
    return {
        "rotationId": rotation.public_id,
        "tenantId": str(tenant_id),
        "status": rotation.status,
        "previousKeyId": keyring.dek_key_id(tenant_id=tenant_id, version=rotation.from_version),
        "newKeyId": keyring.dek_key_id(tenant_id=tenant_id, version=rotation.to_version),
        "startedAt": iso_ms(rotation.started_at),
        "completedAt": iso_ms(rotation.completed_at),
        "itemsToRotate": {"credentials": rotation.items_total, "apiKeys": 0, "secrets": rotation.items_total},
        "itemsRotated": rotation.items_rotated,
        "itemsRemaining": remaining if remaining is not None else 0,
        "initiatedBy": {k: rotation.initiated_by.get(k, "") for k in ("id", "name", "email")},
    }


# ---- OpenAPI descriptions of the shapes above


class PersonSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    email = serializers.CharField()

    class Meta:
        ref_name = "VaultPerson"


class TenantRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()

    class Meta:
        ref_name = "VaultTenantRef"


class RefreshErrorSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="REFRESH_REJECTED or REFRESH_NOT_POSSIBLE (flagged), or REFRESH_UNAVAILABLE"
    )
    message = serializers.CharField()
    at = serializers.CharField()

    class Meta:
        ref_name = "VaultRefreshError"


class CredentialRecordSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="cred-<uuid>")
    integrationId = serializers.CharField()
    credentialName = serializers.CharField()
    description = serializers.CharField()
    authType = serializers.ChoiceField(choices=Credential.AuthType.values)
    scopes = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField(help_text="active, inactive or deleted")
    tokenEndpoint = serializers.CharField(allow_null=True)
    authorizationEndpoint = serializers.CharField(allow_null=True)
    metadata = serializers.DictField()
    expiresAt = serializers.CharField(allow_null=True)
    isExpired = serializers.BooleanField()
    createdAt = serializers.CharField()
    createdBy = PersonSerializer()
    updatedAt = serializers.CharField(allow_null=True)
    updatedBy = PersonSerializer(allow_null=True)
    lastAccessedAt = serializers.CharField(allow_null=True)
    accessCount = serializers.IntegerField()
    lastRefreshedAt = serializers.CharField(allow_null=True)
    lastRotatedAt = serializers.CharField(allow_null=True)
    rotationDue = serializers.BooleanField()
    refreshError = RefreshErrorSerializer(allow_null=True)
    tenant = TenantRefSerializer()

    class Meta:
        ref_name = "CredentialRecord"


class CredentialUpdatedSerializer(CredentialRecordSerializer):
    changes = serializers.DictField(
        help_text="Per changed field: {from, to}, or {added, removed} for scopes."
    )

    class Meta:
        ref_name = "CredentialUpdated"


class CredentialDecryptedSerializer(CredentialRecordSerializer):
    accessToken = serializers.CharField(allow_null=True)
    refreshToken = serializers.CharField(allow_null=True)
    secrets = serializers.DictField(child=serializers.CharField())

    class Meta:
        ref_name = "CredentialDecrypted"


class RotationInfoSerializer(serializers.Serializer):
    rotatedAt = serializers.CharField()
    rotatedBy = PersonSerializer()
    method = serializers.CharField(help_text="replaced or refreshed")
    fields = serializers.ListField(child=serializers.CharField())

    class Meta:
        ref_name = "CredentialRotationInfo"


class CredentialRotatedSerializer(CredentialRecordSerializer):
    rotation = RotationInfoSerializer()

    class Meta:
        ref_name = "CredentialRotated"


class CredentialDeletedSerializer(serializers.Serializer):
    id = serializers.CharField()
    integrationId = serializers.CharField()
    credentialName = serializers.CharField()
    authType = serializers.CharField()
    status = serializers.CharField()
    deletedAt = serializers.CharField()
    deletedBy = PersonSerializer()
    integrationsAffected = serializers.IntegerField()

    class Meta:
        ref_name = "CredentialDeleted"


class CredentialListSerializer(serializers.Serializer):
    credentials = CredentialRecordSerializer(many=True)
    pagination = PaginationSerializer()

    class Meta:
        ref_name = "CredentialList"


class ItemsToRotateSerializer(serializers.Serializer):
    credentials = serializers.IntegerField()
    apiKeys = serializers.IntegerField()
    secrets = serializers.IntegerField()

    class Meta:
        ref_name = "DekItemsToRotate"


class DekRotationSerializer(serializers.Serializer):
    rotationId = serializers.CharField()
    tenantId = serializers.CharField()
    status = serializers.CharField(help_text="in_progress, completed or failed")
    previousKeyId = serializers.CharField()
    newKeyId = serializers.CharField()
    startedAt = serializers.CharField()
    estimatedCompletion = serializers.CharField(required=False)
    completedAt = serializers.CharField(allow_null=True)
    itemsToRotate = ItemsToRotateSerializer()
    itemsRotated = serializers.IntegerField()
    itemsRemaining = serializers.IntegerField()
    initiatedBy = PersonSerializer()

    class Meta:
        ref_name = "DekRotation"
