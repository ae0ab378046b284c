"""Who a caller is in the tenant's source platforms (DESIGN section 19): the one answer that every
read of knowledge trims by.

- A person (this service's user by JWT or console session, an OAuth token acting for one, a realm
  user) is `everyone`, `user:<email>` and their groups. A realm user's groups come from its token's
  groups claim: a group the realm's `groupMapping` names stands for the principals it maps to, any
  other for the groups of that id on every platform. This service's own users' groups are looked up
  in each platform the tenant has configured, by the lookups the apps that know the platforms
  register (`group_lookup_register`), and kept for `PERMISSIONS_CACHE_MINUTES`.
- A machine (API key, OAuth client on its own, service account) is `everyone` only, unless it holds
  `knowledge:all`: then it reads every document of its tenant (`ALL_KNOWLEDGE`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings

from core.gencache import GenerationCache
from core.models import Tenant
from core.principals import Principal
from core.readers import EVERYONE, PLATFORMS, group_principal, principals, user_principal
from identity.models import IdentityRealm, User

log = logging.getLogger(__name__)

ALL_KNOWLEDGE = None  # the identities of a caller that may read every document of its tenant
KNOWLEDGE_ALL = "knowledge:all"

# (tenant, e-mail) -> the group principals of that person in the tenant's platforms.
GroupLookup = Callable[[Tenant, str], set[str]]
_LOOKUPS: list[GroupLookup] = []
SOURCE_GROUPS = GenerationCache(
    "source-groups", ttl=max(60 * settings.PERMISSIONS_CACHE_MINUTES, 1), rows=False
)


def group_lookup_register(lookup: GroupLookup) -> None:
    """An app that reads the tenant's platforms says how to find a person's groups there."""
    if lookup not in _LOOKUPS:
        _LOOKUPS.append(lookup)


def source_identities(principal: Principal, tenant: Tenant) -> frozenset[str] | None:
    """The source principals whose documents this caller may read in `tenant`, or ALL_KNOWLEDGE."""
    if not principal.is_person:
        return ALL_KNOWLEDGE if principal.has_scope(KNOWLEDGE_ALL) else frozenset({EVERYONE})
    if principal.kind == "realm_user":
        return frozenset({EVERYONE, *_person(principal.email or principal.name), *_realm_groups(principal)})
    email = _email_of(principal)
    me = _person(email)
    return frozenset({EVERYONE, *me, *(source_groups(tenant, email) if me else ())})


def _person(email: str) -> set[str]:
    found = user_principal(email)
    return {found} if found else set()


def _email_of(principal: Principal) -> str:
    """A person's e-mail address: the user's own, or the user's an OAuth token acts for."""
    if principal.kind == "user":
        return principal.email
    user = User.objects.filter(id=principal.user_id).only("email").first()
    return user.email if user else ""


def _realm_groups(principal: Principal) -> set[str]:
    mapping = (
        IdentityRealm.objects.filter(tenant_id=principal.tenant_id, name=principal.realm)
        .values_list("group_mapping", flat=True)
        .first()
    ) or {}
    found: set[str] = set()
    for group in principal.realm_groups:
        if group in mapping:
            found.update(principals(mapping[group]))
            continue
        for platform in PLATFORMS:
            try:
                found.add(group_principal(platform, group))
            except ValueError:
                continue
    return found


def source_groups(tenant: Tenant, email: str) -> tuple[str, ...]:
    """The groups of the person with this e-mail in the tenant's platforms, cached. A platform that
    cannot answer adds none (the person then sees less, never more)."""
    key = f"{tenant.id}:{email.strip().casefold()}"
    return SOURCE_GROUPS.lookup(key, lambda: _groups_looked_up(tenant, email), scope=str(tenant.id))


def _groups_looked_up(tenant: Tenant, email: str) -> tuple[str, ...]:
    found: set[str] = set()
    for lookup in _LOOKUPS:
        found |= lookup(tenant, email)
    return tuple(sorted(found))
