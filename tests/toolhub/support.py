"""Helpers of the tool hub tests: rows made through the real services, and the success envelope."""

from __future__ import annotations

from core.audit import system_actor
from toolhub.services.connections import connection_create
from vault.services.credentials import credential_store

EXEC_URL = "/api/v1/tools/{}/execute"


def make_credential(tenant, integration_id: str, *, auth_type: str = "api_key", **values):
    return credential_store(
        tenant=tenant,
        actor=system_actor("tests"),
        integration_id=integration_id,
        name=integration_id,
        auth_type=auth_type,
        **values,
    )


def make_connection(tenant, fake_url: str, *, integration_id: str, domain="itdocs", connector="itdocs", **kw):
    return connection_create(
        tenant=tenant,
        actor=system_actor("tests"),
        name=kw.pop("name", f"{domain}-{integration_id}"),
        domain=domain,
        connector=connector,
        base_url=fake_url,
        integration_id=integration_id,
        **kw,
    )


def assert_tool_ok(response, status: int = 200):
    """The tool interface's success envelope; returns the whole body."""
    assert response.status_code == status, (response.status_code, response.content[:800])
    body = response.json()
    assert body["success"] is True, body
    assert body["request_id"], body
    return body
