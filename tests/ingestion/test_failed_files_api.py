"""POST /v2/cloudstore/failed-files, on every store backend (see conftest)."""

from __future__ import annotations

import pytest

from core.models import Role
from tests import factories
from tests.helpers import TIMESTAMP, assert_v2_detail, assert_v2_validation

URL = "/v2/cloudstore/failed-files"


@pytest.fixture
def integrator(tenant):
    return factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator")


def body_for(tenant, platform_type="sitelib", **vectordb):
    return {
        "vectordb_config": {"platform_domain": "acme.example.com", "tenant_id": str(tenant.id)} | vectordb,
        "platform_type": platform_type,
    }


def post(client, body, query=""):
    return client.post(URL + query, body, format="json")


def test_it_lists_the_platforms_failed_files_in_the_contracts_shape(
    store, client_for, integrator, tenant, record_failure
):
    record_failure(tenant, "doc-1", error_type="FILE_TOO_LARGE", error_message="72 MB > 50 MB", hours_ago=2)
    record_failure(tenant, "page-2", content_type="sitelib_article", hours_ago=1)
    record_failure(tenant, "page-2", content_type="sitelib_article")
    record_failure(tenant, "wiki-3", content_type="wikispace_article")
    response = post(client_for(integrator, tenant), body_for(tenant))
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"success", "message", "data", "timestamp"} and body["success"] is True
    assert TIMESTAMP.match(body["timestamp"]) and body["message"]
    assert set(body["data"]) == {"failed_files", "total", "platform_type"}
    assert body["data"]["total"] == 2 and body["data"]["platform_type"] == "sitelib"
    newest, older = body["data"]["failed_files"]
    assert newest["file_id"] == "page-2" and newest["retry_count"] == 2
    assert older == {
        "file_id": "doc-1",
        "file_name": "doc-1.pdf",
        "source_url": "https://files.example.com/doc-1",
        "error_type": "FILE_TOO_LARGE",
        "error_message": "72 MB > 50 MB",
        "failed_at": older["failed_at"],
        "retry_count": 1,
    }
    assert TIMESTAMP.match(older["failed_at"]) and older["failed_at"] < newest["failed_at"]


def test_a_platform_without_failures_answers_an_empty_list(store, client_for, integrator, tenant):
    data = post(client_for(integrator, tenant), body_for(tenant, "web")).json()["data"]
    assert data == {"failed_files": [], "total": 0, "platform_type": "web"}


def test_records_past_retention_are_not_listed(
    store, settings, client_for, integrator, tenant, record_failure
):
    settings.FAILED_FILES_RETENTION_DAYS = 2
    record_failure(tenant, "kept", hours_ago=47)
    record_failure(tenant, "expired", hours_ago=49)
    data = post(client_for(integrator, tenant), body_for(tenant)).json()["data"]
    assert [f["file_id"] for f in data["failed_files"]] == ["kept"] and data["total"] == 1


def test_another_tenants_records_are_never_listed(
    store, client_for, integrator, outsider, tenant, other_tenant, record_failure
):
    record_failure(tenant, "ours")
    record_failure(other_tenant, "theirs")
    ours = post(client_for(integrator, tenant), body_for(tenant)).json()["data"]
    theirs = post(client_for(outsider, other_tenant), body_for(other_tenant)).json()["data"]
    assert [f["file_id"] for f in ours["failed_files"]] == ["ours"]
    assert [f["file_id"] for f in theirs["failed_files"]] == ["theirs"]


@pytest.mark.parametrize("named", ["other", "quote"])
def test_a_body_naming_another_tenant_is_forbidden(
    store, client_for, integrator, tenant, other_tenant, record_failure, named
):
    record_failure(other_tenant, "theirs")
    tenant_id = str(other_tenant.id) if named == "other" else f"{tenant.id}' or PartitionKey ne '"
    response = post(client_for(integrator, tenant), body_for(tenant, tenant_id=tenant_id))
    assert "tenant" in assert_v2_detail(response, 403)


def test_an_outsider_cannot_read_our_records_by_naming_our_tenant(
    store, client_for, outsider, tenant, other_tenant, record_failure
):
    record_failure(tenant, "ours")
    response = post(client_for(outsider, other_tenant), body_for(tenant))
    assert_v2_detail(response, 403)
    assert_v2_detail(post(client_for(outsider, tenant), body_for(tenant)), 403)


def test_the_tenant_id_may_be_written_in_upper_case(store, client_for, integrator, tenant, record_failure):
    record_failure(tenant, "doc")
    response = post(client_for(integrator, tenant), body_for(tenant, tenant_id=str(tenant.id).upper()))
    assert response.json()["data"]["total"] == 1


def test_limit_and_offset_page_through_the_listing(store, client_for, integrator, tenant, record_failure):
    for n in range(5):
        record_failure(tenant, f"doc-{n}", hours_ago=n)
    client = client_for(integrator, tenant)
    data = post(client, body_for(tenant), "?limit=2&offset=1").json()["data"]
    assert [f["file_id"] for f in data["failed_files"]] == ["doc-1", "doc-2"] and data["total"] == 5
    assert post(client, body_for(tenant), "?offset=4").json()["data"]["failed_files"][0]["file_id"] == "doc-4"


@pytest.mark.parametrize(
    ("query", "loc", "type_"),
    [
        ("?limit=ten", ["query", "limit"], "type_error.integer"),
        ("?limit=0", ["query", "limit"], "value_error.number.not_ge"),
        ("?limit=101", ["query", "limit"], "value_error.number.not_le"),
        ("?offset=-1", ["query", "offset"], "value_error.number.not_ge"),
        ("?limit=", ["query", "limit"], "type_error.integer"),
    ],
)
def test_bad_paging_parameters_are_query_errors(store, client_for, integrator, tenant, query, loc, type_):
    assert_v2_validation(post(client_for(integrator, tenant), body_for(tenant), query), loc, type_)


@pytest.mark.parametrize(
    ("body", "loc", "type_"),
    [
        ({"platform_type": "sitelib"}, ["body", "vectordb_config"], "value_error.missing"),
        ({"vectordb_config": {"platform_domain": "d", "tenant_id": "t"}}, ["body", "platform_type"], None),
        (
            {"vectordb_config": {"tenant_id": "t"}, "platform_type": "sitelib"},
            ["body", "vectordb_config", "platform_domain"],
            "value_error.missing",
        ),
        (
            {"vectordb_config": {"platform_domain": "d"}, "platform_type": "sitelib"},
            ["body", "vectordb_config", "tenant_id"],
            "value_error.missing",
        ),
        (
            {"vectordb_config": {"platform_domain": "d", "tenant_id": "t"}, "platform_type": "dropbox"},
            ["body", "platform_type"],
            "value_error.const",
        ),
        (
            {"vectordb_config": {"platform_domain": "d", "tenant_id": "t"}, "platform_type": "SITELIB"},
            ["body", "platform_type"],
            "value_error.const",
        ),
        (
            {"vectordb_config": "acme", "platform_type": "sitelib"},
            ["body", "vectordb_config"],
            "type_error.dict",
        ),
        (
            {"vectordb_config": {"platform_domain": "d", "tenant_id": ["t"]}, "platform_type": "sitelib"},
            ["body", "vectordb_config", "tenant_id"],
            "type_error.str",
        ),
        (
            {"vectordb_config": {"platform_domain": "", "tenant_id": "t"}, "platform_type": "sitelib"},
            ["body", "vectordb_config", "platform_domain"],
            None,
        ),
    ],
)
def test_invalid_bodies_answer_422_naming_the_field(store, client_for, integrator, tenant, body, loc, type_):
    entry = assert_v2_validation(post(client_for(integrator, tenant), body), loc, type_)
    assert entry["msg"]


def test_missing_fields_are_all_listed_at_once(store, client_for, integrator, tenant):
    detail = post(client_for(integrator, tenant), {}).json()["detail"]
    assert {tuple(e["loc"]) for e in detail} == {("body", "vectordb_config"), ("body", "platform_type")}
    assert {e["type"] for e in detail} == {"value_error.missing"}


def test_a_body_that_is_not_json_is_a_422(store, client_for, integrator, tenant):
    response = client_for(integrator, tenant).post(URL, "{not json", content_type="application/json")
    assert_v2_validation(response, ["body"], "value_error.jsondecode")


def test_a_body_that_is_not_an_object_is_a_422(store, client_for, integrator, tenant):
    response = client_for(integrator, tenant).post(URL, ["sitelib"], format="json")
    assert_v2_validation(response, ["body"], "type_error.dict")


def test_null_fields_are_422_not_allowed(store, client_for, integrator, tenant):
    response = post(client_for(integrator, tenant), {"vectordb_config": None, "platform_type": None})
    assert_v2_validation(response, ["body", "vectordb_config"], "type_error.none.not_allowed")
    assert_v2_validation(response, ["body", "platform_type"], "type_error.none.not_allowed")


def test_it_needs_credentials(store, client_for, tenant):
    assert_v2_detail(post(client_for(None, tenant), body_for(tenant)), 401)


def test_it_needs_the_tenant_header(store, client_for, integrator, tenant):
    assert post(client_for(integrator, None), body_for(tenant)).status_code == 400


def test_a_viewer_may_not_read_failed_files(store, client_for, teammate, tenant):
    assert_v2_detail(post(client_for(teammate, tenant), body_for(tenant)), 403)


def test_an_api_key_needs_the_knowledge_read_scope(store, client_for, tenant, record_failure):
    record_failure(tenant, "doc")
    _, readable = factories.make_api_key(tenant, ["knowledge:read"])
    _, vault_only = factories.make_api_key(tenant, ["vault:read"])
    assert post(client_for(readable, tenant), body_for(tenant)).json()["data"]["total"] == 1
    assert_v2_detail(post(client_for(vault_only, tenant), body_for(tenant)), 403)


def test_an_unreachable_azure_table_answers_503_and_says_nothing_of_the_connection(
    settings, client_for, integrator, tenant
):
    settings.FAILED_FILES_BACKEND = "azure_tables"
    settings.AZURE_TABLES_CONNECTION_STRING = (
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=c2VjcmV0LWtleQ==;"
        "TableEndpoint=http://127.0.0.1:9/devstoreaccount1;"
    )
    settings.FAILED_FILES_TABLE = "Unreachable"
    response = post(client_for(integrator, tenant), body_for(tenant))
    detail = assert_v2_detail(response, 503)
    assert "127.0.0.1" not in detail and "c2VjcmV0" not in detail
