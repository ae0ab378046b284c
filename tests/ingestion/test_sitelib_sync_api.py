"""POST /v2/sitelib/upload, POST /v2/sitelib/ingest and GET /v2/sitelib/status: what a client sees
before any worker has run (the runs' work is tested in test_sitelib_pipeline.py and end to end)."""

from __future__ import annotations

import uuid

import pytest

from core.audit import system_actor
from core.models import AuditEntry, Role
from ingestion.models import SyncConfiguration, SyncRun
from tests import factories
from tests.helpers import TIMESTAMP, assert_v2_detail, assert_v2_validation
from vault.services.credentials import credential_store

UPLOAD = "/v2/sitelib/upload"
INGEST = "/v2/sitelib/ingest"
STATUS = "/v2/sitelib/status"
DOMAIN = "acme.example.com"


@pytest.fixture(autouse=True)
def _drop_queued_messages():
    """Runs queued by these tests (in rolled-back transactions) never reach a later test's worker."""
    yield
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


@pytest.fixture
def integrator(tenant):
    return factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator")


@pytest.fixture
def api(client_for, integrator, tenant):
    return client_for(integrator, tenant)


def store_app_registration(tenant, integration_id=f"sitelib-{DOMAIN}"):
    return credential_store(
        tenant=tenant,
        actor=system_actor("tests"),
        integration_id=integration_id,
        name="document sites",
        auth_type="oauth2_client_credentials",
        metadata={"cloud_tid": "contoso.onmicrosoft.com", "client_id": "app-1"},
        secrets={"client_secret": "app-secret-value"},
    )


@pytest.fixture
def registration(tenant):
    return store_app_registration(tenant)


def upload_body(tenant, **overrides) -> dict:
    body = {
        "sitelib_auth": False,
        "content_restriction": {"audience": ["all"], "blacklisted": False, "source_restriction": False},
        "vectordb_config": {"platform_domain": DOMAIN, "tenant_id": str(tenant.id)},
        "sync_config": {
            "sync_configuration_id": "",
            "incremental": False,
            "last_sync": "",
            "processor_mode": "auto",
            "use_ocr": False,
        },
        "job_id": "",
        "site_urls": ["https://contoso.sitelib.test/sites/handbook"],
        "drives": [],
        "folders": [],
        "pages": [],
        "sub_sites": [],
    }
    sync = overrides.pop("sync_config", {})
    body["sync_config"].update(sync)
    return body | overrides


def started(response) -> dict:
    assert response.status_code == 202, response.json()
    body = response.json()
    assert set(body) == {"success", "message", "data", "timestamp"}, body
    assert body["success"] is True and body["message"] == "Ingestion started"
    assert TIMESTAMP.match(body["timestamp"])
    assert set(body["data"]) == {"job_id", "sync_run_id", "sync_configuration_id", "status"}
    assert body["data"]["status"] == "queued"
    return body["data"]


# ---- upload


def test_an_upload_answers_202_at_once_with_the_ids_to_follow(api, tenant, registration):
    data = started(api.post(UPLOAD, upload_body(tenant, job_id="nightly-42"), format="json"))
    assert data["job_id"] == "nightly-42"
    assert data["sync_run_id"].startswith("run-") and data["sync_configuration_id"].startswith("scfg-")
    configuration = SyncConfiguration.objects.get(id=data["sync_configuration_id"][5:])
    assert configuration.tenant == tenant and configuration.platform == "sitelib"
    assert configuration.integration_id == f"sitelib-{DOMAIN}" and configuration.platform_domain == DOMAIN
    assert configuration.scope["site_urls"] == ["https://contoso.sitelib.test/sites/handbook"]
    run = SyncRun.objects.get(id=data["sync_run_id"][4:])
    assert (run.kind, run.status, run.configuration_id) == ("upload", "queued", configuration.id)


def test_an_upload_without_a_job_id_gets_one(api, tenant, registration):
    data = started(api.post(UPLOAD, upload_body(tenant), format="json"))
    assert data["job_id"].startswith("job-") and uuid.UUID(data["job_id"][4:])


def test_an_upload_never_stores_or_queues_a_secret(api, tenant, registration):
    data = started(api.post(UPLOAD, upload_body(tenant), format="json"))
    run = SyncRun.objects.get(id=data["sync_run_id"][4:])
    stored = repr(SyncConfiguration.objects.filter(id=run.configuration_id).values().get())
    assert "app-secret-value" not in stored and "app-secret-value" not in repr(run.triggered_by)


def test_an_upload_names_another_vault_credential_with_integration_id(api, tenant):
    store_app_registration(tenant, "sites-prod")
    data = started(api.post(UPLOAD, upload_body(tenant, integrationId="sites-prod"), format="json"))
    assert SyncConfiguration.objects.get(id=data["sync_configuration_id"][5:]).integration_id == "sites-prod"


def test_an_upload_without_a_credential_in_the_vault_is_422_naming_integration_id(api, tenant):
    response = api.post(UPLOAD, upload_body(tenant), format="json")
    entry = assert_v2_validation(response, ["body", "integrationId"])
    assert f"sitelib-{DOMAIN}" in entry["msg"]
    assert not SyncConfiguration.objects.exists() and not SyncRun.objects.exists()


def test_another_tenants_credential_does_not_count(api, tenant, other_tenant):
    store_app_registration(other_tenant)
    assert_v2_validation(api.post(UPLOAD, upload_body(tenant), format="json"), ["body", "integrationId"])


def test_an_upload_naming_its_configuration_runs_it_again_with_the_new_scope(api, tenant, registration):
    first = started(api.post(UPLOAD, upload_body(tenant), format="json"))
    SyncRun.objects.filter(id=first["sync_run_id"][4:]).update(status="success")
    again = upload_body(
        tenant,
        sync_config={"sync_configuration_id": first["sync_configuration_id"], "use_ocr": True},
        site_urls=["https://contoso.sitelib.test/sites/policies"],
    )
    second = started(api.post(UPLOAD, again, format="json"))
    assert second["sync_configuration_id"] == first["sync_configuration_id"]
    assert second["sync_run_id"] != first["sync_run_id"]
    configuration = SyncConfiguration.objects.get()
    assert configuration.scope["site_urls"] == ["https://contoso.sitelib.test/sites/policies"]
    assert configuration.use_ocr is True


def test_an_upload_that_names_no_scope_keeps_the_stored_one(api, tenant, registration):
    first = started(api.post(UPLOAD, upload_body(tenant), format="json"))
    SyncRun.objects.update(status="success")
    body = upload_body(tenant, sync_config={"sync_configuration_id": first["sync_configuration_id"]})
    for name in ("site_urls", "drives", "folders", "pages", "sub_sites"):
        del body[name]
    started(api.post(UPLOAD, body, format="json"))
    assert SyncConfiguration.objects.get().scope["site_urls"] == [
        "https://contoso.sitelib.test/sites/handbook"
    ]


def test_a_second_upload_while_the_first_run_is_queued_is_409(api, tenant, registration):
    first = started(api.post(UPLOAD, upload_body(tenant), format="json"))
    again = upload_body(tenant, sync_config={"sync_configuration_id": first["sync_configuration_id"]})
    detail = assert_v2_detail(api.post(UPLOAD, again, format="json"), 409)
    assert first["sync_run_id"] in detail
    assert SyncRun.objects.count() == 1


def test_an_upload_naming_an_unknown_or_foreign_configuration_is_404(api, tenant, other_tenant, registration):
    foreign = SyncConfiguration.objects.create(
        tenant=other_tenant, platform="sitelib", name="theirs", integration_id="x", platform_domain="x"
    )
    for named in (f"scfg-{uuid.uuid4()}", foreign.public_id):
        body = upload_body(tenant, sync_config={"sync_configuration_id": named})
        assert_v2_detail(api.post(UPLOAD, body, format="json"), 404)
    assert not SyncRun.objects.exists()


def test_an_upload_for_another_tenants_knowledge_base_is_403(api, tenant, other_tenant, registration):
    body = upload_body(tenant, vectordb_config={"platform_domain": DOMAIN, "tenant_id": str(other_tenant.id)})
    assert_v2_detail(api.post(UPLOAD, body, format="json"), 403)
    assert not SyncRun.objects.exists()


@pytest.mark.parametrize(
    ("change", "loc", "type_"),
    [
        (lambda b: b.pop("vectordb_config"), ["body", "vectordb_config"], "value_error.missing"),
        (lambda b: b.pop("sync_config"), ["body", "sync_config"], "value_error.missing"),
        (lambda b: b.pop("sitelib_auth"), ["body", "sitelib_auth"], "value_error.missing"),
        (
            lambda b: b["sync_config"].pop("use_ocr"),
            ["body", "sync_config", "use_ocr"],
            "value_error.missing",
        ),
        (
            lambda b: b["sync_config"].pop("incremental"),
            ["body", "sync_config", "incremental"],
            "value_error.missing",
        ),
        (
            lambda b: b["sync_config"].update(processor_mode="sometimes"),
            ["body", "sync_config", "processor_mode"],
            "value_error.const",
        ),
        (
            lambda b: b["sync_config"].update(last_sync="yesterday"),
            ["body", "sync_config", "last_sync"],
            "value_error.datetime",
        ),
        (
            lambda b: b["sync_config"].update(sync_configuration_id="cfg-7"),
            ["body", "sync_config", "sync_configuration_id"],
            "type_error.uuid",
        ),
        (lambda b: b.update(site_urls="https://x.test"), ["body", "site_urls"], "type_error.list"),
        (lambda b: b.update(site_urls=["ftp://x.test"]), ["body", "site_urls", 0], "value_error.url.scheme"),
        (lambda b: b.update(drives=[{"a": 1}]), ["body", "drives", 0], "type_error.str"),
        (lambda b: b.update(vectordb_config="acme"), ["body", "vectordb_config"], "type_error.dict"),
        (
            lambda b: b["content_restriction"].update(audience="all"),
            ["body", "content_restriction", "audience"],
            "type_error.list",
        ),
        (lambda b: b.update(job_id="j" * 256), ["body", "job_id"], "value_error.any_str.max_length"),
    ],
)
def test_bad_upload_bodies_are_422_naming_the_field(api, tenant, registration, change, loc, type_):
    body = upload_body(tenant)
    change(body)
    assert_v2_validation(api.post(UPLOAD, body, format="json"), loc, type_)
    assert not SyncRun.objects.exists()


def test_malformed_json_is_422_not_500(api, registration):
    response = api.post(UPLOAD, "{not json", content_type="application/json")
    assert response.status_code == 422, response.content


def test_an_upload_is_audited_without_secrets(api, tenant, registration):
    data = started(api.post(UPLOAD, upload_body(tenant), format="json"))
    actions = set(AuditEntry.objects.filter(tenant_id=tenant.id).values_list("action", flat=True))
    assert {"SYNC_CONFIGURATION_CREATED", "SYNC_RUN_QUEUED"} <= actions
    queued = AuditEntry.objects.get(action="SYNC_RUN_QUEUED")
    assert queued.resource["id"] == data["sync_run_id"]


# ---- access


def test_a_viewer_may_watch_runs_but_not_start_them(client_for, tenant, registration):
    viewer = client_for(factories.make_user(tenant, [Role.INTEGRATION_VIEWER], username="viewer"), tenant)
    assert_v2_detail(viewer.post(UPLOAD, upload_body(tenant), format="json"), 403)
    assert viewer.get(STATUS).status_code == 200


def test_api_keys_need_knowledge_write_to_start_and_knowledge_read_to_watch(client_for, tenant, registration):
    _, reader = factories.make_api_key(tenant, ["knowledge:read"])
    _, writer = factories.make_api_key(tenant, ["knowledge:write"])
    assert_v2_detail(client_for(reader, tenant).post(UPLOAD, upload_body(tenant), format="json"), 403)
    assert client_for(reader, tenant).get(STATUS).status_code == 200
    started(client_for(writer, tenant).post(UPLOAD, upload_body(tenant), format="json"))


def test_without_credentials_it_is_401(client_for, tenant):
    assert_v2_detail(client_for(None, tenant).post(UPLOAD, {}, format="json"), 401)
    assert_v2_detail(client_for(None, tenant).get(STATUS), 401)


# ---- ingest ("Sync Now")


@pytest.fixture
def configuration(api, tenant, registration):
    data = started(api.post(UPLOAD, upload_body(tenant), format="json"))
    SyncRun.objects.update(status="success")
    return SyncConfiguration.objects.get(id=data["sync_configuration_id"][5:])


def test_ingest_queues_a_run_of_the_configuration(api, configuration):
    data = started(api.post(INGEST, {"sync_configuration_id": configuration.public_id}, format="json"))
    run = SyncRun.objects.get(id=data["sync_run_id"][4:])
    assert (run.kind, run.incremental, run.configuration_id) == ("ingest", True, configuration.id)
    assert data["sync_configuration_id"] == configuration.public_id


def test_ingest_takes_the_bare_uuid_and_a_full_run(api, configuration):
    body = {"sync_configuration_id": str(configuration.id), "incremental": False}
    data = started(api.post(INGEST, body, format="json"))
    assert SyncRun.objects.get(id=data["sync_run_id"][4:]).incremental is False


def test_ingest_while_a_run_is_queued_is_409(api, configuration):
    body = {"sync_configuration_id": configuration.public_id}
    started(api.post(INGEST, body, format="json"))
    assert_v2_detail(api.post(INGEST, body, format="json"), 409)


def test_ingest_while_a_run_is_running_is_409(api, configuration):
    SyncRun.objects.create(
        configuration=configuration, tenant=configuration.tenant, job_id="j", kind="ingest", status="running"
    )
    assert_v2_detail(api.post(INGEST, {"sync_configuration_id": configuration.public_id}, format="json"), 409)


def test_ingest_of_an_unknown_or_foreign_configuration_is_404(
    client_for, outsider, other_tenant, api, configuration
):
    assert_v2_detail(api.post(INGEST, {"sync_configuration_id": f"scfg-{uuid.uuid4()}"}, format="json"), 404)
    theirs = client_for(outsider, other_tenant)
    assert_v2_detail(
        theirs.post(INGEST, {"sync_configuration_id": configuration.public_id}, format="json"), 404
    )


@pytest.mark.parametrize(
    ("body", "loc", "type_"),
    [
        ({}, ["body", "sync_configuration_id"], "value_error.missing"),
        ({"sync_configuration_id": ""}, ["body", "sync_configuration_id"], "value_error.missing"),
        ({"sync_configuration_id": "nope"}, ["body", "sync_configuration_id"], "type_error.uuid"),
        ({"sync_configuration_id": ["x"]}, ["body", "sync_configuration_id"], "type_error.str"),
    ],
)
def test_bad_ingest_bodies_are_422(api, body, loc, type_):
    assert_v2_validation(api.post(INGEST, body, format="json"), loc, type_)


def test_bad_incremental_is_422(api, configuration):
    body = {"sync_configuration_id": configuration.public_id, "incremental": "maybe"}
    assert_v2_validation(api.post(INGEST, body, format="json"), ["body", "incremental"], "type_error.bool")


# ---- status


def test_status_lists_the_tenants_runs_newest_first_with_their_counters(api, tenant, configuration):
    data = started(api.post(INGEST, {"sync_configuration_id": configuration.public_id}, format="json"))
    response = api.get(STATUS)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"success", "data", "timestamp"} and body["success"] is True
    assert body["data"]["total"] == 2
    newest, oldest = body["data"]["runs"]
    assert newest["sync_run_id"] == data["sync_run_id"] and oldest["kind"] == "upload"
    assert newest == {
        "sync_run_id": data["sync_run_id"],
        "sync_configuration_id": configuration.public_id,
        "job_id": data["job_id"],
        "platform_type": "sitelib",
        "kind": "ingest",
        "status": "queued",
        "incremental": True,
        "window_start": None,
        "window_end": newest["window_end"],
        "discovered": 0,
        "processed": 0,
        "succeeded": 0,
        "skipped": 0,
        "failed": 0,
        "chunks_written": 0,
        "vectors_removed": 0,
        "error": "",
        "queued_at": newest["queued_at"],
        "started_at": None,
        "finished_at": None,
    }
    assert TIMESTAMP.match(newest["queued_at"]) and TIMESTAMP.match(newest["window_end"])


def test_status_narrows_by_run_job_or_configuration(api, tenant, configuration, registration):
    data = started(api.post(UPLOAD, upload_body(tenant, job_id="mine"), format="json"))
    for query in (
        f"sync_run_id={data['sync_run_id']}",
        "job_id=mine",
        f"sync_configuration_id={data['sync_configuration_id']}",
    ):
        runs = api.get(f"{STATUS}?{query}").json()["data"]["runs"]
        assert [r["sync_run_id"] for r in runs] == [data["sync_run_id"]], query
    assert api.get(f"{STATUS}?sync_configuration_id={configuration.public_id}").json()["data"]["total"] == 1
    assert api.get(f"{STATUS}?job_id=nobody").json()["data"] == {"runs": [], "total": 0}


def test_status_pages_with_limit_and_offset(api, configuration):
    for _ in range(2):
        started(api.post(INGEST, {"sync_configuration_id": configuration.public_id}, format="json"))
        SyncRun.objects.update(status="success")
    page = api.get(f"{STATUS}?limit=2&offset=1").json()["data"]
    assert page["total"] == 3 and len(page["runs"]) == 2 and page["runs"][-1]["kind"] == "upload"


def test_status_never_shows_another_tenants_runs(client_for, outsider, other_tenant, configuration):
    theirs = client_for(outsider, other_tenant)
    assert theirs.get(STATUS).json()["data"] == {"runs": [], "total": 0}
    run = SyncRun.objects.get()
    assert theirs.get(f"{STATUS}?sync_run_id={run.public_id}").json()["data"]["total"] == 0


@pytest.mark.parametrize(
    ("query", "name", "type_"),
    [
        ("limit=0", "limit", "value_error.number.not_ge"),
        ("limit=101", "limit", "value_error.number.not_le"),
        ("limit=x", "limit", "type_error.integer"),
        ("offset=-1", "offset", "value_error.number.not_ge"),
        ("sync_run_id=run-7", "sync_run_id", "type_error.uuid"),
        ("sync_configuration_id=zz", "sync_configuration_id", "type_error.uuid"),
    ],
)
def test_bad_status_queries_are_422_naming_the_parameter(api, query, name, type_):
    assert_v2_validation(api.get(f"{STATUS}?{query}"), ["query", name], type_)


def test_an_upload_makes_no_call_to_the_platform(api, tenant, registration, graph, identity):
    started(api.post(UPLOAD, upload_body(tenant), format="json"))
    assert graph.received == [] and identity.received == []


def _configuration_of(tenant, platform: str) -> SyncConfiguration:
    return SyncConfiguration.objects.create(
        tenant=tenant,
        platform=platform,
        name=platform,
        integration_id=f"{platform}-acct",
        platform_domain=DOMAIN,
    )


@pytest.mark.parametrize("platform", ["wikispace", "itsmplatform"])
def test_ingest_of_another_platforms_configuration_names_its_endpoint(api, tenant, platform):
    other = _configuration_of(tenant, platform)
    response = api.post(INGEST, {"sync_configuration_id": other.public_id}, format="json")
    entry = assert_v2_validation(response, ["body", "sync_configuration_id"])
    assert f"POST /v2/{platform}/ingest" in entry["msg"]
    assert not SyncRun.objects.exists()


@pytest.mark.parametrize("platform", ["wikispace", "itsmplatform"])
def test_the_wiki_and_it_platform_configurations_have_their_own_sync_now(api, tenant, platform):
    configuration = _configuration_of(tenant, platform)
    url = f"/v2/{platform}/ingest"
    data = started(api.post(url, {"sync_configuration_id": configuration.public_id}, format="json"))
    run = SyncRun.objects.get(id=data["sync_run_id"][4:])
    assert (run.kind, run.configuration_id) == ("ingest", configuration.id)
    assert_v2_detail(api.post(url, {"sync_configuration_id": configuration.public_id}, format="json"), 409)
    sitelib = _configuration_of(tenant, "sitelib")
    assert_v2_validation(
        api.post(url, {"sync_configuration_id": sitelib.public_id}, format="json"),
        ["body", "sync_configuration_id"],
    )
