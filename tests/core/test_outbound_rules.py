"""The outbound guard's rules: cloud metadata is refused under every setting, private networks are
allowed only as listed (or all of them by the old switch), and every URL field of the service reads
and checks a URL the way the client that calls it does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.outbound import OutboundRefused, guard_url, outbound_session
from tests.fakes.server import FakeVendor, Reply, route
from tests.helpers import assert_error, assert_tool_error, assert_v2_validation
from tests.toolhub.support import make_credential
from toolhub.models import Connection
from vault.models import Credential

ROOT = Path(__file__).resolve().parent.parent.parent
METADATA = [
    "http://169.254.169.254/latest/meta-data/",
    "http://169.254.170.2/v2/credentials",
    "http://[fd00:ec2::254]/latest",
    "http://[fe80::a9fe:a9fe]/",
    "http://[::ffff:169.254.169.254]/latest",
    "http://100.100.100.200/latest/meta-data",
]
SETTINGS = [
    {},
    {"OUTBOUND_ALLOW_PRIVATE_NETWORKS": True},
    {"OUTBOUND_ALLOWED_NETWORKS": ["169.254.0.0/16", "0.0.0.0/0", "::/0"]},
]


class Hello(FakeVendor):
    @route("GET", "/hello")
    def hello(self, request):
        return Reply(200, {"hello": True})


@pytest.mark.parametrize("overrides", SETTINGS)
@pytest.mark.parametrize("url", METADATA)
def test_cloud_metadata_is_refused_under_every_setting(settings, overrides, url):
    for name, value in overrides.items():
        setattr(settings, name, value)
    with pytest.raises(OutboundRefused, match="metadata"):
        guard_url(url)
    with pytest.raises(OutboundRefused):
        outbound_session().get(url, timeout=1)


def test_a_listed_network_reaches_loopback_and_nothing_else(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    with Hello() as fake:
        with pytest.raises(OutboundRefused):
            outbound_session().get(f"{fake.url}/hello", timeout=5)
        settings.OUTBOUND_ALLOWED_NETWORKS = ["127.0.0.0/8"]
        assert outbound_session().get(f"{fake.url}/hello", timeout=5).json() == {"hello": True}
        for url in ("http://10.1.2.3/", "http://192.168.0.1/", "http://[::1]/"):
            with pytest.raises(OutboundRefused, match="private, loopback"):
                guard_url(url)
        assert len(fake.received) == 1


def test_the_old_switch_allows_every_private_range_but_metadata(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    for url in ("http://10.1.2.3/", "http://192.168.0.1/", "http://127.0.0.1:1/"):
        guard_url(url)
    with pytest.raises(OutboundRefused, match="metadata"):
        guard_url("http://169.254.169.254/")


def test_a_network_that_is_no_cidr_stops_the_service_at_start():
    env = os.environ | {
        "OUTBOUND_ALLOWED_NETWORKS": "10.0.0.0/8,nonsense",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "OUTBOUND_ALLOWED_NETWORKS" in done.stderr


def test_a_connection_to_the_metadata_service_is_refused_with_the_switch_on(
    client_for, owner, tenant, settings
):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    make_credential(tenant, "itdocs-prod-001")
    body = {
        "name": "meta",
        "domain": "itdocs",
        "connector": "itdocs",
        "base_url": "http://169.254.169.254/latest",
        "integrationId": "itdocs-prod-001",
    }
    response = client_for(owner, tenant).post("/api/v1/connections", body, format="json")
    error = assert_tool_error(response, 422, "VALIDATION_ERROR")
    assert "metadata" in str(error["details"]) and not Connection.objects.exists()


# ---- one reading of a URL for every field, when stored and when called

AMBIGUOUS = [
    "http://127.0.0.1:8655\\@example.com/",  # the client connects to 127.0.0.1, urlsplit sees example.com
    "http://example.com\\.evil.test/",
    "http://user:secret@example.com/",  # credentials belong in the vault
    "https://example.com/\ta",
    "ftp://example.com/",
]


@pytest.mark.parametrize("url", AMBIGUOUS)
def test_an_ambiguous_url_is_refused_as_a_connection_base_url(client_for, owner, tenant, url):
    make_credential(tenant, "itdocs-prod-001")
    body = {
        "name": "x",
        "domain": "itdocs",
        "connector": "itdocs",
        "base_url": url,
        "integrationId": "itdocs-prod-001",
    }
    assert_tool_error(
        client_for(owner, tenant).post("/api/v1/connections", body, format="json"), 422, "VALIDATION_ERROR"
    )
    assert not Connection.objects.exists()


@pytest.mark.parametrize("url", AMBIGUOUS)
def test_an_ambiguous_url_is_refused_as_a_sign_in_url_of_a_connection(client_for, owner, tenant, url):
    make_credential(tenant, "sitelib-prod")
    body = {
        "name": "docs",
        "domain": "documents",
        "connector": "sitelib",
        "base_url": "https://graph.example.com/v1.0",
        "integrationId": "sitelib-prod",
        "settings": {"login_url": url},
    }
    response = client_for(owner, tenant).post("/api/v1/connections", body, format="json")
    assert_tool_error(response, 422, "VALIDATION_ERROR")
    assert not Connection.objects.exists()


@pytest.mark.parametrize("url", AMBIGUOUS)
def test_an_ambiguous_url_is_refused_as_a_vault_endpoint(client_for, owner, tenant, url):
    body = {
        "integrationId": "crm",
        "credentialName": "CRM",
        "authType": "oauth2_bearer",
        "accessToken": "t0ken",
        "tokenEndpoint": url,
    }
    error = assert_error(
        client_for(owner, tenant).post("/api/v1/credentials", body, format="json"), 422, "VALIDATION_ERROR"
    )
    assert "tokenEndpoint" in error["details"] and not Credential.objects.exists()


@pytest.mark.parametrize("url", AMBIGUOUS)
def test_an_ambiguous_url_is_refused_as_a_wiki_address(client_for, owner, tenant, url):
    body = {
        "instance_url": url,
        "web_url_instance": "https://wiki.example.com/wiki",
        "username": "a",
        "api_token": "t",
    }
    response = client_for(owner, tenant).post("/v2/wikispace/space-listing", body, format="json")
    assert_v2_validation(response, ["body", "instance_url"])


def test_one_plain_url_passes_every_field(client_for, owner, tenant):
    client = client_for(owner, tenant)
    make_credential(tenant, "sitelib-prod")
    body = {
        "name": "docs",
        "domain": "documents",
        "connector": "sitelib",
        "base_url": "https://graph.example.com/v1.0",
        "integrationId": "sitelib-prod",
        "settings": {"login_url": "https://login.example.com"},
    }
    assert client.post("/api/v1/connections", body, format="json").status_code == 200
    credential = {
        "integrationId": "crm",
        "credentialName": "CRM",
        "authType": "oauth2_bearer",
        "accessToken": "t0ken",
        "tokenEndpoint": "https://login.example.com/oauth2/token",
    }
    assert client.post("/api/v1/credentials", credential, format="json").status_code == 200
