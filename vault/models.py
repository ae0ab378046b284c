from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.gencache import GenerationQuerySet
from core.models import Tenant, TenantOwnedQuerySet
from vault.caches import ACCESS_FIELDS, ACTIVE_DEKS, IN_USE
from vault.fields import EncryptedField


class MasterKeyFingerprint(models.Model):
    """HMAC of a constant under each master key: a wrong key is detected, not used (keyring.py)."""

    key_id = models.CharField(max_length=64, primary_key=True)
    fingerprint = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.key_id


class DataKeyQuerySet(GenerationQuerySet):
    """Bulk writes (a rotation retiring keys) make the cached active versions stale at once."""

    generation_caches = (ACTIVE_DEKS,)


class DataKey(models.Model):
    """A tenant's data key of one version, wrapped (AES-256-GCM) under the master key `kek_id`."""

    class Status(models.TextChoices):
        ACTIVE = "active"  # encrypts new values
        RETIRING = "retiring"  # a rotation is moving its values to the new key
        RETIRED = "retired"  # no value uses it any more

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="data_keys")
    version = models.PositiveIntegerField()
    kek_id = models.CharField(max_length=64)
    wrapped = models.TextField(editable=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(default=timezone.now)
    retired_at = models.DateTimeField(null=True, blank=True)

    objects = DataKeyQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "version"], name="datakey_tenant_version_unique"),
            models.UniqueConstraint(
                fields=["tenant"], condition=Q(status="active"), name="datakey_one_active_per_tenant"
            ),
        ]
        verbose_name = "data key (DEK)"
        verbose_name_plural = "data keys (DEKs)"

    def __str__(self) -> str:
        return f"{self.tenant_id} v{self.version} ({self.status})"


class CredentialQuerySet(TenantOwnedQuerySet, GenerationQuerySet):
    """Bulk writes make the credentials cached for use stale at once (vault.caches), but for a
    write that only counts accesses; `save()` and deletes do it through signals."""

    generation_caches = (IN_USE,)
    quiet_fields = ACCESS_FIELDS

    def live(self):
        return self.filter(LIVE)


# Not a tombstone: what lists and lookups by integration show.
LIVE = ~Q(status="deleted")


class Credential(models.Model):
    class AuthType(models.TextChoices):
        OAUTH2_BEARER = "oauth2_bearer"
        OAUTH2_CLIENT_CREDENTIALS = "oauth2_client_credentials"
        API_KEY = "api_key"
        BASIC_AUTH = "basic_auth"
        BEARER_TOKEN = "bearer_token"  # noqa: S105 (an auth type name)
        JWT = "jwt"
        SAML = "saml"
        CUSTOM = "custom"

    class Status(models.TextChoices):
        ACTIVE = "active"
        INACTIVE = "inactive"
        DELETED = "deleted"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="credentials")
    integration_id = models.CharField(max_length=255)
    name = models.CharField(max_length=255)
    description = models.TextField(max_length=2000, blank=True)
    auth_type = models.CharField(max_length=32, choices=AuthType.choices)
    scopes = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    token_endpoint = models.URLField(max_length=2048, blank=True)
    authorization_endpoint = models.URLField(max_length=2048, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    # Secrets: AES-256-GCM, bound to (tenant, credential, field); `dek_version` says which data key
    # encrypts all of them, so a DEK rotation finds the rows it still has to move. Deliberately in no
    # index: a row whose indexed columns are unchanged can be rewritten in place on PostgreSQL (a HOT
    # update, no new entry in any of the table's indexes), which is most of a rotation's cost.
    access_token = EncryptedField()
    refresh_token = EncryptedField()
    secrets = EncryptedField()  # a JSON object of strings, encrypted as one value
    dek_version = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(null=True, blank=True)
    is_expired = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.JSONField(default=dict)  # {id, name, email}: users, keys and clients alike
    updated_at = models.DateTimeField(null=True, blank=True)
    updated_by = models.JSONField(null=True, blank=True)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    access_count = models.BigIntegerField(default=0)
    last_refreshed_at = models.DateTimeField(null=True, blank=True)
    refresh_failed_at = models.DateTimeField(null=True, blank=True)
    refresh_error = models.JSONField(null=True, blank=True)  # {code, message}: never a token
    last_rotated_at = models.DateTimeField(null=True, blank=True)
    rotation_due_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.JSONField(null=True, blank=True)

    objects = CredentialQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "integration_id"],
                condition=~Q(status="deleted"),
                name="credential_one_live_per_integration",
            )
        ]
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="credential_tenant_created"),
            models.Index(fields=["tenant", "integration_id"], name="credential_tenant_integration"),
            models.Index(fields=["is_expired", "expires_at"], name="credential_expiry"),
        ]

    def __str__(self) -> str:
        return f"{self.integration_id} ({self.auth_type}, {self.status})"

    @property
    def public_id(self) -> str:
        return f"cred-{self.id}"


class CredentialTally(models.Model):
    """How many live (not deleted) credentials a tenant has: the sum of its rows here.

    The credential list's exact `total` reads these few rows instead of counting the tenant's
    credentials (a COUNT over 10,000 rows cost PostgreSQL more than the rest of the request).
    Database triggers on the credential table keep it (migration 0002), in the same transaction as
    the row they count, so every writer keeps it: the services, the admin, a bulk update, a cascade.
    On PostgreSQL a credential counts in one of `SLOTS` rows chosen by its id, so that concurrent
    stores of one tenant seldom wait for the same row lock; SQLite has one writer at a time and uses
    slot 0.
    """

    SLOTS = 16

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    slot = models.PositiveSmallIntegerField()
    live = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "slot"], name="credential_tally_tenant_slot"),
        ]

    def __str__(self) -> str:
        return f"{self.tenant_id} slot {self.slot}: {self.live}"


class DekRotation(models.Model):
    """Progress of one tenant's DEK rotation; the rows themselves say what is left to move."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress"
        COMPLETED = "completed"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="dek_rotations")
    from_version = models.PositiveIntegerField()
    to_version = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IN_PROGRESS)
    items_total = models.IntegerField(default=0)
    items_rotated = models.IntegerField(default=0)
    batches = models.IntegerField(default=0)
    job_run_id = models.UUIDField(null=True, blank=True)
    initiated_by = models.JSONField(default=dict)
    started_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant"], condition=Q(status="in_progress"), name="dek_rotation_one_running"
            )
        ]
        verbose_name = "DEK rotation"

    def __str__(self) -> str:
        return f"rot-{self.id} ({self.status})"

    @property
    def public_id(self) -> str:
        return f"rot-{self.id}"
