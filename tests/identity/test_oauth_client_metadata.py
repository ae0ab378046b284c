"""Clients known by the URL of their metadata document (CIMD): django-oauth-toolkit fetches the
document through this service's outbound guard, holds it to the rules of every client, keeps it
an hour, and the client then acts like any client of no tenant."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.core.cache import cache
from django.test import Client

from identity.models import OAuthClient
from tests import factories
from tests.fakes.client_metadata import FakeClientMetadata
from tests.identity.test_oauth_provider import CHALLENGE, VERIFIER, form_post
from tests.identity.test_oauth_registration import allow

pytestmark = pytest.mark.django_db
LOOPBACK = "http://127.0.0.1:43210/callback"


@pytest.fixture
def published(settings):
    with FakeClientMetadata() as fake:
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True  # the fake is on loopback
        settings.OUTBOUND_CA_BUNDLE = fake.ca_file
        yield fake


def consent(user, client_id: str, redirect_uri: str = LOOPBACK):
    browser = Client()
    browser.force_login(user)
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
             "scope": "knowledge:read", "state": "s1", "code_challenge": CHALLENGE,
             "code_challenge_method": "S256"}  # fmt: skip
    return browser, browser.get("/oauth/authorize?" + urlencode(query))


def test_a_client_known_by_its_document_signs_a_person_in(published, tenant):
    client_id = published.publish()
    member = factories.make_user(tenant, ["integration_viewer"])
    browser, page = consent(member, client_id)
    assert page.status_code == 200 and client_id.encode() in page.content
    answer = allow(browser, page)
    form = {"grant_type": "authorization_code", "code": answer["code"][0], "redirect_uri": LOOPBACK,
            "client_id": client_id, "code_verifier": VERIFIER}  # fmt: skip
    token = form_post("/oauth/token", form).json()
    assert token["scope"].split() == ["knowledge:read", f"tenant:{tenant.id}"]
    stored = OAuthClient.objects.get(client_id=client_id)
    assert stored.tenant is None and stored.registration_source == "cimd" and stored.name == "Desk agent"
    assert stored.redirect_uris == ["http://127.0.0.1/callback"]
    consent(member, client_id)  # a second sign-in: the document is kept, not fetched again
    assert len(published.requests_to("^/oauth/client.json$")) == 1


@pytest.mark.parametrize(
    "fields",
    [
        {"redirect_uris": ["http://app.example/callback"]},  # http off loopback: the rule of every client
        {"client_id": "https://elsewhere.example/client.json"},  # not the URL it was read from
        {"token_endpoint_auth_method": "client_secret_basic"},
    ],
)
def test_a_document_outside_the_rules_names_no_client(published, tenant, fields):
    client_id = published.publish(**fields)
    member = factories.make_user(tenant, ["integration_viewer"])
    _browser, page = consent(member, client_id, redirect_uri="http://app.example/callback")
    assert page.status_code == 400 and b"client" in page.content.lower()
    assert not OAuthClient.objects.filter(client_id=client_id).exists()


def test_a_document_on_a_private_address_is_not_fetched(published, tenant, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False  # production: the guard refuses loopback
    cache.clear()
    client_id = published.publish()
    _browser, page = consent(factories.make_user(tenant, ["integration_viewer"]), client_id)
    assert page.status_code == 400
    assert published.requests_to("^/oauth/client.json$") == []
