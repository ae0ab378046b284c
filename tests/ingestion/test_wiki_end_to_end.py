"""A wiki space ingested through the HTTP endpoints and a real Celery worker, run again after the
space changed, retried after a failure was fixed, and deleted, the way a user would."""

from __future__ import annotations

import pytest

from core.models import Role
from tests import factories
from tests.ingestion.platforms import failed_files, vectordb, wiki_upload
from tests.ingestion.runs import counted, search_titles, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(client_for, tenant):
    return client_for(factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator"), tenant)


@pytest.fixture
def handbook(wiki):
    space = wiki.add_space("HAND", "Handbook")
    pages = {
        "vpn": wiki.add_page(space, "VPN from home", "<p>Connect with the orchid tunnel client.</p>"),
        "printers": wiki.add_page(space, "Printers", "<p>The walrus printer is on floor three.</p>"),
        "expenses": wiki.add_page(space, "Expenses", "<p>Submit receipts through the quokka form.</p>"),
    }
    drivers = wiki.add_attachment(
        pages["printers"]["id"], "drivers.txt", b"Install the pelican package for the walrus.", "text/plain"
    )
    other = wiki.add_space("OTHER", "Elsewhere")
    wiki.add_page(other, "Not this space", "<p>The marmot budget lives elsewhere.</p>")
    return {**pages, "drivers": drivers}


def run_upload(api, finished_runs, body: dict) -> dict:
    response = api.post("/v2/wikispace/upload", body, format="json")
    assert response.status_code == 202, response.json()
    started = response.json()["data"]
    assert started["status"] == "queued" and started["sync_configuration_id"].startswith("scfg-")
    return wait_for_run(api, finished_runs, started["sync_run_id"], "wikispace")


def test_a_space_is_ingested_then_only_its_changes_are_fetched_and_it_is_deleted(
    api, tenant, wiki, handbook, finished_runs, celery_worker_thread
):
    first = run_upload(api, finished_runs, wiki_upload(tenant, wiki, "HAND"))

    assert first["status"] == "success", first
    assert counted(first) == {"discovered": 4, "processed": 4, "succeeded": 4, "skipped": 0, "failed": 0}
    assert search_titles(api, tenant, "orchid tunnel client") == ["VPN from home"]
    assert search_titles(api, tenant, "pelican package walrus") == ["drivers.txt"]
    assert "Not this space" not in search_titles(api, tenant, "marmot budget", top_k=10)

    wiki.edit_page(handbook["vpn"]["id"], body="<p>The heron gateway replaced the old client.</p>")
    wiki.delete_page(handbook["expenses"]["id"])
    again = wiki_upload(tenant, wiki, "HAND", configuration_id=first["sync_configuration_id"])
    second = run_upload(api, finished_runs, again)

    assert second["status"] == "success" and second["incremental"], second
    assert counted(second) == {"discovered": 3, "processed": 3, "succeeded": 1, "skipped": 2, "failed": 0}
    assert second["vectors_removed"] >= 2  # the old VPN chunks and the deleted page's
    assert wiki.body_requests(handbook["vpn"]["id"]) == 2
    assert wiki.body_requests(handbook["printers"]["id"]) == 1
    assert wiki.download_requests(handbook["drivers"]["id"]) == 1
    assert search_titles(api, tenant, "heron gateway") == ["VPN from home"]
    assert "Expenses" not in search_titles(api, tenant, "quokka form receipts", top_k=10)

    deleted = api.post(
        "/v2/wikispace/delete", {"space": "HAND", "vectordb_config": vectordb(tenant)}, format="json"
    )
    assert deleted.status_code == 200, deleted.json()
    assert deleted.json()["data"]["documents_deleted"] == 3
    assert search_titles(api, tenant, "heron gateway", top_k=10) == []
    again = api.post(
        "/v2/wikispace/delete", {"space": "HAND", "vectordb_config": vectordb(tenant)}, format="json"
    )
    assert again.status_code == 404


def test_a_page_that_fails_is_retried_until_its_cause_is_fixed(
    api, tenant, wiki, handbook, finished_runs, celery_worker_thread
):
    printers = handbook["printers"]["id"]
    wiki.failing_bodies.add(printers)
    first = run_upload(api, finished_runs, wiki_upload(tenant, wiki, "HAND"))
    assert first["status"] == "partial" and first["failed"] == 1, first
    [(file_id, (error_type, retries))] = failed_files(api, tenant, "wikispace").items()
    assert (error_type, retries) == ("NETWORK_ERROR", 1)

    def retry(*file_ids: str) -> dict:
        body = {"vectordb_config": vectordb(tenant), "platform_type": "wikispace", "file_ids": list(file_ids)}
        response = api.post("/v2/cloudstore/retry-failed", body, format="json")
        assert response.status_code == 202, response.json()
        queued = response.json()["data"]
        return {**queued, "run": wait_for_run(api, finished_runs, queued["sync_run_id"], "wikispace")}

    still_failing = retry(file_id, "no-such-file")
    assert (still_failing["queued"], still_failing["skipped"]) == (1, 1)
    assert still_failing["run"]["kind"] == "retry" and still_failing["run"]["processed"] == 1
    assert failed_files(api, tenant, "wikispace") == {file_id: ("NETWORK_ERROR", 2)}

    wiki.failing_bodies.clear()
    fixed = retry(file_id)
    assert fixed["run"]["status"] == "success" and fixed["run"]["succeeded"] == 1, fixed
    assert failed_files(api, tenant, "wikispace") == {}
    assert search_titles(api, tenant, "walrus printer floor three") == ["Printers"]
    assert wiki.body_requests(handbook["vpn"]["id"]) == 1  # a retry fetches only what it retries


def test_the_upload_checks_its_body_and_its_tenant(api, client_for, tenant, other_tenant, wiki):
    missing = wiki_upload(tenant, wiki, "HAND")
    del missing["authorization"]["api_token"]
    response = api.post("/v2/wikispace/upload", missing, format="json")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "authorization", "api_token"]

    elsewhere = api.post("/v2/wikispace/upload", wiki_upload(other_tenant, wiki, "HAND"), format="json")
    assert elsewhere.status_code == 403

    neither = api.post("/v2/wikispace/delete", {"vectordb_config": vectordb(tenant)}, format="json")
    assert neither.status_code == 422
    assert wiki.received == []  # nothing was asked of the wiki
