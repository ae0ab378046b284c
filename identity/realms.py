"""Identity realms (DESIGN section 17): the realm a request names, its issuer's signing keys, and
the verification of a realm's token into a principal. Writes live in `identity.services.realms`.

Keys: the issuer's discovery document (`{issuer}/.well-known/openid-configuration`) names
`jwks_uri`, unless the realm names its JWKS URL itself; both are read through the outbound client
(guard, timeouts). The JWK set is kept per realm in a generation cache (`core.gencache`) for
`REALM_JWKS_CACHE_SECONDS`; a write to the realm drops it (`realm_keys_forget`). A token whose `kid`
is not in the cached set makes the set be read again, at most once per
`REALM_JWKS_REFETCH_SECONDS` per realm, so that made-up `kid`s cannot make us hammer the issuer.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid

import jwt
import requests
from django.conf import settings
from django.core.cache import cache

from core.api.errors import NotAuthenticated, ResourceNotFound, ServiceUnavailable
from core.audit import audit_record, client_ip
from core.gencache import GenerationCache
from core.models import Tenant
from core.outbound import OutboundRefused, outbound_session
from core.principals import Principal
from core.tenancy import tenant_id_hint
from identity.models import IdentityRealm

logger = logging.getLogger(__name__)

# Asymmetric algorithms only: never `none`, never HMAC (a realm's keys are public, DESIGN 17).
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
FETCH_TIMEOUT = (3.0, 5.0)  # connect, read: a request waits on the issuer only this long
CHALLENGE = 'Bearer realm="api"'


def realm_get(*, tenant: Tenant, realm_id: uuid.UUID) -> IdentityRealm:
    realm = IdentityRealm.objects.filter(tenant=tenant, id=realm_id).first()
    if realm is None:
        raise ResourceNotFound("Identity realm not found.", code="REALM_NOT_FOUND")
    return realm


def realm_list(*, tenant: Tenant):
    return IdentityRealm.objects.filter(tenant=tenant).order_by("name", "id")


def realm_named(*, tenant_id: uuid.UUID, name: str) -> IdentityRealm | None:
    return IdentityRealm.objects.select_related("tenant").filter(tenant_id=tenant_id, name=name).first()


def realms_elsewhere(*, name: str, issuer: str, tenant_id: uuid.UUID | None) -> list[IdentityRealm]:
    """Other tenants' realms of this name and issuer (a token of one of them is 403, not 401)."""
    realms = IdentityRealm.objects.select_related("tenant").filter(name=name, issuer=issuer)
    return list(realms.exclude(tenant_id=tenant_id)[:5])


def realm_authenticate(request, *, name: str, token: str) -> Principal | None:
    """The principal of a request that names realm `name` and carries a JWT `token`.

    A realm of that name in the tenant of `x-tenantid` verifies the token (401 when it does not).
    With none, None: the service's own JWTs still apply, and any other token will be 401; but a
    token of another tenant's realm of that name authenticates, as a user of that tenant, whom
    tenant resolution then refuses (403)."""
    tenant_id = tenant_id_hint(request)
    realm = realm_named(tenant_id=tenant_id, name=name) if tenant_id else None
    if realm is not None:
        return _realm_login(request, realm, token, realm_token_claims(realm, token))
    issuer = unverified_issuer(token)
    for other in realms_elsewhere(name=name, issuer=issuer, tenant_id=tenant_id) if issuer else []:
        try:
            claims = realm_token_claims(other, token)
        except (NotAuthenticated, ServiceUnavailable):
            continue
        return _realm_login(request, other, token, claims)
    return None


def _realm_login(request, realm: IdentityRealm, token: str, claims: dict) -> Principal:
    """The realm's user, audited the first time one token is used (USER_LOGIN), not on every call."""
    principal = realm_principal(realm, claims)
    seen = hashlib.sha256(str(claims.get("jti") or token).encode()).hexdigest()
    lifetime = int(claims["exp"] - time.time()) + settings.REALM_JWT_LEEWAY_SECONDS
    # Remembered while the token lives (at most a day: a longer-lived token is audited daily).
    first = _cache_call(cache.add, f"realm-login:{realm.id}:{seen}", 1, min(max(1, lifetime), 86400))
    if first is not False:
        audit_record(
            tenant=realm.tenant,
            action="USER_LOGIN",
            category="authentication",
            actor=principal.as_actor(client_ip(request)),
            resource={"type": "identity_realm", "id": realm.public_id, "name": realm.name},
            details={
                "method": "identity_realm",
                "identityProvider": realm.issuer,
                "roles": sorted(principal.realm_roles),
            },
            request_id=getattr(request, "request_id", None),
        )
    return principal


def invalid_token(message: str = "Invalid or expired token.") -> NotAuthenticated:
    return NotAuthenticated(message, headers={"WWW-Authenticate": CHALLENGE})


def realm_token_claims(realm: IdentityRealm, token: str) -> dict:
    """The verified claims of `token` for `realm` (401 when it does not verify): signature by one
    of the issuer's keys, an allowed algorithm, `iss`, `aud`, `exp`, `nbf` and `iat` with
    `REALM_JWT_LEEWAY_SECONDS` of leeway."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise invalid_token() from None
    alg = header.get("alg")
    if alg not in ALGORITHMS:
        raise invalid_token("The token's signing algorithm is not accepted.")
    key = _signing_key(realm, header.get("kid"), alg)
    try:
        return jwt.decode(
            token,
            key,
            algorithms=[alg],
            audience=realm.audience,
            issuer=realm.issuer,
            leeway=settings.REALM_JWT_LEEWAY_SECONDS,
            options={"require": ["exp", "iss", "aud"]},
        )
    except jwt.PyJWTError as exc:
        logger.info("Realm %s refused a token: %s", realm.id, type(exc).__name__)
        raise invalid_token() from None


def unverified_issuer(token: str) -> str | None:
    """The `iss` a token claims, before any check: only to pick the realms worth verifying against."""
    try:
        issuer = jwt.decode(token, options={"verify_signature": False}).get("iss")
    except jwt.PyJWTError:
        return None
    # Only a value a realm could hold is looked up (PostgreSQL refuses NUL in a query).
    return issuer if isinstance(issuer, str) and len(issuer) <= 500 and issuer.isprintable() else None


def realm_principal(realm: IdentityRealm, claims: dict) -> Principal:
    """The realm's user: named by the username claim, with the roles its roles claim maps to."""
    username = claim(claims, realm.username_claim)
    if not isinstance(username, str) or not username:
        raise invalid_token(f"The token has no {realm.username_claim} claim.")
    email = claims.get("email")
    return Principal(
        kind="realm_user",
        id=_actor_id(str(claims.get("sub") or username)),
        name=username,
        email=email if isinstance(email, str) else "",
        tenant_id=realm.tenant_id,
        realm_roles=mapped_roles(realm, claim(claims, realm.roles_claim)),
        realm=realm.name,
        realm_groups=token_groups(claim(claims, realm.groups_claim)),
    )


def claim(claims: dict, name: str):
    """A claim by name, or by a dotted path into nested objects (`realm_access.roles`)."""
    if name in claims:
        return claims[name]
    value = claims
    for part in name.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def mapped_roles(realm: IdentityRealm, external) -> frozenset[str]:
    """This service's roles for the external ones; roles the mapping does not name are ignored."""
    if isinstance(external, str):
        external = [external]
    if not isinstance(external, list):
        return frozenset()
    mapping = realm.role_mapping or {}
    return frozenset(mapping[role] for role in external if isinstance(role, str) and role in mapping)


def token_groups(value) -> frozenset[str]:
    """The groups a token's groups claim names (one name, or a list of them)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return frozenset()
    return frozenset(group for group in value if isinstance(group, str) and group.strip())


def _actor_id(subject: str) -> str:
    # Audit actor ids hold 64 characters; a longer subject is named by its digest.
    return subject if len(subject) <= 64 else "sha256:" + hashlib.sha256(subject.encode()).hexdigest()[:57]


# ---- keys


# An issuer's keys, not rows: cached in each process too, without Redis (a realm is changed through
# the web process, which forgets its keys then).
REALM_KEYS = GenerationCache("realm-jwks", ttl=settings.REALM_JWKS_CACHE_SECONDS, rows=False)


def _refetch_key(realm_id) -> str:
    return f"realm-jwks-refetch:{realm_id}"


def realm_keys_forget(realm_id) -> None:
    """Drop a realm's cached keys (its issuer or JWKS URL changed, or it was deleted), now and once
    the change commits, and let its next unknown `kid` read the keys at once."""
    REALM_KEYS.invalidate(scope=str(realm_id))
    _cache_call(cache.delete, _refetch_key(realm_id))


def _signing_key(realm: IdentityRealm, kid, alg: str) -> jwt.PyJWK:
    jwks, fresh = _jwks(realm)
    key = _key_in(jwks, kid, alg)
    if key is None and not fresh and _refetch_allowed(realm):
        key = _key_in(_jwks(realm, refresh=True)[0], kid, alg)
    if key is None:
        raise invalid_token("The token is not signed by one of the realm's keys.")
    return key


def _key_in(jwks: dict, kid, alg: str) -> jwt.PyJWK | None:
    """The signing key `kid` of the set, bound to `alg`; without a `kid`, the first that fits."""
    for data in jwks.get("keys") or []:
        if not isinstance(data, dict) or data.get("use", "sig") != "sig":
            continue
        if (kid is not None and data.get("kid") != kid) or data.get("alg", alg) != alg:
            continue
        try:
            return jwt.PyJWK(data, algorithm=alg)
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue  # a key of another type than `alg` needs, or a malformed one
    return None


def _refetch_allowed(realm: IdentityRealm) -> bool:
    added = _cache_call(cache.add, _refetch_key(realm.id), 1, settings.REALM_JWKS_REFETCH_SECONDS)
    return added is not False


def _jwks(realm: IdentityRealm, *, refresh: bool = False) -> tuple[dict, bool]:
    """(the realm's JWK set, whether it was read from the issuer just now)."""
    scope = str(realm.id)
    if refresh:
        REALM_KEYS.invalidate(scope=scope)
    fetched = []

    def fetch() -> dict:
        fetched.append(True)
        return _fetch_jwks(realm)

    return REALM_KEYS.lookup(scope, fetch, scope=scope), bool(fetched)


def _fetch_jwks(realm: IdentityRealm) -> dict:
    session = outbound_session(timeout=FETCH_TIMEOUT, retries=0)
    try:
        url = realm.jwks_url or _discovered_jwks_uri(session, realm)
        jwks = _get_json(session, url)
        if not isinstance(jwks.get("keys"), list):
            raise ValueError("The JWK set has no keys.")
    except (requests.RequestException, OutboundRefused, ValueError) as exc:
        logger.warning("Realm %s: the issuer's keys could not be read: %s", realm.id, exc)
        raise ServiceUnavailable(
            "The identity realm's signing keys could not be read from its issuer.",
            code="REALM_KEYS_UNAVAILABLE",
        ) from None
    finally:
        session.close()
    return {"keys": jwks["keys"]}


def _discovered_jwks_uri(session, realm: IdentityRealm) -> str:
    document = _get_json(session, realm.issuer.rstrip("/") + "/.well-known/openid-configuration")
    if document.get("issuer") != realm.issuer:
        raise ValueError("The discovery document names another issuer.")
    jwks_uri = document.get("jwks_uri")
    if not isinstance(jwks_uri, str) or not jwks_uri.startswith("https://"):
        raise ValueError("The discovery document has no HTTPS jwks_uri.")
    return jwks_uri


def _get_json(session, url: str) -> dict:
    response = session.get(url, headers={"Accept": "application/json"})
    response.raise_for_status()
    body = response.json()
    if not isinstance(body, dict):
        raise ValueError("The answer is not a JSON object.")
    return body


def _cache_call(function, *args):
    """The cache speeds the keys up; when it is down, the issuer is asked (never a 500)."""
    try:
        return function(*args)
    except Exception as exc:  # any failure of the cache backend
        logger.warning("Realm key cache unavailable: %s", exc)
        return None
