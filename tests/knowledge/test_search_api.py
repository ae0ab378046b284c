"""POST /v2/knowledge/search: the tenant's knowledge base searched by meaning (DESIGN section 15).
The hashing embedder (the test default) ranks by shared words; one test runs the real model."""

from __future__ import annotations

import pytest

from core.models import Role
from tests import factories
from tests.factories import make_searchable_document
from tests.helpers import TIMESTAMP, assert_v2_detail, assert_v2_validation

URL = "/v2/knowledge/search"
SITE = "https://contoso.sitelib.test/sites/it"


@pytest.fixture
def viewer_client(client_for, tenant):
    """An integration viewer: the least role that may search."""
    user = factories.make_user(tenant, [Role.INTEGRATION_VIEWER], username="viewer", email="v@acme.test")
    return client_for(user, tenant)


@pytest.fixture
def handbook(tenant):
    make_searchable_document(
        tenant,
        ["Laptops are replaced every three years.", "Travel expenses are reimbursed monthly."],
        title="Office handbook",
        source_url=f"{SITE}/Shared/handbook.docx",
    )
    return make_searchable_document(
        tenant,
        ["To reset your VPN password, open the self-service portal and choose reset."],
        title="VPN guide",
        source_url=f"{SITE}/Shared/vpn.docx",
        platform_type="wikispace",
        content_type="wikispace_article",
    )


def body(tenant, query="how do I reset the VPN password", **extra) -> dict:
    config = {"platform_domain": "contoso.example.com", "tenant_id": str(tenant.id)}
    return {"query": query, "vectordb_config": config, **extra}


def search(client, payload):
    return client.post(URL, payload, format="json")


def results_of(response) -> list[dict]:
    assert response.status_code == 200, response.content
    return response.json()["data"]["results"]


def test_it_finds_the_stored_document_that_matches_the_query(viewer_client, tenant, handbook):
    response = search(viewer_client, body(tenant))
    payload = response.json()
    assert response.status_code == 200, payload
    assert set(payload) == {"success", "data", "timestamp"} and payload["success"] is True
    assert TIMESTAMP.match(payload["timestamp"])
    assert payload["data"]["model"] == "hash-256"
    assert payload["data"]["mode"] == "hybrid"
    best = payload["data"]["results"][0]
    assert best == {
        "document_id": f"doc-{handbook.id}",
        "title": "VPN guide",
        "source_url": f"{SITE}/Shared/vpn.docx",
        "platform_type": "wikispace",
        "content_type": "wikispace_article",
        "chunk": "To reset your VPN password, open the self-service portal and choose reset.",
        "score": pytest.approx(best["score"]),
    }
    scores = [r["score"] for r in payload["data"]["results"]]
    assert scores == sorted(scores, reverse=True) and len(scores) == 3


def test_it_finds_a_paraphrase_with_the_real_model(viewer_client, tenant, settings):
    settings.EMBEDDING_BACKEND = "local"
    make_searchable_document(tenant, ["The cafeteria serves lunch from noon until two."], title="Canteen")
    wanted = make_searchable_document(
        tenant, ["Steps to recover access when you forgot your login credentials."], title="Account recovery"
    )
    data = search(viewer_client, body(tenant, "I can't remember my password")).json()["data"]
    assert data["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert len(data["results"]) == 2  # the query shares no word with either passage
    assert data["results"][0]["document_id"] == f"doc-{wanted.id}"


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_the_answer_names_the_mode_it_searched_in(viewer_client, tenant, handbook, mode):
    data = search(viewer_client, body(tenant, mode=mode)).json()["data"]
    assert data["mode"] == mode
    assert data["results"][0]["title"] == "VPN guide"


def test_an_error_code_comes_first_in_hybrid_mode_among_similar_tickets(viewer_client, tenant):
    for code in ("ERR-4032", "ERR-4301", "ERR-3041", "ERR-4013", "ERR-4130"):
        make_searchable_document(tenant, [f"The VPN gateway answers {code} after the update."], title=code)
    make_searchable_document(tenant, ["The VPN gateway answers ERR-4031 after the update."], title="ERR-4031")
    results = results_of(search(viewer_client, body(tenant, "VPN gateway ERR-4031", top_k=3)))
    assert results[0]["title"] == "ERR-4031" and results[0]["score"] > results[1]["score"]


def test_keyword_mode_answers_without_embedding_the_query(viewer_client, tenant, handbook, settings):
    # A model server that cannot be reached, serving the model that embedded the handbook.
    settings.EMBEDDING_BACKEND, settings.EMBEDDING_MODEL = "openai", "hash-256"
    settings.EMBEDDING_URL = "http://127.0.0.1:9/v1"
    data = results_of(search(viewer_client, body(tenant, "VPN password", mode="keyword")))
    assert [r["title"] for r in data] == ["VPN guide"]
    assert_v2_detail(search(viewer_client, body(tenant, "VPN password", mode="hybrid")), 503)


def test_it_never_returns_another_tenants_chunks(viewer_client, tenant, other_tenant, handbook):
    theirs = make_searchable_document(
        other_tenant, ["To reset your VPN password, open the self-service portal and choose reset."]
    )
    found = {r["document_id"] for r in results_of(search(viewer_client, body(tenant, top_k=50)))}
    assert f"doc-{theirs.id}" not in found and f"doc-{handbook.id}" in found


def test_another_tenants_id_in_vectordb_config_is_403(viewer_client, tenant, other_tenant, handbook):
    payload = body(tenant) | {"vectordb_config": {"platform_domain": "x", "tenant_id": str(other_tenant.id)}}
    assert "x-tenantid" in assert_v2_detail(search(viewer_client, payload), 403)


def test_a_tenant_id_that_is_not_a_uuid_is_403(viewer_client, tenant):
    payload = body(tenant) | {"vectordb_config": {"platform_domain": "x", "tenant_id": "acme"}}
    assert_v2_detail(search(viewer_client, payload), 403)


def test_top_k_caps_the_results_and_defaults_to_five(viewer_client, tenant):
    make_searchable_document(tenant, [f"password note number {i}" for i in range(7)])
    assert len(results_of(search(viewer_client, body(tenant, "password note")))) == 5
    assert len(results_of(search(viewer_client, body(tenant, "password note", top_k=2)))) == 2


def test_platform_types_narrow_the_search(viewer_client, tenant, handbook):
    results = results_of(search(viewer_client, body(tenant, platform_types=["sitelib"])))
    assert {r["platform_type"] for r in results} == {"sitelib"}


def test_a_query_naming_groups_sees_their_chunks_and_everyones(viewer_client, tenant):
    make_searchable_document(tenant, ["payroll calendar for finance"], title="Finance", audience=["finance"])
    make_searchable_document(tenant, ["payroll calendar for engineering"], title="Eng", audience=["eng"])
    make_searchable_document(tenant, ["payroll calendar for everyone"], title="All", audience=["all"])
    for audience, titles in ((["finance"], {"Finance", "All"}), (None, {"Finance", "Eng", "All"})):
        extra = {} if audience is None else {"audience": audience}
        found = results_of(search(viewer_client, body(tenant, "payroll", **extra)))
        assert {r["title"] for r in found} == titles


def test_an_empty_knowledge_base_answers_no_results(viewer_client, tenant):
    assert results_of(search(viewer_client, body(tenant))) == []


@pytest.mark.parametrize(
    ("change", "loc", "type_"),
    [
        ({"query": None}, ["body", "query"], "type_error.none.not_allowed"),
        ({"query": "   "}, ["body", "query"], "value_error.any_str.min_length"),
        ({"query": "x" * 2001}, ["body", "query"], "value_error.any_str.max_length"),
        ({"top_k": 0}, ["body", "top_k"], "value_error.number.not_ge"),
        ({"top_k": 51}, ["body", "top_k"], "value_error.number.not_le"),
        ({"top_k": "many"}, ["body", "top_k"], "type_error.integer"),
        ({"platform_types": ["web"]}, ["body", "platform_types", 0], "value_error.const"),
        ({"platform_types": []}, ["body", "platform_types"], "value_error.list.min_items"),
        ({"platform_types": "sitelib"}, ["body", "platform_types"], "type_error.list"),
        ({"audience": "finance"}, ["body", "audience"], "type_error.list"),
        ({"mode": "fuzzy"}, ["body", "mode"], "value_error.const"),
        ({"mode": "HYBRID"}, ["body", "mode"], "value_error.const"),
        ({"mode": 1}, ["body", "mode"], "type_error.str"),
        ({"mode": ["keyword"]}, ["body", "mode"], "type_error.str"),
        ({"mode": None}, ["body", "mode"], "type_error.none.not_allowed"),
        ({"vectordb_config": "acme"}, ["body", "vectordb_config"], "type_error.dict"),
        ({"vectordb_config": {"platform_domain": "x"}}, ["body", "vectordb_config", "tenant_id"], None),
    ],
)
def test_bad_fields_are_422_in_the_v2_shape(viewer_client, tenant, change, loc, type_):
    assert_v2_validation(search(viewer_client, body(tenant) | change), loc, type_)


def test_missing_fields_are_all_reported(viewer_client):
    response = search(viewer_client, {})
    assert_v2_validation(response, ["body", "query"], "value_error.missing")
    assert_v2_validation(response, ["body", "vectordb_config"], "value_error.missing")


def test_a_body_that_is_not_an_object_is_422(viewer_client):
    assert search(viewer_client, ["query"]).status_code == 422


def test_a_query_that_cannot_be_embedded_is_503(viewer_client, tenant, settings, tmp_path):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL_DIR = str(tmp_path)  # no weights there
    detail = assert_v2_detail(search(viewer_client, body(tenant)), 503)
    assert detail.startswith("The query could not be embedded: ") and "cannot be read" in detail


def test_it_needs_credentials(client_for, tenant):
    assert_v2_detail(search(client_for(None, tenant), body(tenant)), 401)


def test_a_member_without_a_knowledge_role_is_403(client_for, tenant):
    auditor = factories.make_user(tenant, [Role.AUDIT_VIEWER], username="auditor", email="a@acme.test")
    assert_v2_detail(search(client_for(auditor, tenant), body(tenant)), 403)


def test_an_api_key_needs_the_knowledge_read_scope(client_for, tenant, handbook):
    _key, reader = factories.make_api_key(tenant, ["knowledge:read"], name="reader")
    _key, other = factories.make_api_key(tenant, ["tools:read"], name="other")
    assert results_of(search(client_for(reader, tenant), body(tenant)))
    assert_v2_detail(search(client_for(other, tenant), body(tenant)), 403)


@pytest.mark.parametrize(
    ("change", "loc", "type_"),
    [
        ({"top_k": "5"}, ["body", "top_k"], "type_error.integer"),
        ({"top_k": 2.5}, ["body", "top_k"], "type_error.integer"),
        ({"top_k": True}, ["body", "top_k"], "type_error.integer"),
        ({"query": 12345}, ["body", "query"], "type_error.str"),
        ({"query": True}, ["body", "query"], "type_error.str"),
        ({"platform_types": ["sitelib", 7]}, ["body", "platform_types", 1], "type_error.str"),
        ({"audience": [1]}, ["body", "audience", 0], "type_error.str"),
    ],
)
def test_a_value_of_the_wrong_json_type_is_422_naming_it(viewer_client, tenant, change, loc, type_):
    assert_v2_validation(search(viewer_client, body(tenant) | change), loc, type_)


def test_a_tenant_id_given_as_a_number_is_422(viewer_client, tenant):
    payload = body(tenant)
    payload["vectordb_config"]["tenant_id"] = tenant.id.int
    assert_v2_validation(
        search(viewer_client, payload), ["body", "vectordb_config", "tenant_id"], "type_error.str"
    )
