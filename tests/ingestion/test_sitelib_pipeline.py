"""A sync run's work against the fake platforms, called as the Celery task calls it: what it stores,
what it records for each failure, how it counts, how incremental runs follow the change feed, and
how it stops and resumes. (The same through HTTP and a real worker: test_sitelib_end_to_end.py.)"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.audit import system_actor
from identity.sources import ALL_KNOWLEDGE
from ingestion.models import SyncConfiguration, SyncRun, SyncRunItem
from ingestion.pipeline.run import sync_run_execute
from ingestion.selectors import failed_file_list
from ingestion.services.runs import run_outcome, sync_run_queue
from knowledge.embeddings import embedder
from knowledge.models import Chunk, Document
from knowledge.vectors.store import chunks_search
from tests.fakes.embeddings import FakeEmbeddingServer
from tests.fakes.server import Reply
from tests.ingestion.conftest import CLIENT_ID, CLOUD_TID, DOMAIN
from tests.ingestion.documents import docx_bytes, pdf_bytes
from tests.ingestion.sitelib_tree import FAILING, GOOD, build
from vault.services.credentials import credential_store


@pytest.fixture(autouse=True)
def _ingestion_settings(settings):
    settings.INGEST_DOWNLOAD_TIMEOUT_S = 2.0
    settings.INGEST_EMBED_BATCH = 4


@pytest.fixture(autouse=True)
def _drop_queued_messages():
    yield
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


@pytest.fixture
def tree(graph):
    return build(graph, stall_s=8.0)


def configure(tenant, tree, **fields) -> SyncConfiguration:
    scope = {"site_urls": [tree.site_url], "sub_sites": [], "drives": [], "folders": [], "pages": []}
    scope |= fields.pop("scope", {})
    return SyncConfiguration.objects.create(
        tenant=tenant,
        platform="sitelib",
        name="handbook",
        integration_id=fields.pop("integration_id", f"sitelib-{DOMAIN}"),
        platform_domain=DOMAIN,
        scope=scope,
        content_restriction={"audience": ["all"]},
        **fields,
    )


def run_now(configuration, *, incremental=False) -> SyncRun:
    run = sync_run_queue(
        configuration=configuration, kind="ingest", incremental=incremental, actor=system_actor("tests")
    )
    assert sync_run_execute(run_id=str(run.id)) is None
    run.refresh_from_db()
    return run


def counters(run: SyncRun) -> dict:
    names = ("discovered", "processed", "succeeded", "skipped", "failed")
    return {name: getattr(run, name) for name in names}


def failures(tenant) -> dict[str, tuple[str, int]]:
    page = failed_file_list(tenant=tenant, platform_type="sitelib")
    return {record.file_name: (record.error_type, record.retry_count) for record in page.items}


def found(tenant, words: str) -> str:
    """The title of the best match for `words` in the tenant's knowledge base."""
    vector = embedder().embed([words])[0]
    hits = chunks_search(
        tenant=tenant, vector=vector, model=embedder().model, top_k=1, identities=ALL_KNOWLEDGE
    )
    return hits[0].title if hits else ""


# ---- a full run


def test_a_full_run_stores_the_good_files_and_records_every_failure(tenant, app_registration, graph, tree):
    run = run_now(configure(tenant, tree))
    assert counters(run) == {"discovered": 9, "processed": 9, "succeeded": 4, "skipped": 0, "failed": 5}
    assert run.status == "failed"  # 5 failures: more than 3 and more than 10 % of 9
    assert run.started_at and run.finished_at and run.error == ""
    assert failures(tenant) == {name: (error_type, 1) for name, error_type in FAILING.items()}
    assert sorted(Document.objects.values_list("title", flat=True)) == sorted(GOOD)
    assert run.chunks_written == Chunk.objects.count() > 0
    for name, (words, _) in GOOD.items():
        assert found(tenant, words) == name
    assert graph.content_requests(tree.items["oversized.pdf"]) == []


def test_documents_keep_their_place_audience_and_configuration(tenant, app_registration, tree):
    configuration = configure(tenant, tree)
    run_now(configuration)
    travel = Document.objects.get(title="Travel.docx")
    assert travel.source_url == tree.items["Travel.docx"]["webUrl"]
    assert travel.source_url.startswith(f"{tree.site_url}/Documents/Policies/")
    assert travel.content_type == "sitelib_attachment" and travel.audience == ["all"]
    assert travel.sync_configuration_id == configuration.public_id


def test_each_item_of_a_run_is_recorded_with_its_outcome(tenant, app_registration, tree):
    run = run_now(configure(tenant, tree))
    items = {item.name: (item.outcome, item.error_type) for item in SyncRunItem.objects.filter(run=run)}
    assert items == {name: ("succeeded", "") for name in GOOD} | {
        name: ("failed", error_type) for name, error_type in FAILING.items()
    }


def test_a_second_run_skips_unchanged_files_without_downloading_them_and_counts_failures_again(
    tenant, app_registration, graph, tree
):
    configuration = configure(tenant, tree)
    run_now(configuration)
    chunks = Chunk.objects.count()
    before = len(graph.downloads())
    with CaptureQueriesContext(connection) as statements:
        again = run_now(configuration)
    assert counters(again) == {"discovered": 9, "processed": 9, "succeeded": 0, "skipped": 4, "failed": 5}
    # Each unchanged file's document is read once, to find it unchanged and to give it its readers.
    reads = [q["sql"] for q in statements.captured_queries if f'FROM "{Document._meta.db_table}"' in q["sql"]]
    indexed = Document.objects.values_list("source_id", flat=True)
    assert len(indexed) == 4 and [sum(key in sql for sql in reads) for key in indexed] == [1, 1, 1, 1]
    assert Chunk.objects.count() == chunks and again.chunks_written == 0
    assert len(graph.downloads()) - before == 2  # the stalled and the corrupt file, tried again
    assert failures(tenant) == {name: (error_type, 2) for name, error_type in FAILING.items()}


def test_a_later_success_resolves_the_failure_record(tenant, app_registration, graph, tree):
    configuration = configure(tenant, tree)
    run_now(configuration)
    graph.modify_file(tree.drive, tree.items["corrupt.pdf"], pdf_bytes("Fire drills happen every spring."))
    run_now(configuration)
    assert "corrupt.pdf" not in failures(tenant)
    assert found(tenant, "fire drills spring") == "corrupt.pdf"


def test_the_status_threshold_of_a_run():
    assert run_outcome(failed=0, items=10) == "success"
    assert run_outcome(failed=3, items=3) == "partial"  # not more than 3
    assert run_outcome(failed=4, items=50) == "partial"  # not more than 10 %
    assert run_outcome(failed=4, items=39) == "failed"


# ---- scope


def test_a_folder_scope_ingests_only_that_folder(tenant, app_registration, tree):
    run = run_now(configure(tenant, tree, scope={"folders": ["Policies"]}))
    assert counters(run)["succeeded"] == 3
    assert sorted(Document.objects.values_list("title", flat=True)) == [
        "Expenses.html",
        "Parking.rtf",
        "Travel.docx",
    ]


def test_a_drive_scope_that_names_no_drive_of_the_site_finds_nothing(tenant, app_registration, tree):
    run = run_now(configure(tenant, tree, scope={"drives": ["Archive"]}))
    assert run.status == "success" and counters(run)["discovered"] == 0


# ---- incremental runs


def test_an_incremental_run_follows_the_change_feed(tenant, app_registration, graph, tree):
    configuration = configure(tenant, tree, scope={"folders": ["Policies"]})
    first = run_now(configuration)
    configuration.refresh_from_db()
    assert configuration.last_sync == first.window_end and set(configuration.delta_tokens) == {tree.drive.id}
    graph.modify_file(tree.drive, tree.items["Travel.docx"], docx_bytes("Trains are preferred for trips."))
    expenses_chunks = Document.objects.get(title="Expenses.html").chunk_count
    graph.delete_item(tree.drive, tree.items["Expenses.html"])
    graph.add_file(tree.drive, "Outside.txt", b"Not in the scoped folder.")
    run = run_now(configuration, incremental=True)
    assert counters(run) == {"discovered": 1, "processed": 1, "succeeded": 1, "skipped": 0, "failed": 0}
    assert run.vectors_removed >= expenses_chunks and run.window_start is not None
    assert sorted(Document.objects.values_list("title", flat=True)) == ["Parking.rtf", "Travel.docx"]
    assert found(tenant, "trains preferred") == "Travel.docx"


def test_a_full_run_removes_the_files_deleted_at_the_source(tenant, app_registration, graph, tree):
    configuration = configure(tenant, tree)
    run_now(configuration)
    welcome_chunks = Document.objects.get(title="Welcome.txt").chunk_count
    graph.delete_item(tree.drive, tree.items["Welcome.txt"])
    run = run_now(configuration)
    assert counters(run)["discovered"] == 8 and run.vectors_removed == welcome_chunks
    assert not Document.objects.filter(title="Welcome.txt").exists()
    assert SyncRunItem.objects.get(run=run, name="Welcome.txt").outcome == "removed"
    assert Document.objects.count() == len(GOOD) - 1


def test_a_forgotten_change_token_falls_back_to_walking_the_drive(tenant, app_registration, graph, tree):
    configuration = configure(tenant, tree, scope={"folders": ["Policies"]})
    run_now(configuration)
    graph.forget_change_tokens(tree.drive)
    run = run_now(configuration, incremental=True)
    assert run.status == "success" and counters(run)["skipped"] == 3


# ---- failures of the run as a whole


def test_a_run_without_its_credential_fails_saying_why(tenant, tree):
    run = run_now(configure(tenant, tree))
    assert run.status == "failed" and f"sitelib-{DOMAIN}" in run.error
    assert counters(run)["processed"] == 0


def test_a_run_whose_app_is_refused_fails_without_leaking_the_secret(tenant, tree):
    credential_store(
        tenant=tenant,
        actor=system_actor("tests"),
        integration_id="sitelib-wrong",
        name="wrong",
        auth_type="oauth2_client_credentials",
        metadata={"cloud_tid": CLOUD_TID, "client_id": CLIENT_ID},
        secrets={"client_secret": "not-the-apps-secret"},
    )
    run = run_now(configure(tenant, tree, integration_id="sitelib-wrong"))
    assert run.status == "failed" and "refused" in run.error
    assert "not-the-apps-secret" not in run.error


# ---- embedding failures


@pytest.fixture
def embedding_server(settings, platforms_reachable):
    with FakeEmbeddingServer() as server:
        settings.EMBEDDING_BACKEND = "openai"
        settings.EMBEDDING_URL = server.url + "/v1"
        settings.EMBEDDING_MODEL = server.model
        yield server


def test_a_failing_embedding_batch_is_retried_per_document(tenant, app_registration, tree, embedding_server):
    # The batch of the four good documents fails, then the first one alone fails too.
    embedding_server.queue_reply(
        Reply(500, {"error": {"message": "overloaded"}}), path="/v1/embeddings", times=2
    )
    run = run_now(configure(tenant, tree))
    assert counters(run)["succeeded"] == 3
    vector_failures = [
        name for name, (kind, _) in failures(tenant).items() if kind == "VECTOR_EMBEDDING_FAILED"
    ]
    assert len(vector_failures) == 1 and vector_failures[0] in GOOD
    assert Document.objects.count() == 3


class VoidEmbeddingServer(FakeEmbeddingServer):
    """Answers an all-zero vector for the welcome text: one the vector store refuses."""

    def vector(self, text: str) -> list[float]:
        return [0.0] * self.dimension if "cafeteria" in text else super().vector(text)


def test_a_document_the_vector_store_refuses_fails_alone(
    settings, platforms_reachable, tenant, app_registration, tree
):
    with VoidEmbeddingServer() as server:
        settings.EMBEDDING_BACKEND = "openai"
        settings.EMBEDDING_URL = server.url + "/v1"
        settings.EMBEDDING_MODEL = server.model
        run = run_now(configure(tenant, tree))
    assert counters(run)["succeeded"] == 3
    assert failures(tenant)["Welcome.txt"] == ("VECTOR_EMBEDDING_FAILED", 1)


# ---- stop and resume


@pytest.mark.django_db(transaction=True)
def test_a_stop_request_ends_the_run_at_the_next_document(tenant, app_registration, graph, tree):
    configuration = configure(tenant, tree)
    run = sync_run_queue(
        configuration=configuration, kind="ingest", incremental=False, actor=system_actor("t")
    )

    def operator_stops(item):  # in the fake's request thread, while the run downloads a file
        SyncRun.objects.filter(id=run.id).update(stop_requested=True)
        connection.close()

    graph.on_content = operator_stops
    sync_run_execute(run_id=str(run.id))
    run.refresh_from_db()
    assert run.status == "stopped" and run.error and run.processed < 9, run.error
    configuration.refresh_from_db()
    assert configuration.last_sync is None  # a stopped run does not move the window


class WorkerDied(BaseException):
    """Stands for the worker process dying: nothing in the run catches it."""


def test_a_run_whose_worker_died_is_resumed_without_doing_anything_twice(
    tenant, app_registration, graph, tree, monkeypatch
):
    import ingestion.pipeline.store as store

    configuration = configure(tenant, tree)
    run = sync_run_queue(
        configuration=configuration, kind="ingest", incremental=False, actor=system_actor("t")
    )
    written = []
    real_upsert = store.document_upsert

    def dies_on_the_third(**kwargs):
        if len(written) == 2:
            raise WorkerDied
        written.append(kwargs["title"])
        return real_upsert(**kwargs)

    monkeypatch.setattr(store, "document_upsert", dies_on_the_third)
    with pytest.raises(WorkerDied):
        sync_run_execute(run_id=str(run.id))
    monkeypatch.setattr(store, "document_upsert", real_upsert)
    run.refresh_from_db()
    assert run.status == "running" and run.succeeded == 2
    # A new attempt does not take a run whose lease is still held...
    assert sync_run_execute(run_id=str(run.id)) > 0
    # ...and takes it over once the lease has expired.
    SyncRun.objects.filter(id=run.id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert sync_run_execute(run_id=str(run.id)) is None
    run.refresh_from_db()
    assert run.attempts == 2 and run.status == "failed"
    assert counters(run) == {"discovered": 9, "processed": 9, "succeeded": 4, "skipped": 0, "failed": 5}
    assert failures(tenant) == {name: (error_type, 1) for name, error_type in FAILING.items()}
    assert sorted(Document.objects.values_list("title", flat=True)) == sorted(GOOD)
    assert Chunk.objects.count() == sum(d.chunk_count for d in Document.objects.all())


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="two transactions at once need PostgreSQL")
def test_a_run_committed_while_its_task_looks_for_it_is_tried_again(tenant, app_registration, graph, tree):
    """The task is sent inside the transaction that queues the run, so a worker can look for the
    run before that commits and find it just after."""
    configuration = configure(tenant, tree)
    inserted, commit, committed = threading.Event(), threading.Event(), threading.Event()
    queued = {}

    def queue_in_an_open_transaction():
        try:
            with transaction.atomic():
                queued["run"] = sync_run_queue(
                    configuration=configuration, kind="ingest", incremental=False, actor=system_actor("t")
                )
                inserted.set()
                assert commit.wait(10)
        finally:
            committed.set()
            connection.close()

    def commit_once_the_take_has_looked(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if sql.startswith('UPDATE "ingestion_syncrun"') and not commit.is_set():
            commit.set()
            assert committed.wait(10)
        return result

    thread = threading.Thread(target=queue_in_an_open_transaction)
    thread.start()
    assert inserted.wait(10)
    run_id = str(queued["run"].id)
    with connection.execute_wrapper(commit_once_the_take_has_looked):
        retry_in = sync_run_execute(run_id=run_id)
    thread.join(10)
    assert retry_in is not None and retry_in > 0
    assert SyncRun.objects.get(id=run_id).status == "queued"
    assert sync_run_execute(run_id=run_id) is None
    run = SyncRun.objects.get(id=run_id)
    assert run.attempts == 1 and run.status not in ("queued", "running")
    assert sorted(Document.objects.values_list("title", flat=True)) == sorted(GOOD)


def test_a_finished_run_delivered_again_does_nothing(tenant, app_registration, graph, tree):
    run = run_now(configure(tenant, tree))
    downloads = len(graph.downloads())
    assert sync_run_execute(run_id=str(run.id)) is None
    assert len(graph.downloads()) == downloads and SyncRun.objects.get(id=run.id).attempts == 1


# ---- secrets


def test_no_secret_reaches_the_broker_the_database_or_the_logs(
    client_for, tenant, owner, app_registration, tree, caplog
):
    from tests.ingestion.conftest import SECRET
    from tests.security.test_secret_canaries import broker_dump, database_dump, forms

    caplog.set_level(logging.DEBUG)
    upload = {
        "sitelib_auth": False,
        "vectordb_config": {"platform_domain": DOMAIN, "tenant_id": str(tenant.id)},
        "sync_config": {"incremental": False, "processor_mode": "auto", "use_ocr": False},
        "site_urls": [tree.site_url],
    }
    response = client_for(owner, tenant).post("/v2/sitelib/upload", upload, format="json")
    run_id = response.json()["data"]["sync_run_id"]
    queued = broker_dump()
    assert sync_run_execute(run_id=run_id[4:]) is None
    assert SyncRun.objects.get(id=run_id[4:]).succeeded == len(GOOD)
    seen = "\n".join([queued, database_dump(), caplog.text])
    assert [form for form in forms(SECRET) if form in seen] == []
