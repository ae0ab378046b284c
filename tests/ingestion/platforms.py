"""The fake wiki and IT-service platforms with content to ingest, and the upload bodies that name
them."""

from __future__ import annotations

import pytest

from tests.fakes.itsm_content import FakeItsmContent
from tests.fakes.wiki_permissions import FakeWikiPermissions

DOMAIN = "acme.example.com"
WIKI_USER, WIKI_TOKEN = "reader@acme.test", "wiki-token-5e1f0a9c7b"
ITSM_USER, ITSM_PASSWORD = "kb.reader", "itsm-password-3c8d1e6f"
ITSM_CLIENT, ITSM_SECRET = "kb-ingest-app", "itsm-client-secret-9a2b7c4d"


@pytest.fixture
def wiki(platforms_reachable):
    with FakeWikiPermissions() as fake:
        fake.add_user(WIKI_USER, WIKI_TOKEN)
        yield fake


@pytest.fixture
def itsm(settings, platforms_reachable):
    with FakeItsmContent() as fake:
        fake.users[ITSM_USER] = ITSM_PASSWORD
        fake.clients[ITSM_CLIENT] = ITSM_SECRET
        settings.OUTBOUND_CA_BUNDLE = fake.ca_file
        yield fake


def sync_config(configuration_id: str = "", *, incremental: bool = False) -> dict:
    return {
        "sync_configuration_id": configuration_id,
        "incremental": incremental,
        "last_sync": "",
        "processor_mode": "auto",
        "use_ocr": False,
    }


def vectordb(tenant) -> dict:
    return {"platform_domain": DOMAIN, "tenant_id": str(tenant.id)}


def wiki_upload(
    tenant, wiki, space: str, *, configuration_id: str = "", token: str = WIKI_TOKEN, **extra
) -> dict:
    return {
        "authorization": {
            "instance_url": wiki.instance_url,
            "web_url_instance": wiki.instance_url,
            "username": WIKI_USER,
            "api_token": token,
        },
        "content_restriction": {"audience": ["all"], "blacklisted": False, "source_restriction": False},
        "vectordb_config": vectordb(tenant),
        "sync_config": sync_config(configuration_id, incremental=bool(configuration_id)),
        "space": space,
        "job_id": "",
        **extra,
    }


def itsm_upload(
    tenant, itsm, knowledge_bases: list[str], *, configuration_id: str = "", oauth: bool = True, **extra
) -> dict:
    return {
        "authorization": {
            "username": ITSM_USER,
            "password": ITSM_PASSWORD,
            "client_id": ITSM_CLIENT if oauth else "",
            "client_secret": ITSM_SECRET if oauth else "",
            "refresh_token": "",
            "itsmplatform_domain": itsm.domain,
        },
        "vectordb_config": vectordb(tenant),
        "content_restriction": {"audience": ["all"], "blacklisted": False, "source_restriction": False},
        "sync_config": sync_config(configuration_id, incremental=bool(configuration_id)),
        "knowledge_bases": knowledge_bases,
        "article_query_names": ["short_description", "text", "u_market"],
        "job_id": "",
        **extra,
    }


def failed_files(api, tenant, platform: str) -> dict[str, tuple[str, int]]:
    """file_id -> (error type, retry count) of the tenant's failed files of the platform."""
    body = {"vectordb_config": vectordb(tenant), "platform_type": platform}
    response = api.post("/v2/cloudstore/failed-files", body, format="json")
    assert response.status_code == 200, response.json()
    return {
        r["file_id"]: (r["error_type"], r["retry_count"]) for r in response.json()["data"]["failed_files"]
    }
