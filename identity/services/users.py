"""Writes of the identity core: logins (audited), tenants, users, memberships, API keys."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils import timezone
from rest_framework_simplejwt.exceptions import TokenError
from rest_framework_simplejwt.settings import api_settings as jwt_settings
from rest_framework_simplejwt.tokens import RefreshToken

from core.api.errors import NotAuthenticated, value_error
from core.api.ids import prefixed_uuid
from core.api.ratelimit import Bucket, rate_limit_hit
from core.audit import audit_record
from core.console import EVERY_CONSOLE_ROLE
from core.models import Role, Tenant
from core.people import person
from identity.keys import api_key_display_prefix, api_key_generate, api_key_hash
from identity.models import ApiKey, Membership, RefreshFamily, User


def _token_pair(refresh: RefreshToken) -> dict:
    access = refresh.access_token
    return {
        "access": str(access),
        "refresh": str(refresh),
        "tokenType": "Bearer",
        "expiresIn": int(access.lifetime.total_seconds()),
    }


def _family_start(user: User) -> dict:
    """A sign-in's first token pair, its refresh token the first of a new family."""
    refresh = RefreshToken.for_user(user)
    family = RefreshFamily.objects.create(user=user, current_jti=refresh["jti"])
    refresh["fam"] = str(family.id)
    return _token_pair(refresh)


def auth_login(
    *, username: str, password: str, ip_address: str | None, request_id: str, tenant_hint: uuid.UUID | None
) -> dict:
    """Check a password, audit the attempt (USER_LOGIN / USER_LOGIN_FAILED), issue a token pair."""
    user = authenticate(username=username, password=password)
    known = user or User.objects.filter(username=username).first()
    tenant = _login_tenant(known, tenant_hint)
    actor = {
        "type": "user",
        "id": str(known.id) if known else "",
        "name": username,
        "email": getattr(known, "email", ""),
        "ipAddress": ip_address,
    }
    resource = {"type": "user", "id": str(known.id) if known else "", "name": username}
    if user is None:
        audit_record(
            tenant=tenant,
            action="USER_LOGIN_FAILED",
            category="authentication",
            actor=actor,
            resource=resource,
            details={"method": "password", "reason": "invalid_credentials"},
            status="failure",
            request_id=request_id,
        )
        raise NotAuthenticated("Invalid username or password.")
    with transaction.atomic():
        audit_record(
            tenant=tenant,
            action="USER_LOGIN",
            category="authentication",
            actor=actor,
            resource=resource,
            details={"method": "password", "identityProvider": "local"},
            request_id=request_id,
        )
        return _family_start(user)


def sign_in_rate_limit(*, ip_address: str | None, username: str) -> None:
    """Count a sign-in attempt per address and per username (RATE_LIMIT_LOGIN): 429 when spent.
    The API's token endpoints and the console's and OAuth provider's sign-in pages count alike."""
    rate = settings.RATE_LIMIT_LOGIN
    rate_limit_hit([Bucket("login-ip", ip_address or "-", rate), Bucket("login", username, rate)])


def session_sign_in_audit(*, user: User | None, username: str, channel: str, ip_address: str | None) -> None:
    """USER_LOGIN or USER_LOGIN_FAILED for a sign-in on a page (`channel`: console, oauth), in the
    user's first tenant's chain (the platform's for an unknown name)."""
    known = user or User.objects.filter(username=username).first()
    audit_record(
        tenant=_login_tenant(known, None),
        action="USER_LOGIN" if user else "USER_LOGIN_FAILED",
        category="authentication",
        actor={
            "type": "user",
            "id": str(known.id) if known else "",
            "name": username,
            "email": getattr(known, "email", ""),
            "ipAddress": ip_address,
        },
        resource={"type": "user", "id": str(known.id) if known else "", "name": username},
        details={"method": "password", "channel": channel}
        | ({} if user else {"reason": "invalid_credentials"}),
        status="success" if user else "failure",
    )


def _login_tenant(user: User | None, tenant_hint: uuid.UUID | None) -> Tenant | None:
    """The chain a login is recorded in: the tenant named in x-tenantid when the user belongs to it,
    else the user's first tenant, else the platform chain."""
    if user is None:
        return None
    memberships = Membership.objects.filter(user=user).select_related("tenant").order_by("created_at")
    chosen = next((m for m in memberships if m.tenant_id == tenant_hint), None) or memberships.first()
    return chosen.tenant if chosen else None


def auth_refresh(*, refresh: str, ip_address: str | None, request_id: str) -> dict:
    """A new token pair for the family's newest refresh token. An older one of the family revokes
    the family (audited), as the OAuth provider does with its refresh tokens (RFC 9700 4.14.2)."""
    refused = NotAuthenticated("Invalid or expired refresh token.")
    try:
        token = RefreshToken(refresh)
    except TokenError as exc:
        raise refused from exc
    family_id = prefixed_uuid(str(token.get("fam", "")))
    with transaction.atomic():
        family = RefreshFamily.objects.select_for_update().select_related("user").filter(id=family_id).first()
        if family is None or family.revoked_at is not None or not family.user.is_active:
            raise refused
        reused = family.current_jti != token["jti"]
        if reused:
            family.revoked_at = timezone.now()
        else:
            token.set_jti()
            token.set_exp()
            token.set_iat()
            family.current_jti, family.refreshed_at = token["jti"], timezone.now()
        family.save(update_fields=["revoked_at", "current_jti", "refreshed_at"])
        if reused:
            _reuse_audit(family, ip_address, request_id)
    if reused:
        raise refused
    return _token_pair(token)


def refresh_families_purge() -> int:
    """Families whose newest refresh token has expired can refresh no more: the cleanup job
    removes them."""
    expired = timezone.now() - jwt_settings.REFRESH_TOKEN_LIFETIME
    deleted, _ = RefreshFamily.objects.filter(refreshed_at__lt=expired).delete()
    return deleted


def _reuse_audit(family: RefreshFamily, ip_address: str | None, request_id: str) -> None:
    user = family.user
    audit_record(
        tenant=_login_tenant(user, None),
        action="REFRESH_TOKEN_REUSED",
        category="authentication",
        actor={
            "type": "user",
            "id": str(user.id),
            "name": user.username,
            "email": user.email,
            "ipAddress": ip_address,
        },
        resource={"type": "user", "id": str(user.id), "name": user.username},
        details={"reason": "an older refresh token of the sign-in was presented; its tokens are revoked"},
        status="failure",
        request_id=request_id,
    )


def tenant_create(*, name: str, domain: str = "") -> Tenant:
    if Tenant.objects.filter(name=name).exists():
        raise value_error("name", f"A tenant named {name!r} already exists.")
    return Tenant.objects.create(name=name, display_name=name, domain=domain)


def tenant_user_create(
    *, tenant: Tenant, username: str, password: str, roles: list[str], email: str = ""
) -> User:
    roles_check(roles)
    with transaction.atomic():
        user = User.objects.filter(username=username).first()
        if user is None:
            _password_check(password, User(username=username, email=email))
            user = User.objects.create_user(username=username, password=password, email=email)
        membership_grant(tenant=tenant, user=user, roles=roles)
    return user


def _password_check(password: str, user: User) -> None:
    """Django's password validators (AUTH_PASSWORD_VALIDATORS), as every way of making a user runs
    them: 422 naming `password`."""
    try:
        validate_password(password, user)
    except DjangoValidationError as exc:
        raise value_error("password", " ".join(exc.messages)) from None


# Memberships change only through the three functions below, so that staff status (who may sign in
# to the console, DESIGN section 3) follows the roles held.


def roles_check(roles: list[str]) -> None:
    unknown = sorted(set(roles) - set(Role.values))
    if unknown:
        raise value_error("role", f"Unknown role(s) {', '.join(unknown)}; allowed: {', '.join(Role.values)}.")


def membership_grant(*, tenant: Tenant, user: User, roles: list[str]) -> Membership:
    """Give `user` exactly `roles` in `tenant` (creating the membership if needed)."""
    roles_check(roles)
    with transaction.atomic():
        membership, _ = Membership.objects.update_or_create(
            user=user, tenant=tenant, defaults={"roles": sorted(set(roles))}
        )
        console_access_sync(user_ids=[user.pk])
    return membership


def membership_save(*, membership: Membership) -> Membership:
    """Save a membership edited as a whole (the console's inline rows): its user may have changed."""
    roles_check(membership.roles)
    before = Membership.objects.filter(pk=membership.pk).values_list("user_id", flat=True).first()
    with transaction.atomic():
        membership.roles = sorted(set(membership.roles))
        membership.save()
        console_access_sync(user_ids=[membership.user_id, before])
    return membership


def membership_remove(*, membership: Membership) -> None:
    with transaction.atomic():
        membership.delete()
        console_access_sync(user_ids=[membership.user_id])


def console_access_sync(*, user_ids) -> None:
    """Make staff exactly the users who hold a console role in some tenant; superusers keep theirs.
    Also called after a tenant's memberships went with the tenant."""
    user_ids = {user_id for user_id in user_ids if user_id is not None}
    rows = Membership.objects.filter(user_id__in=user_ids).values_list("user_id", "roles")
    console = {user_id for user_id, roles in rows if EVERY_CONSOLE_ROLE & set(roles)}
    users = User.objects.filter(id__in=user_ids, is_superuser=False)
    users.filter(id__in=console, is_staff=False).update(is_staff=True)
    users.exclude(id__in=console).filter(is_staff=True).update(is_staff=False)


def api_key_create(
    *,
    tenant: Tenant,
    name: str,
    scopes: list[str],
    tool_patterns: list[str] | None = None,
    environment: str = ApiKey.Environment.LIVE,
    actor: dict,
    created_by: User | None = None,
    request_id: str = "",
    **fields,
) -> tuple[ApiKey, str]:
    """Create a key; the raw key is returned here once and stored only as a keyed hash."""
    raw = api_key_generate(environment)
    fields["created_by_actor"] = person(actor)
    with transaction.atomic():
        key = _api_key_insert(tenant, name, scopes, tool_patterns, environment, raw, created_by, fields)
        audit_record(
            tenant=tenant,
            action="API_KEY_CREATED",
            category="api_keys",
            actor=actor,
            resource={"type": "api_key", "id": str(key.id), "name": key.name},
            details={"prefix": key.prefix, "scopes": key.scopes, "environment": environment},
            request_id=request_id,
        )
    return key, raw


def _api_key_insert(tenant, name, scopes, tool_patterns, environment, raw, created_by, fields) -> ApiKey:
    return ApiKey.objects.create(
        tenant=tenant,
        name=name,
        scopes=scopes,
        tool_patterns=tool_patterns or [],
        environment=environment,
        prefix=api_key_display_prefix(raw),
        key_hash=api_key_hash(raw),
        created_by=created_by,
        **fields,
    )
