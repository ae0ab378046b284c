"""POST /v2/sitelib/delete and DELETE /v2/sitelib/sources: everything of the tenant under a URL
leaves the knowledge base; nothing of another tenant is touched."""

from __future__ import annotations

import numpy as np
import pytest

from core.models import AuditEntry, Role
from knowledge.models import Chunk, Document
from knowledge.vectors.store import document_upsert
from tests import factories
from tests.helpers import TIMESTAMP, assert_v2_detail, assert_v2_validation

SITE = "https://contoso.sitelib.test/sites/handbook"
ENDPOINTS = [("post", "/v2/sitelib/delete"), ("delete", "/v2/sitelib/sources")]


@pytest.fixture
def api(client_for, tenant):
    return client_for(factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator"), tenant)


def index(tenant, url: str, chunks: int = 2) -> Document:
    vectors = np.eye(chunks, 4, dtype=np.float32) + 0.1
    document, _, _ = document_upsert(
        tenant=tenant,
        platform_type="sitelib",
        content_type="sitelib_attachment",
        source_id=url,
        source_url=url,
        title=url.rsplit("/", 1)[-1],
        content_hash="0" * 64,
        audience=["all"],
        readers=["everyone"],
        metadata={},
        sync_configuration_id=None,
        model="test-model",
        chunks=[(f"passage {n}", vectors[n]) for n in range(chunks)],
    )
    return document


def body(tenant, source_url=SITE, **overrides) -> dict:
    return {
        "source_url": source_url,
        "vectordb_config": {"platform_domain": "acme.example.com", "tenant_id": str(tenant.id)},
        "sync_config": {
            "sync_configuration_id": "",
            "incremental": False,
            "last_sync": "",
            "processor_mode": "auto",
        },
    } | overrides


def send(api, method, url, payload):
    return getattr(api, method)(url, payload, format="json")


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_it_deletes_every_document_under_a_site_and_says_how_many(api, tenant, method, url):
    index(tenant, f"{SITE}/Shared Documents/a.docx")
    index(tenant, f"{SITE}/Shared Documents/Policies/b.pdf", chunks=3)
    kept = index(tenant, "https://contoso.sitelib.test/sites/handbook-archive/c.pdf")
    response = send(api, method, url, body(tenant))
    assert response.status_code == 200, response.json()
    payload = response.json()
    assert set(payload) == {"success", "message", "data", "timestamp"} and payload["success"] is True
    data = payload["data"]
    assert {k: data[k] for k in ("source_url", "documents_deleted", "vectors_removed")} == {
        "source_url": SITE,
        "documents_deleted": 2,
        "vectors_removed": 5,
    }
    assert TIMESTAMP.match(data["deleted_at"])
    assert list(Document.objects.values_list("id", flat=True)) == [kept.id]
    assert Chunk.objects.count() == 2


def test_a_document_url_deletes_that_document_only(api, tenant):
    one = f"{SITE}/Shared Documents/a.docx"
    index(tenant, one)
    index(tenant, f"{SITE}/Shared Documents/a.docx.bak")
    data = send(api, "post", "/v2/sitelib/delete", body(tenant, one)).json()["data"]
    assert data["documents_deleted"] == 1
    assert Document.objects.get().source_url.endswith(".bak")


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_nothing_indexed_under_the_url_is_404(api, tenant, method, url):
    index(tenant, "https://contoso.sitelib.test/sites/other/a.docx")
    assert_v2_detail(send(api, method, url, body(tenant)), 404)
    assert Document.objects.count() == 1


def test_another_tenants_documents_are_never_touched(api, tenant, other_tenant):
    theirs = index(other_tenant, f"{SITE}/Shared Documents/theirs.docx")
    assert_v2_detail(send(api, "post", "/v2/sitelib/delete", body(tenant)), 404)
    assert Document.objects.filter(id=theirs.id).exists() and Chunk.objects.count() == 2


def test_naming_another_tenants_knowledge_base_is_403(api, tenant, other_tenant):
    index(other_tenant, f"{SITE}/x.docx")
    payload = body(tenant, vectordb_config={"platform_domain": "x", "tenant_id": str(other_tenant.id)})
    assert_v2_detail(send(api, "post", "/v2/sitelib/delete", payload), 403)
    assert Document.objects.count() == 1


def test_a_delete_is_audited(api, tenant):
    index(tenant, f"{SITE}/a.docx")
    send(api, "post", "/v2/sitelib/delete", body(tenant))
    entry = AuditEntry.objects.get(action="KNOWLEDGE_SOURCE_DELETED")
    assert entry.details == {"documentsDeleted": 1, "vectorsRemoved": 2} and entry.resource["id"] == SITE


def test_a_viewer_may_not_delete(client_for, tenant):
    viewer = client_for(factories.make_user(tenant, [Role.INTEGRATION_VIEWER], username="viewer"), tenant)
    index(tenant, f"{SITE}/a.docx")
    assert_v2_detail(send(viewer, "post", "/v2/sitelib/delete", body(tenant)), 403)
    assert Document.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "loc", "type_"),
    [
        (lambda b: b.pop("source_url"), ["body", "source_url"], "value_error.missing"),
        (lambda b: b.update(source_url="not a url"), ["body", "source_url"], "value_error.url.scheme"),
        (lambda b: b.update(source_url=["x"]), ["body", "source_url"], "type_error.str"),
        (lambda b: b.pop("vectordb_config"), ["body", "vectordb_config"], "value_error.missing"),
        (lambda b: b.pop("sync_config"), ["body", "sync_config"], "value_error.missing"),
        (
            lambda b: b["sync_config"].pop("processor_mode"),
            ["body", "sync_config", "processor_mode"],
            "value_error.missing",
        ),
    ],
)
@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_bad_bodies_are_422_naming_the_field(api, tenant, method, url, change, loc, type_):
    payload = body(tenant)
    change(payload)
    assert_v2_validation(send(api, method, url, payload), loc, type_)
