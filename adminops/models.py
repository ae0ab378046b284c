from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from oauth2_provider.models import AbstractApplication
from oauthlib.oauth2.rfc6749 import errors as oauth_errors

from adminops.authcache import API_KEYS, USAGE_FIELDS
from config.gencache import GenerationQuerySet


class AuthCachedQuerySet(GenerationQuerySet):
    """Bulk writes to rows that authentication caches (API keys, tenants) make the cached lookups
    stale at once (adminops.authcache), but for the usage statistics flushed onto a key's row;
    `save()` and deletes do it through signals."""

    generation_caches = (API_KEYS,)
    quiet_fields = USAGE_FIELDS


class TenantQuerySet(AuthCachedQuerySet):
    def active(self):
        return self.filter(status=Tenant.Status.ACTIVE)


class Tenant(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        SUSPENDED = "suspended"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=255, unique=True)
    display_name = models.CharField(max_length=255, blank=True)
    domain = models.CharField(max_length=255, blank=True)
    server_url = models.URLField(max_length=500, blank=True)
    realm_name = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    settings = models.JSONField(default=dict, blank=True)
    subscription = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantQuerySet.as_manager()

    def __str__(self) -> str:
        return self.name


class User(AbstractUser):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)

    @property
    def display_name(self) -> str:
        return self.get_full_name() or self.username


class Role(models.TextChoices):
    TENANT_ADMIN = "tenant_admin"
    INTEGRATION_ADMIN = "integration_admin"
    INTEGRATION_VIEWER = "integration_viewer"
    AUDIT_VIEWER = "audit_viewer"
    APPROVER = "approver"


class Membership(models.Model):
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    roles = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "tenant"], name="membership_user_tenant_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.tenant}: {', '.join(self.roles)}"


class IdentityRealm(models.Model):
    """An external OpenID Connect issuer whose users act in the tenant with mapped roles (DESIGN
    section 17): a request naming the realm in `realmname` is verified against the issuer's keys."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="identity_realms")
    name = models.CharField(max_length=255)
    issuer = models.URLField(max_length=500)
    audience = models.CharField(max_length=255)
    # Blank: read from the issuer's discovery document (`jwks_uri`).
    jwks_url = models.URLField(max_length=500, blank=True)
    username_claim = models.CharField(max_length=255, default="preferred_username")
    roles_claim = models.CharField(max_length=255, default="roles")
    role_mapping = models.JSONField(default=dict, blank=True)  # {external role: Role}
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.JSONField(default=dict, blank=True)  # actor {id, name, email}
    updated_at = models.DateTimeField(null=True, blank=True)
    updated_by = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="identity_realm_tenant_name_unique")
        ]
        indexes = [models.Index(fields=["name", "issuer"], name="identity_realm_name_issuer")]

    def __str__(self) -> str:
        return self.name

    @property
    def public_id(self) -> str:
        return f"realm-{self.id}"


class ApiKey(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        INACTIVE = "inactive"
        EXPIRED = "expired"
        REVOKED = "revoked"

    class Environment(models.TextChoices):
        LIVE = "live"
        TEST = "test"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=255)
    description = models.TextField(max_length=2000, blank=True)
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    tool_patterns = models.JSONField(default=list, blank=True)
    # Pinned connections, {domain: "conn_<hex>"}: a call of the domain's tools without a
    # connection_id runs on this one (if healthy) rather than the domain's default.
    connections = models.JSONField(default=dict, blank=True)
    protocol = models.CharField(max_length=16, blank=True)
    ip_whitelist = models.JSONField(default=list, blank=True)
    environment = models.CharField(max_length=8, choices=Environment.choices, default=Environment.LIVE)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    usage_count = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(null=True, blank=True)
    updated_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Rotation: during a grace period the previous key still authenticates until `previous_valid_until`.
    previous_key_hash = models.CharField(max_length=64, blank=True, db_index=True)
    previous_prefix = models.CharField(max_length=16, blank=True)
    previous_valid_until = models.DateTimeField(null=True, blank=True)
    last_rotated_at = models.DateTimeField(null=True, blank=True)
    rotated_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    rotation_count = models.IntegerField(default=0)
    # Usage beyond `usage_count`/`last_used_at`, flushed from the cache (adminops.usage).
    success_count = models.BigIntegerField(default=0)
    failure_count = models.BigIntegerField(default=0)
    first_used_at = models.DateTimeField(null=True, blank=True)
    last_used_ip = models.CharField(max_length=45, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.JSONField(default=dict, blank=True)  # actor {id, name, email}

    objects = AuthCachedQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant", "name"], name="api_key_tenant_name_unique")]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def usable_at(self, moment) -> bool:
        if self.status != self.Status.ACTIVE:
            return False
        return self.expires_at is None or self.expires_at > moment


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("Audit entries are append-only.")

    def delete(self):
        raise PermissionError("Audit entries are append-only.")

    def delete_archived(self) -> int:
        """Remove entries that `adminops.archive` has written to a checksummed archive file and
        recorded in AuditArchive, in the same transaction as that record: the only deletion."""
        deleted, _ = super().delete()
        return deleted


class AuditEntry(models.Model):
    """Append-only: rows are inserted by `adminops.audit.audit_record` and never changed."""

    class Status(models.TextChoices):
        SUCCESS = "success"
        FAILURE = "failure"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    chain = models.CharField(max_length=40)  # tenant id, or "platform" for entries without a tenant
    seq = models.BigIntegerField()
    tenant_id = models.UUIDField(null=True, blank=True)  # a plain value: entries outlive their tenant
    action = models.CharField(max_length=64)
    category = models.CharField(max_length=32)
    actor = models.JSONField(default=dict)
    actor_id = models.CharField(max_length=64, blank=True)
    resource = models.JSONField(default=dict)
    resource_type = models.CharField(max_length=64, blank=True)
    details = models.JSONField(default=dict)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.SUCCESS)
    request_id = models.CharField(max_length=128, blank=True)
    timestamp = models.DateTimeField(default=timezone.now)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["chain", "seq"], name="audit_chain_seq_unique")]
        indexes = [
            models.Index(fields=["tenant_id", "-timestamp"], name="audit_tenant_time"),
            models.Index(fields=["action"], name="audit_action"),
        ]
        verbose_name = "audit entry"
        verbose_name_plural = "audit trail"

    def __str__(self) -> str:
        return f"{self.action} #{self.seq}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionError("Audit entries are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("Audit entries are append-only.")


class AuditChainHead(models.Model):
    """The last link of each chain; its row lock serialises writers of one chain."""

    chain = models.CharField(max_length=40, primary_key=True)
    seq = models.BigIntegerField(default=0)
    last_hash = models.CharField(max_length=64, default="0" * 64)

    def __str__(self) -> str:
        return f"{self.chain} @ {self.seq}"


class AuditArchive(models.Model):
    """One archive file: a run of consecutive entries of one chain (`first_seq`..`last_seq`), moved
    out of AuditEntry by the auditLogArchive job. Verification reads the file, checks `sha256`, and
    continues the chain from `last_hash` (adminops.archive)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    chain = models.CharField(max_length=40)
    tenant_id = models.UUIDField(null=True, blank=True)  # None: the platform chains
    first_seq = models.BigIntegerField()
    last_seq = models.BigIntegerField()
    prev_hash = models.CharField(max_length=64)  # the link the first entry continues
    last_hash = models.CharField(max_length=64)
    entries = models.IntegerField()
    first_timestamp = models.DateTimeField()
    last_timestamp = models.DateTimeField()
    path = models.CharField(max_length=300)  # relative to AUDIT_ARCHIVE_DIR
    sha256 = models.CharField(max_length=64)
    size_bytes = models.BigIntegerField()
    job_run_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chain", "first_seq"], name="audit_archive_chain_start")
        ]
        indexes = [models.Index(fields=["tenant_id", "-created_at"], name="audit_archive_tenant")]

    def __str__(self) -> str:
        return f"{self.chain} #{self.first_seq}..#{self.last_seq}"


class UsageReport(models.Model):
    """A tenant's usage in one calendar month (or the month so far), written by reportGeneration:
    counts and names only, never a secret. One per tenant and month; a later run replaces it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="usage_reports")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    complete = models.BooleanField(default=False)  # the whole month, not the month so far
    content = models.JSONField(default=dict)
    generated_at = models.DateTimeField(default=timezone.now)
    job_run_id = models.UUIDField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "period_start"], name="usage_report_tenant_month")
        ]

    def __str__(self) -> str:
        return f"{self.tenant} {self.period_start:%Y-%m}"


class JobRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        STARTED = "started"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    job_name = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    tenant_id = models.UUIDField(null=True, blank=True)
    params = models.JSONField(default=dict, blank=True)  # ids only, never secrets
    triggered_by = models.JSONField(default=dict, blank=True)
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    items = models.IntegerField(default=0)
    outcome = models.TextField(blank=True)
    duration_ms = models.IntegerField(null=True, blank=True)
    attempts = models.IntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["job_name", "-queued_at"], name="jobrun_name_time")]

    def __str__(self) -> str:
        return f"{self.job_name} {self.status}"


class OAuthClientQuerySet(models.QuerySet):
    def registered(self):
        """The clients registered through the API or console, without service accounts' own."""
        return self.filter(service_account__isnull=True)


class OAuthClientManager(models.Manager.from_queryset(OAuthClientQuerySet)):
    def get_queryset(self):
        # OAuthClient.is_usable reads the tenant on every token request.
        return super().get_queryset().select_related("tenant")


class OAuthClient(AbstractApplication):
    """An OAuth client of this service and django-oauth-toolkit's application model
    (OAUTH2_PROVIDER_APPLICATION_MODEL). Its secret is stored only hashed (adminops.hashers).
    Redirect URIs, origins and grant types stay lists: the methods below answer the library's
    questions from them."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        INACTIVE = "inactive"
        DELETED = "deleted"

    class ClientType(models.TextChoices):
        CONFIDENTIAL = "confidential"
        PUBLIC = "public"

    # The library's single grant type gives way to the list of grants the client may use.
    authorization_grant_type = None
    # oauthlib's grant names mapped onto the library's (oauth2_provider.oauth2_validators).
    _LIBRARY_GRANTS = {
        AbstractApplication.GRANT_AUTHORIZATION_CODE: "authorization_code",
        AbstractApplication.GRANT_CLIENT_CREDENTIALS: "client_credentials",
    }

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="oauth_clients")
    name = models.CharField(max_length=255)
    description = models.TextField(max_length=2000, blank=True)
    client_id = models.CharField(max_length=64, unique=True)
    client_type = models.CharField(max_length=16, choices=ClientType.choices, default=ClientType.CONFIDENTIAL)
    redirect_uris = models.JSONField(default=list, blank=True)
    grant_types = models.JSONField(default=list, blank=True)
    scopes = models.JSONField(default=list, blank=True)
    tool_patterns = models.JSONField(default=list, blank=True)
    allowed_origins = models.JSONField(default=list, blank=True)
    ip_whitelist = models.JSONField(default=list, blank=True)
    # Seconds: {"accessTokenLifetime": ..., "refreshTokenLifetime": ...}; missing keys: the defaults.
    token_settings = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    token_requests = models.BigIntegerField(default=0)
    successful_token_requests = models.BigIntegerField(default=0)
    failed_token_requests = models.BigIntegerField(default=0)
    first_used_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_ip = models.CharField(max_length=45, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.JSONField(default=dict, blank=True)  # actor {id, name, email}
    updated_at = models.DateTimeField(null=True, blank=True)
    updated_by = models.JSONField(default=dict, blank=True)
    last_secret_rotated_at = models.DateTimeField(null=True, blank=True)
    secret_rotation_count = models.IntegerField(default=0)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.JSONField(default=dict, blank=True)

    objects = OAuthClientManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "name"],
                condition=~models.Q(status="deleted"),
                name="oauth_client_tenant_name_unique",
            )
        ]
        verbose_name = "OAuth client"

    def __str__(self) -> str:
        return f"{self.name} ({self.client_id})"

    def allows_grant_type(self, *grant_types) -> bool:
        return any(self._LIBRARY_GRANTS.get(g) in self.grant_types for g in grant_types)

    def is_usable(self, request) -> bool:
        return self.status == self.Status.ACTIVE and self.tenant.status == Tenant.Status.ACTIVE

    @property
    def default_redirect_uri(self) -> str:
        if len(self.redirect_uris) != 1:
            raise oauth_errors.MissingRedirectURIError()
        return self.redirect_uris[0]

    def redirect_uri_allowed(self, uri: str) -> bool:
        return uri in self.redirect_uris  # matched exactly (named-endpoints 5.1)

    def origin_allowed(self, origin) -> bool:
        return origin in self.allowed_origins

    def clean(self) -> None:
        """Checked by adminops.services.oauth (the library's checks read its text fields)."""


class ServiceAccount(models.Model):
    """A machine identity of one tenant that obtains tokens from /oauth/token with its id and secret."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        INACTIVE = "inactive"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="service_accounts")
    name = models.CharField(max_length=255)
    # Its credentials at the token endpoint: a client-credentials client of its own, kept out of
    # the OAuth-client listings (OAuthClient.objects.registered()).
    oauth_client = models.OneToOneField(OAuthClient, on_delete=models.CASCADE, related_name="service_account")
    permissions = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    last_used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="service_account_tenant_name_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.client_id})"

    @property
    def client_id(self) -> str:
        return self.oauth_client.client_id
