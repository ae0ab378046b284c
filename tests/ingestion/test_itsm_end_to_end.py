"""Knowledge bases of the fake IT-service platform ingested through the HTTP endpoints and a real
Celery worker, run again after articles changed, retried after a failure was fixed, and deleted,
the way a user would (who reads what: test_itsm_permissions)."""

from __future__ import annotations

import pytest

from core.models import Role
from tests import factories
from tests.ingestion.platforms import failed_files, itsm_upload, vectordb
from tests.ingestion.runs import counted, search_titles, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(client_for, tenant):
    return client_for(factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator"), tenant)


@pytest.fixture
def kb(itsm):
    it = itsm.add_kb("IT", description="IT how-to")
    hr = itsm.add_kb("HR")
    articles = {
        "reset": itsm.add_article(it, "Password reset", "<p>Use the lantern portal to reset it.</p>"),
        "wifi": itsm.add_article(
            it, "Guest Wi-Fi", "<p>The guest network is called meadow.</p>", u_market="EU"
        ),
        "payroll": itsm.add_article(
            it,
            "Payroll calendar",
            "<p>Salaries are paid on the sparrow day.</p>",
            can_read_user_criteria="finance,hr-staff",
        ),
        "draft": itsm.add_article(it, "Draft", "<p>Unfinished badger notes.</p>", workflow_state="draft"),
        "leave": itsm.add_article(hr, "Parental leave", "<p>Leave requests go through the otter form.</p>"),
    }
    guide = itsm.add_attachment(
        articles["reset"], "portal-guide.txt", b"The lantern portal asks for the falcon code.", "text/plain"
    )
    return {"it": it, "hr": hr, **articles, "guide": guide}


def run_upload(api, finished_runs, body: dict, path: str = "/v2/itsmplatform/upload") -> dict:
    response = api.post(path, body, format="json")
    assert response.status_code == 202, response.json()
    return wait_for_run(api, finished_runs, response.json()["data"]["sync_run_id"], "itsmplatform")


def test_knowledge_bases_are_ingested_then_only_their_changes_are_fetched_and_deleted(
    api, tenant, itsm, kb, finished_runs, celery_worker_thread
):
    first = run_upload(api, finished_runs, itsm_upload(tenant, itsm, [kb["it"].sys_id]))

    assert first["status"] == "success", first
    assert counted(first) == {"discovered": 4, "processed": 4, "succeeded": 4, "skipped": 0, "failed": 0}
    assert search_titles(api, tenant, "lantern portal reset") == ["Password reset"]
    assert search_titles(api, tenant, "falcon code") == ["portal-guide.txt"]
    assert search_titles(api, tenant, "meadow guest network EU") == ["Guest Wi-Fi"]
    assert "Draft" not in search_titles(api, tenant, "badger notes", top_k=10)
    assert "Parental leave" not in search_titles(api, tenant, "otter form", top_k=10)

    itsm.edit_article(kb["wifi"]["sys_id"], text="<p>The guest network is now called orchard.</p>")
    itsm.retire_article(kb["payroll"]["sys_id"])
    itsm.delete_attachment(kb["guide"]["sys_id"])
    fetched_before = len(itsm.fetched_article_ids())
    again = itsm_upload(tenant, itsm, [kb["it"].sys_id], configuration_id=first["sync_configuration_id"])
    second = run_upload(api, finished_runs, again, "/v2/itsmplatform/kb-upload")

    assert second["status"] == "success" and second["incremental"], second
    assert counted(second) == {"discovered": 2, "processed": 2, "succeeded": 1, "skipped": 1, "failed": 0}
    assert itsm.fetched_article_ids()[fetched_before:] == [kb["wifi"]["sys_id"]]
    assert search_titles(api, tenant, "orchard guest network") == ["Guest Wi-Fi"]
    assert "Payroll calendar" not in search_titles(api, tenant, "sparrow day salaries", top_k=10)
    assert "portal-guide.txt" not in search_titles(api, tenant, "falcon code", top_k=10)

    body = {"knowledge_bases": [kb["it"].sys_id], "vectordb_config": vectordb(tenant)}
    deleted = api.post("/v2/itsmplatform/kb-delete", body, format="json")
    assert deleted.status_code == 200, deleted.json()
    assert deleted.json()["data"]["documents_deleted"] == 2
    assert search_titles(api, tenant, "lantern portal", top_k=10) == []


def test_an_attachment_that_fails_is_retried_once_fixed_and_basic_auth_works(
    api, tenant, itsm, kb, finished_runs, celery_worker_thread
):
    itsm.failing_downloads.add(kb["guide"]["sys_id"])
    first = run_upload(api, finished_runs, itsm_upload(tenant, itsm, [], oauth=False))
    assert first["status"] == "partial" and first["failed"] == 1, first
    [(_, (error_type, _))] = failed_files(api, tenant, "itsmplatform").items()
    assert error_type == "NETWORK_ERROR"
    assert search_titles(api, tenant, "otter form leave") == ["Parental leave"]  # every KB

    itsm.failing_downloads.clear()
    body = {"vectordb_config": vectordb(tenant), "platform_type": "itsmplatform"}  # every failed file
    response = api.post("/v2/cloudstore/retry-failed", body, format="json")
    assert response.status_code == 202, response.json()
    assert (response.json()["data"]["queued"], response.json()["data"]["skipped"]) == (1, 0)
    retried = wait_for_run(api, finished_runs, response.json()["data"]["sync_run_id"], "itsmplatform")
    assert retried["status"] == "success" and retried["succeeded"] == 1, retried
    assert failed_files(api, tenant, "itsmplatform") == {}
    assert search_titles(api, tenant, "falcon code") == ["portal-guide.txt"]


def test_the_upload_checks_its_body(api, tenant, itsm):
    half_oauth = itsm_upload(tenant, itsm, [])
    half_oauth["authorization"]["client_secret"] = ""
    response = api.post("/v2/itsmplatform/upload", half_oauth, format="json")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][:2] == ["body", "authorization"]

    with_scheme = itsm_upload(tenant, itsm, ["bad id!"])
    with_scheme["authorization"]["itsmplatform_domain"] = "ftp://x"
    response = api.post("/v2/itsmplatform/upload", with_scheme, format="json")
    assert response.status_code == 422
    locs = {tuple(error["loc"]) for error in response.json()["detail"]}
    assert ("body", "authorization", "itsmplatform_domain") in locs
    assert ("body", "knowledge_bases", 0) in locs or ("body", "knowledge_bases", "0") in locs
    assert itsm.received == []


def test_an_upload_without_knowledge_bases_or_fields_takes_every_knowledge_base(api, tenant, itsm):
    body = itsm_upload(tenant, itsm, [])
    del body["knowledge_bases"], body["article_query_names"]
    response = api.post("/v2/itsmplatform/upload", body, format="json")
    assert response.status_code == 202, response.json()
    configuration = api.get(f"/v2/sync-configurations/{response.json()['data']['sync_configuration_id']}")
    assert configuration.json()["data"]["scope"] == {"knowledge_bases": [], "article_query_names": []}
