"""Signing in with an identity realm's token (`realmname` + Bearer JWT, DESIGN section 17), against
a fake OpenID Connect provider served over HTTPS on loopback."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest
from cryptography.hazmat.primitives import serialization
from rest_framework.test import APIClient

from core.models import AuditEntry
from identity.models import IdentityRealm
from tests import factories
from tests.fakes.oidc import new_signing_key
from tests.helpers import assert_error, assert_ok

CREDENTIALS = "/api/v1/credentials"
REALMS = "/api/v1/admin/realms"


@pytest.fixture
def realm(oidc, tenant):
    return IdentityRealm.objects.create(
        tenant=tenant,
        name="corp",
        issuer=oidc.issuer("acme"),
        audience="integration-api",
        roles_claim="realm_access.roles",
        role_mapping={"viewer": "integration_viewer", "ops": "integration_admin", "boss": "tenant_admin"},
    )


def realm_client(token: str, tenant, realm_name: str = "corp") -> APIClient:
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {token}",
        HTTP_X_TENANTID=str(getattr(tenant, "id", tenant)),
        HTTP_REALMNAME=realm_name,
    )
    return client


def test_a_realm_user_acts_with_the_roles_its_token_maps_to(oidc, realm, tenant):
    token = oidc.token(realm_access={"roles": ["viewer", "not-mapped"]})
    client = realm_client(token, tenant)

    assert_ok(client.get(CREDENTIALS))
    assert_ok(client.get(CREDENTIALS))
    assert_error(client.post(CREDENTIALS, {}, format="json"), 403, "FORBIDDEN")  # needs integration_admin
    assert_error(client.get(REALMS), 403, "FORBIDDEN")  # needs tenant_admin

    logins = AuditEntry.objects.filter(tenant_id=tenant.id, action="USER_LOGIN")
    assert logins.count() == 1  # once per token, not per request
    login = logins.get()
    assert login.actor["type"] == "realm_user"
    assert (login.actor["name"], login.actor["realm"]) == ("jane", "corp")
    assert login.details["roles"] == ["integration_viewer"]
    assert token not in json.dumps([login.actor, login.details, login.resource])
    assert len(oidc.discovery_requests()) == 1 and len(oidc.jwks_requests()) == 1  # then cached


def test_a_mapped_tenant_admin_may_manage_realms(oidc, realm, tenant):
    client = realm_client(oidc.token(realm_access={"roles": ["boss"]}), tenant)

    realms = assert_ok(client.get(REALMS))["realms"]

    assert [r["name"] for r in realms] == ["corp"]


def test_a_token_that_maps_to_no_role_is_forbidden(oidc, realm, tenant):
    client = realm_client(oidc.token(realm_access={"roles": ["visitor"]}), tenant)

    assert_error(client.get(CREDENTIALS), 403, "FORBIDDEN")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _hand_made(header: dict, claims: dict, secret: bytes | None) -> str:
    """A token PyJWT would refuse to make: `alg: none`, or HMAC keyed with the RSA public key."""
    signing_input = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}"
    if secret is None:
        return signing_input + "."
    return signing_input + "." + _b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


def _claims(oidc, **changes) -> dict:
    now = int(time.time())
    return {
        "iss": oidc.issuer("acme"),
        "aud": "integration-api",
        "preferred_username": "mallory",
        "iat": now,
        "exp": now + 300,
        "realm_access": {"roles": ["boss"]},
    } | changes


def _public_pem(oidc) -> bytes:
    return (
        oidc.keys[0]
        .private_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )


BAD_TOKENS = {
    "another issuer": lambda oidc: oidc.token(iss=oidc.issuer("elsewhere")),
    "another audience": lambda oidc: oidc.token(aud="someone-else"),
    "expired beyond the leeway": lambda oidc: oidc.token(exp=int(time.time()) - 120),
    "not valid before a minute from now": lambda oidc: oidc.token(nbf=int(time.time()) + 600),
    "issued in the future": lambda oidc: oidc.token(iat=int(time.time()) + 600),
    "without an expiry": lambda oidc: oidc.token(exp=None),
    "without a username": lambda oidc: oidc.token(preferred_username=None),
    "signed by a key the issuer never published": lambda oidc: oidc.token(
        key=new_signing_key(oidc.keys[0].kid)
    ),
    "alg none": lambda oidc: _hand_made({"alg": "none", "kid": oidc.keys[0].kid}, _claims(oidc), None),
    "HS256 keyed with the public key": lambda oidc: _hand_made(
        {"alg": "HS256", "typ": "JWT", "kid": oidc.keys[0].kid}, _claims(oidc), _public_pem(oidc)
    ),
    "not a JWT at all": lambda oidc: "aaa.bbb.ccc",
}


@pytest.mark.parametrize("case", BAD_TOKENS)
def test_it_refuses_a_token_that_does_not_verify(oidc, realm, tenant, case):
    client = realm_client(BAD_TOKENS[case](oidc), tenant)

    response = client.get(CREDENTIALS)

    assert_error(response, 401, "UNAUTHORIZED")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_token_within_the_leeway_is_accepted(oidc, realm, tenant):
    client = realm_client(oidc.token(exp=int(time.time()) - 20, nbf=int(time.time()) + 20), tenant)

    assert_ok(client.get(CREDENTIALS))


def test_a_new_signing_key_is_fetched_once_then_made_up_kids_wait(oidc, realm, tenant):
    assert_ok(realm_client(oidc.token(), tenant).get(CREDENTIALS))
    old_token = oidc.token()

    oidc.rotate()
    assert_ok(realm_client(oidc.token(), tenant).get(CREDENTIALS))
    assert len(oidc.jwks_requests()) == 2  # the first read and one refetch for the new kid

    made_up = oidc.token(headers={"kid": "made-up"})
    assert_error(realm_client(made_up, tenant).get(CREDENTIALS), 401, "UNAUTHORIZED")
    assert_error(realm_client(old_token, tenant).get(CREDENTIALS), 401, "UNAUTHORIZED")
    assert len(oidc.jwks_requests()) == 2  # refetches are rate limited per realm


def test_changing_a_realm_drops_its_cached_keys(oidc, realm, tenant, owner, client_for):
    assert_ok(realm_client(oidc.token(), tenant).get(CREDENTIALS))

    assert_ok(client_for(owner, tenant).patch(f"{REALMS}/{realm.public_id}", {"audience": "integration-api"}))
    assert_ok(realm_client(oidc.token(), tenant).get(CREDENTIALS))

    assert len(oidc.jwks_requests()) == 2


def test_a_realmname_that_names_no_realm_leaves_the_services_own_tokens_valid(
    oidc, realm, tenant, owner, client_for
):
    own = client_for(owner, tenant, HTTP_REALMNAME="no-such-realm")
    stranger = realm_client(oidc.token(), tenant, realm_name="no-such-realm")

    assert_ok(own.get(REALMS))
    assert_error(stranger.get(CREDENTIALS), 401, "UNAUTHORIZED")


def test_a_token_of_another_tenants_realm_is_forbidden(oidc, realm, tenant, other_tenant):
    IdentityRealm.objects.create(
        tenant=other_tenant,
        name="globex-sso",
        issuer=oidc.issuer("globex"),
        audience="integration-api",
        roles_claim="realm_access.roles",
        role_mapping={"viewer": "integration_viewer"},
    )
    token = oidc.token(realm="globex")

    assert_error(realm_client(token, tenant, realm_name="globex-sso").get(CREDENTIALS), 403, "FORBIDDEN")
    assert_ok(realm_client(token, other_tenant, realm_name="globex-sso").get(CREDENTIALS))
    # The tenant's own realm does not accept the other issuer's token either.
    assert_error(realm_client(token, tenant, realm_name="corp").get(CREDENTIALS), 401, "UNAUTHORIZED")


def test_an_unreachable_issuer_is_a_service_unavailable_answer(oidc, tenant):
    IdentityRealm.objects.create(
        tenant=tenant, name="down", issuer="https://127.0.0.1:9/realms/acme", audience="integration-api"
    )

    response = realm_client(oidc.token(), tenant, realm_name="down").get(CREDENTIALS)

    assert_error(response, 503, "REALM_KEYS_UNAVAILABLE")


def test_a_realm_user_finds_what_its_token_groups_may_read(oidc, realm, tenant):
    def passage(title: str, readers: list[str]):
        factories.make_searchable_document(
            tenant, ["Where the quarterly figures are kept"], title=title, readers=readers
        )

    passage("Everyone", ["everyone"])
    passage("Finance", ["group:sitelib:9f1c-finance"])  # the directory's id of the token's "finance"
    passage("Legal", ["group:wikispace:legal"])  # a wiki group named as the token names it
    passage("Jane", ["user:jane@acme.test"])
    realm.group_mapping = {"finance": ["group:sitelib:9f1c-finance"]}
    realm.save()
    body = {
        "query": "quarterly figures",
        "top_k": 10,
        "vectordb_config": {"platform_domain": "x", "tenant_id": str(tenant.id)},
    }

    def titles(**claims) -> list[str]:
        token = oidc.token(realm_access={"roles": ["viewer"]}, email="jane@acme.test", **claims)
        found = realm_client(token, tenant).post("/v2/knowledge/search", body, format="json")
        assert found.status_code == 200, found.content
        return sorted(result["title"] for result in found.json()["data"]["results"])

    assert titles() == ["Everyone", "Jane"]
    assert titles(groups=["finance"]) == ["Everyone", "Finance", "Jane"]
    assert titles(groups=["legal", "nobody"]) == ["Everyone", "Jane", "Legal"]
