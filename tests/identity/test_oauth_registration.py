"""Clients that register themselves (RFC 7591) and belong to no tenant: the rules of registration,
and the consent that binds each person's grant to one of their workspaces, with the scopes their
roles there allow; the token then acts for that person, there."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client

from core.models import AuditEntry
from identity.models import Membership, OAuthClient
from tests import factories
from tests.helpers import assert_tool_error
from tests.identity.test_oauth_provider import CALLBACK, CHALLENGE, VERIFIER, form_post
from tests.toolhub.support import assert_tool_ok

pytestmark = pytest.mark.django_db
MCP_SCOPES = "knowledge:read tools:read tools:execute"


def register(anon, **metadata):
    body = {"client_name": "Desk agent", "redirect_uris": [CALLBACK, "http://127.0.0.1/callback"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none"}  # fmt: skip
    return anon.post("/oauth/register", json.dumps(body | metadata), content_type="application/json")


@pytest.fixture
def agent(anon):
    response = register(anon)
    assert response.status_code == 201, response.content
    return response.json()


def consent_page(user, client_id, scope=MCP_SCOPES):
    browser = Client()
    browser.force_login(user)
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK, "scope": scope,
             "state": "s1", "code_challenge": CHALLENGE, "code_challenge_method": "S256"}  # fmt: skip
    return browser, browser.get("/oauth/authorize?" + urlencode(query))


def allow(browser, page, **choices) -> dict:
    form = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', page.content.decode()))
    answer = browser.post("/oauth/authorize", form | {"allow": "Authorize"} | choices)
    return parse_qs(urlsplit(answer["Location"]).query)


def token_for(agent, answer) -> dict:
    form = {"grant_type": "authorization_code", "code": answer["code"][0], "redirect_uri": CALLBACK,
            "client_id": agent["client_id"], "code_verifier": VERIFIER}  # fmt: skip
    response = form_post("/oauth/token", form)
    assert response.status_code == 200, response.content
    return response.json()


# ---- registration


def test_a_public_client_registers_itself_and_belongs_to_no_tenant(agent):
    assert agent["client_name"] == "Desk agent" and agent["token_endpoint_auth_method"] == "none"
    assert agent["redirect_uris"] == [CALLBACK, "http://127.0.0.1/callback"]
    assert agent["grant_types"] == ["authorization_code", "refresh_token"] and agent["response_types"] == [
        "code"
    ]
    assert "client_secret" not in agent and "knowledge:read" in agent["scope"].split()
    stored = OAuthClient.objects.get(client_id=agent["client_id"])
    assert stored.tenant is None and stored.client_type == "public" and stored.registration_source == "dcr"
    entry = AuditEntry.objects.get(action="OAUTH_CLIENT_REGISTERED")
    assert entry.tenant_id is None and entry.details["clientId"] == agent["client_id"]


@pytest.mark.parametrize(
    ("metadata", "error"),
    [
        ({"redirect_uris": ["http://app.example/callback"]}, "invalid_redirect_uri"),
        ({"redirect_uris": []}, "invalid_redirect_uri"),
        ({"redirect_uris": ["https://app.example/cb#frag"]}, "invalid_redirect_uri"),
        ({"token_endpoint_auth_method": "client_secret_basic"}, "invalid_client_metadata"),
        ({"grant_types": ["client_credentials"]}, "invalid_client_metadata"),
        ({"response_types": ["token"]}, "invalid_client_metadata"),
        ({"scope": "vault:read *"}, "invalid_client_metadata"),
        ({"client_name": 7}, "invalid_client_metadata"),
        ({"client_name": "   "}, "invalid_client_metadata"),
        ({"client_name": "Desk\u202eagent"}, "invalid_client_metadata"),  # a bidirectional override
        ({"client_name": "Desk\u200bagent"}, "invalid_client_metadata"),  # a zero-width space
        ({"client_name": "Desk\tagent"}, "invalid_client_metadata"),
        ({"client_name": "Desk\ud800agent"}, "invalid_client_metadata"),  # a lone surrogate
        ({"client_name": "x" * 256}, "invalid_client_metadata"),
        ({"redirect_uris": ["https://app.example/cb\n"]}, "invalid_redirect_uri"),
    ],
)
def test_a_registration_outside_the_rules_is_refused(anon, metadata, error):
    response = register(anon, **metadata)
    assert response.status_code == 400 and response.json()["error"] == error, response.content
    assert response["Cache-Control"] == "no-store"
    assert not OAuthClient.objects.exists()


def test_a_name_in_any_script_is_kept_and_a_null_name_or_scope_takes_the_default(anon):
    named = register(
        anon, client_name="  Agent de bureau, Zürich 東京 ✓ ", scope="\ttools:read  vault:read\n"
    )
    assert named.status_code == 201, named.content
    assert named.json()["client_name"] == "Agent de bureau, Zürich 東京 ✓"
    assert named.json()["scope"] == "tools:read vault:read"
    unnamed = register(anon, client_name=None, scope=None)
    assert unnamed.status_code == 201, unnamed.content
    assert unnamed.json()["client_name"] == "Application at app.example"


@pytest.mark.parametrize("body", ["[1, 2]", "not json"])
def test_a_body_that_is_not_an_object_of_metadata_is_refused(anon, body):
    response = anon.post("/oauth/register", body, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "invalid_client_metadata"


def test_registration_is_rate_limited_per_address(anon, settings):
    settings.RATE_LIMIT_CLIENT_REGISTRATION = "2/h"
    assert [register(anon).status_code for _ in range(3)] == [201, 201, 429]
    assert OAuthClient.objects.count() == 2


# ---- consent binds the grant to one of the person's workspaces


def test_consent_binds_the_grant_to_the_persons_workspace_within_their_roles(
    agent, client_for, tenant, other_tenant
):
    viewer = factories.make_user(tenant, ["integration_viewer"], username="vera")
    browser, page = consent_page(viewer, agent["client_id"])
    assert page.status_code == 200 and b"acme" in page.content and b"registered\n     itself" in page.content
    token = token_for(agent, allow(browser, page))
    assert token["scope"].split() == ["knowledge:read", "tools:read", f"tenant:{tenant.id}"]
    assert_tool_ok(client_for(token["access_token"], tenant).get("/api/v1/tools"))
    assert_tool_error(client_for(token["access_token"], other_tenant).get("/api/v1/tools"), 403, "FORBIDDEN")
    issued = AuditEntry.objects.get(action="OAUTH_TOKEN_ISSUED")
    assert issued.tenant_id == tenant.id and issued.details["user"] == {
        "id": str(viewer.id),
        "username": "vera",
    }
    assert issued.details["scopes"] == ["knowledge:read", "tools:read"]


def test_a_person_of_several_workspaces_picks_one(agent, client_for, tenant, other_tenant):
    admin = factories.make_user(tenant, ["tenant_admin"], username="ada")
    Membership.objects.create(user=admin, tenant=other_tenant, roles=["integration_admin"])
    browser, page = consent_page(admin, agent["client_id"])
    assert b'<select id="id_tenant" name="tenant">' in page.content and b"globex" in page.content
    token = token_for(agent, allow(browser, page, tenant=str(other_tenant.id)))
    assert f"tenant:{other_tenant.id}" in token["scope"].split()
    assert_tool_ok(client_for(token["access_token"], other_tenant).get("/api/v1/tools"))
    assert_tool_error(client_for(token["access_token"], tenant).get("/api/v1/tools"), 403, "FORBIDDEN")


def test_a_workspace_that_is_not_the_persons_is_refused(agent, tenant, other_tenant):
    member = factories.make_user(tenant, ["tenant_admin"], username="mo")
    browser, page = consent_page(member, agent["client_id"])
    assert allow(browser, page, tenant=str(other_tenant.id))["error"] == ["access_denied"]


def test_a_person_of_no_workspace_cannot_allow_it(agent):
    loner = factories.make_user(None, [], username="loner")
    _browser, page = consent_page(loner, agent["client_id"])
    assert parse_qs(urlsplit(page["Location"]).query)["error"] == ["access_denied"]


def test_the_token_acts_for_the_person_only_while_they_belong_there(agent, client_for, tenant):
    member = factories.make_user(tenant, ["integration_admin"], username="kim")
    browser, page = consent_page(member, agent["client_id"])
    token = token_for(agent, allow(browser, page))["access_token"]
    assert_tool_ok(client_for(token, tenant).get("/api/v1/tools"))
    member.memberships.all().delete()
    assert_tool_error(client_for(token, tenant).get("/api/v1/tools"), 401, "UNAUTHORIZED")


def test_the_console_shows_registered_clients_to_the_platform_only(agent, root, owner):
    stored = OAuthClient.objects.get(client_id=agent["client_id"])
    console = Client()
    console.force_login(root)
    assert agent["client_id"].encode() in console.get("/admin/identity/oauthclient/").content
    assert console.get(f"/admin/identity/oauthclient/{stored.pk}/change/").status_code == 200
    owner.is_staff = True
    owner.save()
    console.force_login(owner)
    assert agent["client_id"].encode() not in console.get("/admin/identity/oauthclient/").content


def test_refusals_go_back_to_a_loopback_client(anon):
    loopback = "http://127.0.0.1:51234/callback"
    agent = register(anon, redirect_uris=["http://127.0.0.1/callback"]).json()
    browser = Client()
    browser.force_login(factories.make_user(None, [], username="nobody"))
    query = {"response_type": "code", "client_id": agent["client_id"], "redirect_uri": loopback,
             "state": "s9", "code_challenge": CHALLENGE, "code_challenge_method": "S256"}  # fmt: skip
    for extra, error in (
        ({}, "access_denied"),
        ({"resource": "https://elsewhere.example/mcp"}, "invalid_target"),
    ):
        page = browser.get("/oauth/authorize?" + urlencode(query | extra))
        assert page.status_code == 302 and page["Location"].startswith(loopback), page.content[:300]
        answer = parse_qs(urlsplit(page["Location"]).query)
        assert answer["error"] == [error] and answer["state"] == ["s9"]
