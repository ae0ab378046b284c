"""The role-by-route matrix: every route of the URL conf, every method, against each persona (each
role, a super admin, a `*` key, a narrow key, an OAuth token, no credentials, another tenant's
admin), with the answer DESIGN section 3 expects. Access is decided before any lookup, so the path
ids are well formed placeholders: an allowed persona gets the endpoint's own answer (404, 400,
422, ...), a refused one 403, no credentials 401."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from core.models import Role
from tests import factories
from tests.security.routes import REQUIRES, Need, api_routes, fill

ROLE_INCLUDES = {  # DESIGN section 3, written out here rather than imported
    "tenant_admin": {"tenant_admin", "integration_admin", "integration_viewer", "audit_viewer", "approver"},
    "integration_admin": {"integration_admin", "integration_viewer"},
    "integration_viewer": {"integration_viewer"},
    "audit_viewer": {"audit_viewer"},
    "approver": {"approver"},
}
USER_PERSONAS = [*ROLE_INCLUDES, "super_admin"]
MACHINE_PERSONAS = {
    "star_key": ["*"],
    "narrow_key": ["vault:read"],
    "oauth_token": ["tools:read", "knowledge:read"],
}
PERSONAS = [*USER_PERSONAS, *MACHINE_PERSONAS, "anonymous", "other_tenant"]


def allowed(need: Need, persona: str) -> bool:
    if persona in MACHINE_PERSONAS:
        scopes = MACHINE_PERSONAS[persona]
        return need.scope is not None and (need.scope == "*any" or "*" in scopes or need.scope in scopes)
    if need.role is None:
        return False
    if persona == "super_admin" or need.role == "*":
        return True
    return need.role in ROLE_INCLUDES[persona]


def expected(need: Need, persona: str) -> str:
    if need.public:
        return "public"
    if persona == "anonymous":
        return "401"
    if persona == "other_tenant":
        return "403"
    return "allowed" if allowed(need, persona) else "403"


def outcome(status: int) -> str:
    return {401: "401", 403: "403"}.get(status, "allowed")


def _oauth_token(tenant, scopes) -> str:
    from core.audit import system_actor
    from identity.services.oauth import ClientSpec, oauth_client_create

    spec = ClientSpec(name="matrix", client_type="confidential", redirect_uris=[],
                      grant_types=["client_credentials"], scopes=scopes)  # fmt: skip
    client, secret = oauth_client_create(
        tenant=tenant, spec=spec, actor=system_actor("tests"), request_id="t"
    )
    form = {"grant_type": "client_credentials", "client_id": client.client_id, "client_secret": secret}
    response = APIClient().generic(
        "POST", "/oauth/token", urlencode(form), content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200, response.content
    return response.json()["access_token"]


def _client(persona: str, tenant, other_tenant, client_for) -> APIClient:
    if persona == "anonymous":
        return client_for(None, tenant)
    if persona == "other_tenant":
        return client_for(factories.make_user(other_tenant, [Role.TENANT_ADMIN]), tenant)
    if persona == "super_admin":
        return client_for(factories.make_super_admin(username="root"), tenant)
    if persona in ROLE_INCLUDES:
        return client_for(factories.make_user(tenant, [persona]), tenant)
    if persona == "oauth_token":
        return client_for(_oauth_token(tenant, MACHINE_PERSONAS[persona]), tenant)
    _key, raw = factories.make_api_key(tenant, MACHINE_PERSONAS[persona])
    return client_for(raw, tenant)


def test_every_route_and_method_has_an_entry_and_every_entry_a_route():
    routed = {(template, method) for template, method, _view in api_routes()}
    missing = sorted(routed - set(REQUIRES))
    stale = sorted(set(REQUIRES) - routed)
    assert not missing, f"routes without an entry in tests/security/routes.py REQUIRES: {missing}"
    assert not stale, f"entries for routes that no longer exist: {stale}"


@pytest.mark.django_db
@pytest.mark.parametrize("persona", PERSONAS)
def test_each_persona_gets_what_the_design_says(persona, tenant, other_tenant, client_for, settings):
    settings.RATE_LIMIT_PER_KEY = settings.RATE_LIMIT_PER_TENANT = settings.RATE_LIMIT_LOGIN = "100000/m"
    client = _client(persona, tenant, other_tenant, client_for)
    wrong = []
    for template, method, _view in api_routes():
        need = REQUIRES[(template, method)]
        path = fill(template).replace("{own_tenant}", str(tenant.id))
        response = client.generic(method, path, "{}", content_type="application/json")
        want = expected(need, persona)
        assert response.status_code < 500, (method, path, response.content[:300])
        got = outcome(response.status_code)
        if want == "public":
            if response.status_code == 403:
                wrong.append((method, template, "public", response.status_code))
        elif got != want:
            wrong.append((method, template, want, response.status_code, response.content[:160]))
    assert not wrong, "\n".join(map(str, wrong))
