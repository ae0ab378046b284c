"""Identity realms of a tenant (DESIGN section 17): create, update, delete, each audited, each
dropping the realm's cached signing keys."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.api.errors import Conflict, value_error
from core.audit import audit_record
from core.models import Tenant
from core.outbound import guard_field
from core.people import person
from core.readers import principals
from identity.models import IdentityRealm
from identity.realms import realm_keys_forget

CATEGORY = "identity_realms"
MAX_MAPPED_ROLES = 100
MAX_MAPPED_GROUPS = 500
MAX_GROUP_PRINCIPALS = 50
# API names of the realm's settings -> model fields.
FIELDS = {
    "name": "name",
    "issuer": "issuer",
    "audience": "audience",
    "jwksUrl": "jwks_url",
    "usernameClaim": "username_claim",
    "rolesClaim": "roles_claim",
    "roleMapping": "role_mapping",
    "groupsClaim": "groups_claim",
    "groupMapping": "group_mapping",
}


def realm_create(*, tenant: Tenant, values: dict, actor: dict, request_id: str) -> IdentityRealm:
    """`values` in API names; `name`, `issuer`, `audience` and `roleMapping` required."""
    realm_values_check(values)
    if IdentityRealm.objects.filter(tenant=tenant, name=values["name"]).exists():
        raise _duplicate(values["name"])
    realm = IdentityRealm(tenant=tenant, created_by=person(actor) or {})
    for name, value in _stored(values).items():
        setattr(realm, FIELDS[name], value)
    try:
        with transaction.atomic():
            realm.save(force_insert=True)
            _audit(realm, "REALM_CREATED", actor, request_id, details=_settings(realm))
    except IntegrityError:  # a concurrent create with the same name won the race
        raise _duplicate(values["name"]) from None
    return realm


def realm_update(*, realm: IdentityRealm, changes: dict, actor: dict, request_id: str) -> IdentityRealm:
    """Replace the given settings (`roleMapping` whole); the realm's cached keys are dropped."""
    realm_values_check(changes)
    changes = _stored(changes)
    others = IdentityRealm.objects.filter(tenant_id=realm.tenant_id).exclude(id=realm.id)
    if "name" in changes and others.filter(name=changes["name"]).exists():
        raise _duplicate(changes["name"])
    try:
        with transaction.atomic():
            realm = IdentityRealm.objects.select_for_update().get(id=realm.id)
            changed = sorted(n for n, v in changes.items() if getattr(realm, FIELDS[n]) != v)
            for name, value in changes.items():
                setattr(realm, FIELDS[name], value)
            realm.updated_at, realm.updated_by = timezone.now(), person(actor) or {}
            realm.save()
            _audit(realm, "REALM_UPDATED", actor, request_id, details={"changed": changed})
            realm_keys_forget(realm.id)
    except IntegrityError:
        raise _duplicate(changes["name"]) from None
    return realm


def realm_delete(*, realm: IdentityRealm, actor: dict, request_id: str) -> dict:
    with transaction.atomic():
        snapshot = {"id": realm.public_id, "name": realm.name}
        _audit(realm, "REALM_DELETED", actor, request_id, details=_settings(realm))
        realm_keys_forget(realm.id)
        realm.delete()
    return snapshot | {"deleted": True, "deletedAt": timezone.now(), "deletedBy": person(actor)}


def _stored(values: dict) -> dict:
    """No JWKS URL is stored as blank (read from the discovery document); mapped source principals
    in their folded form."""
    stored = {name: (value or "") if name == "jwksUrl" else value for name, value in values.items()}
    if stored.get("groupMapping"):
        stored["groupMapping"] = {g: list(principals(p)) for g, p in stored["groupMapping"].items()}
    return stored


def realm_values_check(values: dict) -> None:
    """422 naming the field for a bad issuer or JWKS URL (not HTTPS, or refused by the outbound
    guard) or role mapping; `values` in API names, any subset."""
    for field in ("issuer", "jwksUrl"):
        if values.get(field):
            https_url_check(field, values[field])
    mapping = values.get("roleMapping")
    if mapping is not None and len(mapping) > MAX_MAPPED_ROLES:
        raise value_error("roleMapping", f"At most {MAX_MAPPED_ROLES} external roles may be mapped.")
    for external in mapping or {}:
        if not _external_name(external):
            raise value_error(
                "roleMapping", "External role names have 1 to 255 characters, no control characters."
            )
    group_mapping_check(values.get("groupMapping"))


def _external_name(name: str) -> bool:
    return bool(name) and len(name) <= 255 and not any(ord(ch) < 32 for ch in name)


def group_mapping_check(mapping: dict | None) -> None:
    """422 naming `groupMapping` unless it maps token group names to lists of source principals."""
    if mapping is None:
        return
    if len(mapping) > MAX_MAPPED_GROUPS:
        raise value_error("groupMapping", f"At most {MAX_MAPPED_GROUPS} token groups may be mapped.")
    for group, mapped in mapping.items():
        if not _external_name(group):
            raise value_error(
                "groupMapping", "Token group names have 1 to 255 characters, no control characters."
            )
        if not isinstance(mapped, list) or not 1 <= len(mapped) <= MAX_GROUP_PRINCIPALS:
            raise value_error(
                "groupMapping",
                f"Each token group maps to a list of 1 to {MAX_GROUP_PRINCIPALS} source principals.",
            )
        try:
            principals(mapped)
        except ValueError as exc:
            raise value_error("groupMapping", str(exc)) from None


def https_url_check(field: str, url: str) -> None:
    """422 naming `field` unless `url` is an HTTPS URL without query or fragment that the outbound
    guard would call (decided without connecting)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise value_error(field, f"{field} must be an HTTPS URL.") from None
    if parts.scheme != "https" or not parts.hostname or parts.query or parts.fragment:
        raise value_error(field, f"{field} must be an HTTPS URL without query or fragment.")
    guard_field(field, url)


def _settings(realm: IdentityRealm) -> dict:
    return {
        "issuer": realm.issuer,
        "audience": realm.audience,
        "jwksUrl": realm.jwks_url or None,
        # Pairs, not an object: an external role may be named anything, even "token".
        "roleMapping": [{"external": k, "role": v} for k, v in sorted(realm.role_mapping.items())],
        "groupsClaim": realm.groups_claim,
        "groupMapping": [{"group": k, "principals": v} for k, v in sorted(realm.group_mapping.items())],
    }


def _audit(realm: IdentityRealm, action: str, actor: dict, request_id: str, *, details: dict) -> None:
    audit_record(
        tenant=realm.tenant,
        action=action,
        category=CATEGORY,
        actor=actor,
        resource={"type": "identity_realm", "id": realm.public_id, "name": realm.name},
        details=details,
        request_id=request_id,
    )


def _duplicate(name: str) -> Conflict:
    return Conflict(f"An identity realm named {name!r} already exists.", code="REALM_NAME_EXISTS")
