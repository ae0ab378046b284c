"""People and machines that call the service: users and their memberships (roles per tenant), API
keys, OAuth clients (django-oauth-toolkit's application model) and service accounts, identity realms.

The tables keep the names they were created with (`db_table`), so an upgraded database keeps its
rows where they are."""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from oauth2_provider.models import AbstractApplication, redirect_to_uri_allowed
from oauthlib.oauth2.rfc6749 import errors as oauth_errors

from core.gencache import GenerationQuerySet
from core.models import Tenant, TenantOwnedQuerySet
from core.scopes import REGISTRABLE_SCOPES
from identity.authcache import API_KEYS, USAGE_FIELDS
from identity.redirects import is_loopback, redirect_uri_problem


class ApiKeyQuerySet(TenantOwnedQuerySet, GenerationQuerySet):
    """Bulk writes to API keys make the cached lookups stale at once (identity.authcache), but for
    the usage statistics flushed onto a key's row; `save()` and deletes do it through signals."""

    generation_caches = (API_KEYS,)
    quiet_fields = USAGE_FIELDS


class User(AbstractUser):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)

    class Meta(AbstractUser.Meta):
        db_table = "adminops_user"

    @property
    def display_name(self) -> str:
        return self.get_full_name() or self.username


class RefreshFamily(models.Model):
    """The refresh tokens of one sign-in (`POST /api/v1/auth/token`): each refresh answers a new
    refresh token and only the newest (`current_jti`) is good. Presenting an older one means it was
    copied, so the whole family is revoked (`revoked_at`): neither copy refreshes again."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    current_jti = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)
    refreshed_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user} since {self.created_at:%Y-%m-%d %H:%M}"


class Membership(models.Model):
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memberships")
    roles = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "tenant"], name="membership_user_tenant_unique")
        ]
        db_table = "adminops_membership"

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
    groups_claim = models.CharField(max_length=255, default="groups")
    # {token group: [source principal, ...]} (DESIGN section 19).
    group_mapping = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.JSONField(default=dict, blank=True)  # actor {id, name, email}
    updated_at = models.DateTimeField(null=True, blank=True)
    updated_by = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="identity_realm_tenant_name_unique")
        ]
        indexes = [models.Index(fields=["name", "issuer"], name="identity_realm_name_issuer")]
        db_table = "adminops_identityrealm"

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
    # The person accountable for the key: who made it, or the person behind the API key that made it
    # (an approver may not decide the calls of keys that are theirs this way either).
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by_actor = models.JSONField(default=dict, blank=True)  # who made it, person or machine
    updated_at = models.DateTimeField(null=True, blank=True)
    updated_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Rotation: during a grace period the previous key still authenticates until `previous_valid_until`.
    previous_key_hash = models.CharField(max_length=64, blank=True, db_index=True)
    previous_prefix = models.CharField(max_length=16, blank=True)
    previous_valid_until = models.DateTimeField(null=True, blank=True)
    last_rotated_at = models.DateTimeField(null=True, blank=True)
    rotated_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    rotation_count = models.IntegerField(default=0)
    # Usage beyond `usage_count`/`last_used_at`, flushed from the cache (identity.usage).
    success_count = models.BigIntegerField(default=0)
    failure_count = models.BigIntegerField(default=0)
    first_used_at = models.DateTimeField(null=True, blank=True)
    last_used_ip = models.CharField(max_length=45, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.JSONField(default=dict, blank=True)  # actor {id, name, email}

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant", "name"], name="api_key_tenant_name_unique")]
        db_table = "adminops_apikey"
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def usable_at(self, moment) -> bool:
        if self.status != self.Status.ACTIVE:
            return False
        return self.expires_at is None or self.expires_at > moment


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
    (OAUTH2_PROVIDER_APPLICATION_MODEL). Its secret is stored only hashed (identity.hashers).
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
    # None: a client that registered itself (RFC 7591) or is known by its metadata document's URL;
    # each person's consent binds their grant to one of their tenants (identity.provider).
    tenant = models.ForeignKey(
        Tenant, on_delete=models.CASCADE, related_name="oauth_clients", null=True, blank=True
    )
    name = models.CharField(max_length=255)
    description = models.TextField(max_length=2000, blank=True)
    client_id = models.CharField(max_length=255, unique=True)  # a metadata document's URL fits
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
        db_table = "adminops_oauthclient"
        verbose_name = "OAuth client"

    def __str__(self) -> str:
        return f"{self.name} ({self.client_id})"

    def allows_grant_type(self, *grant_types) -> bool:
        return any(self._LIBRARY_GRANTS.get(g) in self.grant_types for g in grant_types)

    def is_usable(self, request) -> bool:
        if self.status != self.Status.ACTIVE:
            return False
        return self.tenant_id is None or self.tenant.status == Tenant.Status.ACTIVE

    @property
    def default_redirect_uri(self) -> str:
        if len(self.redirect_uris) != 1:
            raise oauth_errors.MissingRedirectURIError()
        return self.redirect_uris[0]

    def redirect_uri_allowed(self, uri: str) -> bool:
        """Matched exactly (named-endpoints 5.1), but that a loopback redirect URI matches on any
        port (RFC 8252 section 7.3): the library's matching, fed this client's list."""
        return redirect_to_uri_allowed(uri, list(self.redirect_uris))

    def get_allowed_schemes(self) -> list[str]:
        """The schemes the library may redirect to for this client: http only for loopback ones."""
        return ["https", "http"] if any(is_loopback(uri) for uri in self.redirect_uris) else ["https"]

    def origin_allowed(self, origin) -> bool:
        return origin in self.allowed_origins

    def clean(self) -> None:
        """The clients the library registers itself, from a client ID metadata document
        (`oauth2_provider.cimd`), come with their redirect URIs as its text field and no grant
        list: they are read into this model's lists and held to the rule every client is held to.
        Clients registered through this service are checked by identity.services.oauth."""
        if self.registration_source != self.RegistrationSource.CIMD:
            return
        if isinstance(self.redirect_uris, str):
            self.redirect_uris = self.redirect_uris.split()
        self.name = (self.name or urlsplit(self.client_id).hostname or self.client_id)[:255]
        self.grant_types = ["authorization_code", "refresh_token"]
        self.scopes = self.scopes or list(REGISTRABLE_SCOPES)
        self.client_secret, self.hash_client_secret = "", False  # a public client has no secret
        problems = [problem for problem in map(redirect_uri_problem, self.redirect_uris) if problem]
        if problems:
            raise ValidationError({"redirect_uris": problems})


class OAuthCodeUse(models.Model):
    """An authorization code that was exchanged, and what the exchange issued: the same code
    presented again means it leaked, and the tokens it issued are revoked (RFC 6749 section 4.1.2).
    Codes and tokens are kept only as their SHA-256, as the library keeps tokens."""

    code_hash = models.CharField(max_length=64, unique=True)
    client = models.ForeignKey(OAuthClient, on_delete=models.CASCADE, related_name="+")
    access_token_hash = models.CharField(max_length=64)
    token_family = models.UUIDField(null=True, blank=True)  # the refresh tokens descended from it
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = "OAuth code use"

    def __str__(self) -> str:
        return f"code {self.code_hash[:12]}… of {self.client_id}"


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
        db_table = "adminops_serviceaccount"

    def __str__(self) -> str:
        return f"{self.name} ({self.client_id})"

    @property
    def client_id(self) -> str:
        return self.oauth_client.client_id
