"""Who reads an IT-service article (DESIGN section 19): its user criteria on the fake platform,
captured by the run that ingests it, applied to every caller of search (REST, and an agent acting
for a person over MCP), and read again by a permissions pass that downloads and embeds nothing."""

from __future__ import annotations

import pytest

from core.audit import system_actor
from core.models import Role
from ingestion.models import SyncConfiguration, SyncRun
from knowledge.models import Chunk, Document
from tests import factories
from tests.ingestion.callers import agent_for, agent_sees
from tests.ingestion.platforms import failed_files, itsm_upload
from tests.ingestion.runs import search_titles, wait_for_run
from tests.toolhub.test_mcp import result_of, rpc
from toolhub.services.connections import connection_create

pytestmark = pytest.mark.django_db(transaction=True)
PAYROLL = "sparrow day salaries"


@pytest.fixture
def people(itsm):
    anna, bob = itsm.add_person("anna@acme.test"), itsm.add_person("bob@acme.test")
    finance = itsm.add_group("Finance")
    itsm.add_member(anna, finance)
    return {"anna": anna, "bob": bob, "finance": finance}


@pytest.fixture
def kb(itsm, people):
    it, hr, legal = itsm.add_kb("IT"), itsm.add_kb("HR"), itsm.add_kb("Legal")
    finance_only = itsm.add_criteria(groups=[people["finance"]])
    itsm.relate_kb(hr, finance_only)
    itsm.relate_kb(legal, itsm.add_criteria(users=[people["bob"]]), cannot=True)
    scripted = itsm.add_criteria(advanced=True, users=[people["bob"]])
    both = itsm.add_criteria(match_all=True, groups=[people["finance"]], role="itil")
    return {
        "hr": hr,
        "open": itsm.add_article(it, "Password reset", "<p>Use the lantern portal to reset it.</p>"),
        "anna": itsm.add_article(
            it,
            "Anna's onboarding",
            "<p>Anna starts on the heron floor.</p>",
            can_read_user_criteria=itsm.add_criteria(users=[people["anna"]])["sys_id"],
        ),
        "payroll": itsm.add_article(hr, "Payroll calendar", "<p>Salaries are paid on the sparrow day.</p>"),
        "scripted": itsm.add_article(
            it, "Scripted", "<p>Kestrel notes.</p>", can_read_user_criteria=scripted["sys_id"]
        ),
        "both": itsm.add_article(it, "Both", "<p>Osprey notes.</p>", can_read_user_criteria=both["sys_id"]),
        "legal": itsm.add_article(legal, "Contracts", "<p>Contracts live in the vault room.</p>"),
    }


@pytest.fixture
def admin_api(client_for, tenant):
    return client_for(factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator"), tenant)


def ingest(admin_api, finished_runs, tenant, itsm) -> dict:
    response = admin_api.post("/v2/itsmplatform/upload", itsm_upload(tenant, itsm, []), format="json")
    assert response.status_code == 202, response.json()
    return wait_for_run(admin_api, finished_runs, response.json()["data"]["sync_run_id"], "itsmplatform")


def readers_of(title: str) -> list[str]:
    return Document.objects.get(title=title).readers


def test_a_run_gives_each_article_the_readers_its_user_criteria_allow(
    admin_api, tenant, itsm, people, kb, finished_runs, celery_worker_thread
):
    run = ingest(admin_api, finished_runs, tenant, itsm)
    assert (run["status"], run["succeeded"], run["failed"]) == ("partial", 5, 1), run
    assert readers_of("Password reset") == ["everyone"]  # no criteria anywhere: every user
    assert readers_of("Anna's onboarding") == ["user:anna@acme.test"]
    assert readers_of("Payroll calendar") == [f"group:itsmplatform:{people['finance']['sys_id']}"]
    assert readers_of("Scripted") == [] and readers_of("Both") == []  # what we cannot tell: nobody
    assert readers_of("Contracts") == []  # cannot-read criteria: only knowledge:all callers
    legal = f"{itsm.domain}/kb_knowledge/{kb['legal']['sys_id']}"
    assert failed_files(admin_api, tenant, "itsmplatform") == {legal: ("ACCESS_DENIED", 1)}
    assert itsm.permission_requests() <= 6  # a few table reads per run, not one per article


def test_criteria_that_cannot_be_read_fail_every_article_access_denied(
    admin_api, tenant, itsm, kb, finished_runs, celery_worker_thread
):
    itsm.refused_tables.add("user_criteria")
    run = ingest(admin_api, finished_runs, tenant, itsm)
    assert (run["status"], run["failed"]) == ("failed", 6), run
    assert set(failed_files(admin_api, tenant, "itsmplatform").values()) == {("ACCESS_DENIED", 1)}
    assert all(readers == [] for readers in Document.objects.values_list("readers", flat=True))


def test_a_restricted_article_is_found_by_its_readers_only_until_a_pass_lifts_it(
    client_for, admin_api, tenant, itsm, people, kb, finished_runs, celery_worker_thread
):
    connection_create(
        tenant=tenant,
        actor=system_actor("tests"),
        name="Knowledge",
        domain="knowledge",
        connector="knowledge",
    )
    run = ingest(admin_api, finished_runs, tenant, itsm)
    anna = factories.make_user(tenant, [Role.INTEGRATION_VIEWER], username="anna", email="anna@acme.test")
    bob = factories.make_user(tenant, [Role.TENANT_ADMIN], username="bob", email="bob@acme.test")
    _, reader_key = factories.make_api_key(tenant, ["knowledge:read"])
    _, all_key = factories.make_api_key(tenant, ["knowledge:read", "knowledge:all"])
    bobs_agent = agent_for(client_for, tenant, bob, client_for(bob, tenant))
    payroll = Document.objects.get(title="Payroll calendar")

    def found(principal) -> bool:
        return search_titles(client_for(principal, tenant), tenant, PAYROLL) == ["Payroll calendar"]

    assert found(anna) and found(all_key)  # a member of Finance on the platform; knowledge:all
    assert agent_sees(bobs_agent, PAYROLL, payroll) == (False, False)  # neither searched nor read
    assert not found(bob) and not found(reader_key)
    assert result_of(rpc(bobs_agent, "resources/list"))["resources"] and all(
        r["name"] != "Payroll calendar" for r in result_of(rpc(bobs_agent, "resources/list"))["resources"]
    )

    chunks_before = set(Chunk.objects.filter(document=payroll).values_list("id", flat=True))
    fetched_before = len(itsm.fetched_article_ids())
    itsm.relate_kb(kb["hr"], itsm.add_criteria(users=[people["bob"]]))  # HR opens to Bob too
    response = admin_api.post(f"/v2/sync-configurations/{run['sync_configuration_id']}/permissions-sync")
    assert response.status_code == 202 and response.json()["message"] == "Permissions pass started"
    passed = wait_for_run(admin_api, finished_runs, response.json()["data"]["sync_run_id"], "itsmplatform")
    assert (passed["kind"], passed["status"], passed["chunks_written"]) == ("permissions", "partial", 0)
    assert passed["succeeded"] == 1 and passed["failed"] == 1  # Payroll's new readers; Contracts

    assert agent_sees(bobs_agent, PAYROLL, payroll) == (True, True)
    assert found(bob) and found(anna) and not found(reader_key)
    assert len(itsm.fetched_article_ids()) == fetched_before  # nothing downloaded again
    assert set(Chunk.objects.filter(document=payroll).values_list("id", flat=True)) == chunks_before


def test_a_pass_is_refused_while_a_run_is_active_and_unknown_configurations_are_404(admin_api, tenant):
    missing = admin_api.post(
        "/v2/sync-configurations/scfg-00000000-0000-0000-0000-000000000000/permissions-sync"
    )
    assert missing.status_code == 404
    configuration = SyncConfiguration.objects.create(
        tenant=tenant, platform="itsmplatform", name="kb", integration_id="itsm-x", platform_domain="x"
    )
    SyncRun.objects.create(
        configuration=configuration, tenant=tenant, job_id="j", kind="ingest", status="running"
    )
    busy = admin_api.post(f"/v2/sync-configurations/{configuration.public_id}/permissions-sync")
    assert busy.status_code == 409 and "already queued or running" in busy.json()["detail"]
    assert not SyncRun.objects.filter(kind="permissions").exists()
