"""The operators' commands print what scripts need, alone on the last line or as --json."""

import json
import uuid
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from core.models import AuditEntry, Tenant
from identity.models import ApiKey, Membership
from tests.helpers import assert_ok

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue().strip().splitlines()[-1]


def test_createtenant_prints_the_new_tenant_id():
    tenant_id = run("createtenant", "Initech", "--domain", "initech.test")
    assert Tenant.objects.get(id=uuid.UUID(tenant_id)).domain == "initech.test"


def test_createtenant_refuses_a_duplicate_name():
    run("createtenant", "Initech")
    with pytest.raises(CommandError, match="already exists"):
        run("createtenant", "Initech")


def test_createtenantuser_grants_repeated_roles(tenant):
    user_id = run(
        "createtenantuser",
        "--tenant",
        str(tenant.id),
        "--username",
        "peter",
        "--password",
        "pw-123456",
        "--role",
        "integration_admin",
        "--role",
        "approver",
    )
    membership = Membership.objects.get(user_id=user_id, tenant=tenant)
    assert membership.roles == ["approver", "integration_admin"]


def test_createtenantuser_names_the_allowed_roles_for_a_bad_one(tenant):
    with pytest.raises(CommandError, match="allowed: tenant_admin"):
        run(
            "createtenantuser",
            "--tenant",
            str(tenant.id),
            "--username",
            "p",
            "--password",
            "x",
            "--role",
            "boss",
        )


def test_createapikey_prints_a_key_that_authenticates_once_and_is_stored_hashed(client, tenant):
    key = run(
        "createapikey",
        "--tenant",
        str(tenant.id),
        "--name",
        "ci",
        "--scope",
        "admin:read",
        "--tools",
        "itsm.*",
    )
    stored = ApiKey.objects.get(name="ci")
    assert key.startswith("ak_live_") and len(key) >= 40
    assert stored.scopes == ["admin:read"] and stored.tool_patterns == ["itsm.*"]
    assert key not in json.dumps([stored.key_hash, stored.prefix]) and stored.prefix == key[:12]
    assert AuditEntry.objects.filter(action="API_KEY_CREATED", tenant_id=tenant.id).exists()
    response = client.get("/api/v1/admin/health", HTTP_X_API_KEY=key, HTTP_X_TENANTID=str(tenant.id))
    assert "services" in assert_ok(response)


def test_commands_speak_json_when_asked(tenant):
    payload = json.loads(run("createapikey", "--tenant", str(tenant.id), "--name", "j", "--json"))
    assert payload["apiKey"].startswith("ak_live_") and payload["scopes"] == ["*"]


def test_seed_demo_can_run_twice_and_prints_a_working_key(client):
    run("seed_demo")
    key = run("seed_demo")
    tenant = Tenant.objects.get(name="demo")
    assert ApiKey.objects.filter(tenant=tenant).count() == 1
    assert Membership.objects.filter(tenant=tenant).count() == 5
    response = client.get("/api/v1/admin/health", HTTP_X_API_KEY=key, HTTP_X_TENANTID=str(tenant.id))
    assert assert_ok(response)["status"] == "healthy"


def test_createapikey_refuses_a_scope_the_api_refuses(tenant):
    with pytest.raises(CommandError, match=r"scopes: Unknown scope\(s\): nonsense:scope"):
        run("createapikey", "--tenant", str(tenant.id), "--name", "k", "--scope", "nonsense:scope")
    assert not ApiKey.objects.exists()


def test_createapikey_refuses_a_duplicate_name_as_the_api_does(tenant):
    run("createapikey", "--tenant", str(tenant.id), "--name", "k", "--scope", "vault:read")
    with pytest.raises(CommandError, match="already exists"):
        run("createapikey", "--tenant", str(tenant.id), "--name", "k", "--scope", "vault:read")


@pytest.mark.parametrize(("password", "words"), [("short", "too short"), ("password123", "too common")])
def test_createtenantuser_refuses_a_password_the_validators_refuse(tenant, password, words):
    args = ["--tenant", str(tenant.id), "--username", "peter", "--password", password, "--role", "approver"]
    with pytest.raises(CommandError, match=f"password: .*{words}"):
        run("createtenantuser", *args)
    assert not Membership.objects.filter(user__username="peter").exists()
