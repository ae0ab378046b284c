"""Fakes of the three platforms, wired into settings, and the bodies the listings take."""

from __future__ import annotations

import pytest

from core.models import Role
from tests import factories
from tests.fakes.certificates import make_app_certificate
from tests.fakes.graph import FakeGraph
from tests.fakes.identity import FakeIdentity
from tests.fakes.itsm import FakeItsm
from tests.fakes.wiki import FakeWiki

CLOUD_TID = "4f6a1c2e-8d3b-4e7a-9c1f-2b5d7e9a0c13"
CLIENT_ID = "7d1e5b3a-0c2f-4a6e-8b9d-1f3c5e7a9b20"
SECRET = "s3cr3t-value-for-the-app"
CERT_CLIENT_ID = "0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d"


@pytest.fixture(scope="session")
def app_certificate():
    return make_app_certificate()


@pytest.fixture
def platforms_reachable(settings):
    """The fakes live on loopback: the address rule of the guard is relaxed, the fakes' CA trusted."""
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True


@pytest.fixture
def identity(settings, platforms_reachable, app_certificate):
    with FakeIdentity() as fake:
        fake.add_secret_app(CLOUD_TID, CLIENT_ID, SECRET)
        fake.add_certificate_app(
            CLOUD_TID, CERT_CLIENT_ID, app_certificate.thumbprint, app_certificate.public_key
        )
        settings.OUTBOUND_CA_BUNDLE = fake.ca_file
        settings.SITELIB_LOGIN_URL = fake.url
        yield fake


@pytest.fixture
def graph(settings, identity):
    with FakeGraph(tokens=identity.issued) as fake:
        settings.SITELIB_GRAPH_URL = fake.api_url
        yield fake


@pytest.fixture
def admin_client(client_for, tenant):
    """An integration admin of the tenant (the role the listings need)."""
    user = factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="lister", email="lister@acme.test")
    return client_for(user, tenant)


def sitelib_body(**overrides) -> dict:
    body = {
        "authorization": {
            "cloud_tid": CLOUD_TID,
            "client_id": CLIENT_ID,
            "client_secret": SECRET,
            "thumbprint": "",
            "key": "",
            "sitelib_auth": False,
        },
        "site_urls": [],
        "sub_sites": [],
        "drives": [],
        "folders": [],
        "content_restriction": {"audience": ["all"]},
        "blacklisted": False,
        "source_restriction": False,
    }
    authorization = overrides.pop("authorization", {})
    if authorization is None:
        body["authorization"] = None
    else:
        body["authorization"].update(authorization)
    body.update(overrides)
    return body


@pytest.fixture
def wiki(platforms_reachable):
    with FakeWiki() as fake:
        fake.add_user("ada@acme.test", "wiki-token-1")
        yield fake


def wiki_body(fake: FakeWiki, **overrides) -> dict:
    body = {
        "instance_url": fake.instance_url,
        "web_url_instance": fake.instance_url,
        "username": "ada@acme.test",
        "api_token": "wiki-token-1",
    }
    body.update(overrides)
    return body


@pytest.fixture
def itsm(settings, platforms_reachable):
    with FakeItsm() as fake:
        fake.users["svc.kb"] = "itsm-password-1"
        fake.clients["kb-client"] = "kb-client-secret"
        settings.OUTBOUND_CA_BUNDLE = fake.ca_file
        yield fake


def itsm_body(fake: FakeItsm, **overrides) -> dict:
    body = {
        "username": "svc.kb",
        "password": "itsm-password-1",
        "client_id": "kb-client",
        "client_secret": "kb-client-secret",
        "refresh_token": "",
        "itsmplatform_domain": fake.domain,
    }
    body.update(overrides)
    return body
