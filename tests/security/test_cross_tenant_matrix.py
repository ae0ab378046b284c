"""The cross-tenant matrix: every object endpoint (read, update, delete, rotate, execute, decide)
called by another tenant's administrator (also its approver) and by its `*` API key with our
object's id answers 404, and none of our rows, audit entries or DEK rotations change. (A super admin
is platform-wide by design, DESIGN section 3: tenants and DEK rotations are addressed by id.)"""

from __future__ import annotations

import json

import pytest
from django.forms.models import model_to_dict

from core.audit import system_actor
from core.models import AuditEntry, Role, Tenant
from identity.models import ApiKey, IdentityRealm, OAuthClient
from identity.services.oauth import ClientSpec, oauth_client_create
from tests import factories
from tests.toolhub.support import make_connection, make_credential
from toolhub.models import Approval, ApprovalPolicy, Connection
from vault.models import Credential, DekRotation

pytestmark = pytest.mark.django_db


@pytest.fixture
def objects(tenant, settings, client_for):
    """One of each object in `tenant` (acme), made through the real services and endpoints."""
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    key, _raw = factories.make_api_key(tenant, ["admin:read"], name="ours")
    spec = ClientSpec(name="ours", client_type="confidential", redirect_uris=[],
                      grant_types=["client_credentials"], scopes=["admin:read"])  # fmt: skip
    client, _secret = oauth_client_create(tenant=tenant, spec=spec, actor=system_actor("t"), request_id="t")
    credential = make_credential(tenant, "itdocs-prod-001", access_token="tok-ours-0001")
    connection = make_connection(tenant, "http://127.0.0.1:9", integration_id="itdocs-prod-001")
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=["destructive"], always_gate=["itdocs.*"])
    _k, exec_raw = factories.make_api_key(tenant, ["tools:execute"], name="agent")
    gate = client_for(exec_raw, tenant).post(
        "/api/v1/tools/itdocs.organization.list/execute",
        {"input": {"name": "Acme"}, "idempotency_key": "x-1", "connection_id": f"conn_{connection.id.hex}"},
        format="json",
    )
    assert gate.status_code == 202, gate.content
    root = factories.make_super_admin(username="root")
    rotation = client_for(root, tenant).post(
        "/api/v1/admin/dek/rotate", {"tenantId": str(tenant.id)}, format="json"
    )
    assert rotation.status_code == 200, rotation.content
    realm = IdentityRealm.objects.create(
        tenant=tenant, name="ours", issuer="https://idp.acme.test/realms/acme", audience="ours"
    )
    return {
        "realm": realm.public_id,
        "key": str(key.id),
        "client": f"client-{client.id}",
        "credential": f"cred-{credential.id}",
        "connection": f"conn_{connection.id.hex}",
        "approval": gate.json()["error"]["details"]["approval_id"],
        "rotation": rotation.json()["data"]["rotationId"],
        "tenant": str(tenant.id),
    }


def calls(o: dict) -> list[tuple[str, str, dict]]:
    execute = {"input": {"name": "Acme"}, "idempotency_key": "x-2", "connection_id": o["connection"]}
    return [
        ("GET", f"/api/v1/api-keys/{o['key']}", {}),
        ("DELETE", f"/api/v1/api-keys/{o['key']}", {}),
        ("POST", f"/api/v1/api-keys/{o['key']}/rotate", {}),
        ("POST", f"/api/v1/api-keys/{o['key']}/validate", {"apiKey": "ak_live_" + "x" * 40}),
        ("GET", f"/api/v1/oauth-clients/{o['client']}", {}),
        ("PATCH", f"/api/v1/oauth-clients/{o['client']}", {"description": "theirs"}),
        ("DELETE", f"/api/v1/oauth-clients/{o['client']}", {}),
        ("POST", f"/api/v1/oauth-clients/{o['client']}/rotate-secret", {}),
        ("GET", f"/api/v1/admin/tenants/{o['tenant']}", {}),
        ("PATCH", f"/api/v1/admin/tenants/{o['tenant']}", {"name": "theirs"}),
        ("GET", f"/api/v1/admin/tenants/{o['tenant']}/stats", {}),
        ("GET", f"/api/v1/admin/realms/{o['realm']}", {}),
        ("PATCH", f"/api/v1/admin/realms/{o['realm']}", {"audience": "theirs"}),
        ("DELETE", f"/api/v1/admin/realms/{o['realm']}", {}),
        ("GET", "/api/v1/credentials/itdocs-prod-001", {}),
        ("GET", "/api/v1/credentials/itdocs-prod-001/details", {}),
        ("PATCH", f"/api/v1/credentials/itdocs-prod-001/{o['credential']}", {"description": "theirs"}),
        ("DELETE", f"/api/v1/credentials/itdocs-prod-001/{o['credential']}", {}),
        ("POST", f"/api/v1/credentials/{o['credential']}/rotate", {"accessToken": "theirs"}),
        ("GET", f"/api/v1/connections/{o['connection']}", {}),
        ("PATCH", f"/api/v1/connections/{o['connection']}", {"name": "theirs"}),
        ("DELETE", f"/api/v1/connections/{o['connection']}", {}),
        ("POST", f"/api/v1/connections/{o['connection']}/test", {}),
        ("GET", f"/api/v1/approvals/{o['approval']}", {}),
        ("POST", f"/api/v1/approvals/{o['approval']}/approve", {"reason": "theirs"}),
        ("POST", f"/api/v1/approvals/{o['approval']}/reject", {"reason": "theirs"}),
        ("POST", "/api/v1/tools/itdocs.organization.list/execute", execute),
        ("GET", f"/api/v1/admin/dek/rotations/{o['rotation']}", {}),
    ]


def snapshot(tenant) -> dict:
    def rows(model):
        return sorted((model_to_dict(row) for row in model.objects.filter(tenant=tenant)), key=str)

    return {
        "tenant": model_to_dict(Tenant.objects.get(id=tenant.id)),
        **{
            m.__name__: rows(m)
            for m in (ApiKey, OAuthClient, IdentityRealm, Credential, Connection, Approval, DekRotation)
        },
        "audit": AuditEntry.objects.filter(tenant_id=tenant.id).count(),
    }


def outsiders(other_tenant) -> dict:
    admin = factories.make_user(other_tenant, [Role.TENANT_ADMIN, Role.APPROVER], username="outsider")
    _key, star = factories.make_api_key(other_tenant, ["*"], name="theirs")
    return {"admin": admin, "star_key": star}


@pytest.mark.parametrize("who", ["admin", "star_key"])
def test_another_tenant_gets_404_and_changes_nothing(
    who, objects, tenant, other_tenant, client_for, settings
):
    settings.RATE_LIMIT_PER_KEY = settings.RATE_LIMIT_PER_TENANT = "100000/m"
    principal = outsiders(other_tenant)[who]
    client = client_for(principal, other_tenant)
    before = snapshot(tenant)
    wrong = []
    for method, path, body in calls(objects):
        response = client.generic(method, path, json.dumps(body), content_type="application/json")
        if response.status_code == 403 and _refused_for_the_persona(who, method, path):
            continue  # the persona may not call this operation at all, in any tenant
        if response.status_code != 404:
            wrong.append((who, method, path, response.status_code, response.content[:200]))
    assert not wrong, "\n".join(map(str, wrong))
    assert snapshot(tenant) == before


def _refused_for_the_persona(who: str, method: str, path: str) -> bool:
    """Operations the persona is refused everywhere (DESIGN section 3), checked before any lookup:
    a key may not decide approvals or read DEK rotations; a tenant admin may not read DEK
    rotations; only machines execute tools."""
    if who == "star_key":
        return path.endswith(("/approve", "/reject")) or "/dek/" in path
    return "/dek/" in path or path.endswith("/execute")
