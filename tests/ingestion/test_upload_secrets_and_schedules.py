"""The credentials an upload body carries are kept in the vault and nowhere else; a configuration
is scheduled, stopped and deleted through /v2/sync-configurations; a scheduled configuration runs
without a request, and a run whose worker died is resumed by the next dataSync."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from celery.signals import before_task_publish
from django.utils import timezone

from core.audit import system_actor
from core.jobs import job_enqueue, job_execute
from core.models import AuditEntry, Role
from ingestion.models import SyncConfiguration, SyncRun
from knowledge.models import Chunk, Document
from tests import factories
from tests.ingestion.platforms import (
    ITSM_PASSWORD,
    ITSM_SECRET,
    WIKI_TOKEN,
    failed_files,
    itsm_upload,
    wiki_upload,
)
from tests.ingestion.runs import search_titles, wait_for_run
from tests.security.test_secret_canaries import database_dump, hits
from vault.models import Credential

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(client_for, tenant):
    return client_for(factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator"), tenant)


@pytest.fixture
def published():
    """The bodies of every task message sent while the test runs."""
    bodies: list[str] = []

    def note(body=None, headers=None, **kwargs):
        bodies.append(json.dumps([body, headers], default=str))

    before_task_publish.connect(note, weak=False)
    yield bodies
    before_task_publish.disconnect(note)


def test_upload_secrets_reach_the_vault_and_nothing_else(
    api, tenant, wiki, itsm, finished_runs, published, celery_worker_thread, caplog
):
    caplog.set_level(logging.DEBUG)
    space = wiki.add_space("HAND", "Handbook")
    wiki.add_page(space, "VPN", "<p>orchid tunnel</p>")
    kb = itsm.add_kb("IT")
    itsm.add_article(kb, "Reset", "<p>lantern portal</p>")
    answers = []
    for path, body in [
        ("/v2/wikispace/upload", wiki_upload(tenant, wiki, "HAND")),
        ("/v2/itsmplatform/upload", itsm_upload(tenant, itsm, [kb.sys_id])),
    ]:
        response = api.post(path, body, format="json")
        assert response.status_code == 202, response.json()
        answers.append(response.content.decode())
        platform = path.split("/")[2]
        run = wait_for_run(api, finished_runs, response.json()["data"]["sync_run_id"], platform)
        assert run["status"] == "success", run
    for path in ["/v2/wikispace/status", "/v2/itsmplatform/kb-status", "/v2/sync-configurations"]:
        answers.append(api.get(path).content.decode())

    secrets = [WIKI_TOKEN, ITSM_PASSWORD, ITSM_SECRET]
    places = {
        "responses": "\n".join(answers),
        "runs": json.dumps(list(SyncRun.objects.values()), default=str),
        "configurations": json.dumps(list(SyncConfiguration.objects.values()), default=str),
        "audit": json.dumps(list(AuditEntry.objects.values()), default=str),
        "logs": caplog.text,
        "task messages": "\n".join(published),
        "database": database_dump(),
    }
    assert {place: hits(text, secrets) for place, text in places.items()} == {place: [] for place in places}
    owned = Credential.objects.filter(tenant=tenant, integration_id__startswith="ingestion-")
    assert sorted(c.auth_type for c in owned) == ["basic_auth", "custom"]
    assert AuditEntry.objects.filter(action="CREDENTIAL_CREATED").count() == 2


def test_a_configuration_is_scheduled_runs_without_a_request_and_is_stopped_then_deleted(
    api, tenant, wiki, finished_runs, celery_worker_thread
):
    space = wiki.add_space("HAND", "Handbook")
    page = wiki.add_page(space, "VPN", "<p>Connect with the orchid tunnel client.</p>")
    wiki.failing_bodies.add(page["id"])
    response = api.post("/v2/wikispace/upload", wiki_upload(tenant, wiki, "HAND"), format="json")
    started = response.json()["data"]
    assert wait_for_run(api, finished_runs, started["sync_run_id"], "wikispace")["failed"] == 1
    configuration_id = started["sync_configuration_id"]
    path = f"/v2/sync-configurations/{configuration_id}"

    scheduled = api.patch(path, {"interval_minutes": 60}, format="json")
    assert scheduled.status_code == 200, scheduled.json()
    assert scheduled.json()["data"]["interval_minutes"] == 60
    assert api.patch(path, {"interval_minutes": 1}, format="json").status_code == 422
    SyncRun.objects.update(queued_at=timezone.now() - timedelta(hours=2))
    wiki.failing_bodies.clear()
    job_execute(job_enqueue(name="dataSync", triggered_by=system_actor("tests"), tenant_id=None))
    run = SyncRun.objects.filter(kind="scheduled").get()
    assert wait_for_run(api, finished_runs, run.public_id, "wikispace")["status"] == "success"
    assert search_titles(api, tenant, "orchid tunnel client") == ["VPN"]

    stopped = api.post(f"{path}/stop", format="json")
    assert stopped.status_code == 200 and stopped.json()["data"]["enabled"] is False
    SyncRun.objects.update(queued_at=timezone.now() - timedelta(hours=2))
    job_execute(job_enqueue(name="dataSync", triggered_by=system_actor("tests"), tenant_id=None))
    assert SyncRun.objects.filter(kind="scheduled").count() == 1  # no new scheduled run
    assert search_titles(api, tenant, "orchid tunnel client") == ["VPN"]  # the knowledge stays

    wiki.failing_bodies.add(page["id"])
    wiki.edit_page(page["id"], body="<p>changed</p>")
    failing = wiki_upload(tenant, wiki, "HAND", configuration_id=configuration_id)
    rerun = api.post("/v2/wikispace/upload", failing, format="json").json()["data"]
    wait_for_run(api, finished_runs, rerun["sync_run_id"], "wikispace")
    assert len(failed_files(api, tenant, "wikispace")) == 1

    deleted = api.delete(path)
    assert deleted.status_code == 200, deleted.json()
    removed = deleted.json()["data"]
    assert removed["sync_configuration_id"] == configuration_id and removed["vectors_removed"] >= 1
    assert (removed["documents_deleted"], removed["failed_files_removed"], removed["credential_deleted"]) == (
        1,
        1,
        True,
    )
    assert Document.objects.count() == 0 and Chunk.objects.count() == 0
    assert failed_files(api, tenant, "wikispace") == {}
    assert (
        not Credential.objects.filter(tenant=tenant, integration_id__startswith="ingestion-")
        .exclude(status="deleted")
        .exists()
    )
    assert api.get(path).status_code == 404


def test_another_tenants_configuration_is_not_found(api, client_for, other_tenant, wiki):
    configuration = SyncConfiguration.objects.create(
        tenant=other_tenant, platform="wikispace", name="theirs", integration_id="x", platform_domain="x"
    )
    for method in ("get", "delete"):
        assert getattr(api, method)(f"/v2/sync-configurations/{configuration.public_id}").status_code == 404
    assert api.post(f"/v2/sync-configurations/{configuration.public_id}/stop").status_code == 404
    assert api.get("/v2/sync-configurations?platform_type=nope").status_code == 422
    assert SyncConfiguration.objects.filter(id=configuration.id).exists()
