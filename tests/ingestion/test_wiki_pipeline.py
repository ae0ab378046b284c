"""Runs of a wiki configuration called as the Celery task calls them: the tenant's blocked URL
prefixes, the v1 API, and a run whose worker died resumed by the next dataSync with no duplicate
chunks. (Through HTTP and a real worker: test_wiki_end_to_end.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.audit import system_actor
from core.jobs import job_enqueue, job_execute
from ingestion.models import Platform, SyncRun, SyncRunItem
from ingestion.pipeline.run import sync_run_execute
from ingestion.services.configurations import PlatformAccount, UploadRequest, upload
from knowledge.models import Chunk, Document
from knowledge.services import source_rule_create
from tests.fakes.wiki_permissions import FakeWikiPermissions
from tests.ingestion.platforms import DOMAIN, WIKI_TOKEN, WIKI_USER

ACTOR = system_actor("tests")


def drop_queued_messages() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


@pytest.fixture(autouse=True)
def _drop_queued_messages():
    yield
    drop_queued_messages()


def queue_upload(tenant, wiki, space: str, *, blacklisted: bool = False, configuration=None) -> SyncRun:
    request = UploadRequest(
        platform=Platform.WIKISPACE,
        platform_domain=DOMAIN,
        scope={"space": space},
        content_restriction={"audience": ["all"], "blacklisted": blacklisted},
        use_ocr=False,
        processor_mode="auto",
        incremental=configuration is not None,
        last_sync=None,
        sync_configuration_id=configuration.id if configuration else None,
        job_id=None,
        account=PlatformAccount(
            auth_type="basic_auth",
            metadata={
                "instance_url": wiki.instance_url,
                "web_url_instance": wiki.instance_url,
                "username": WIKI_USER,
            },
            secrets={"api_token": WIKI_TOKEN},
        ),
        name=f"wiki {space}",
    )
    return upload(tenant=tenant, upload=request, actor=ACTOR, request_id=None)


def run(run: SyncRun) -> SyncRun:
    assert sync_run_execute(run_id=str(run.id)) is None
    run.refresh_from_db()
    return run


def handbook(wiki):
    space = wiki.add_space("HAND", "Handbook")
    return {
        "public": wiki.add_page(space, "Public", "<p>The canteen opens at eight.</p>"),
        "secret": wiki.add_page(space, "Board minutes", "<p>The merger with Contoso is confidential.</p>"),
    }


def test_pages_under_a_blocked_prefix_are_skipped_not_failed_and_leave_the_index(tenant, wiki):
    pages = handbook(wiki)
    first = run(queue_upload(tenant, wiki, "HAND", blacklisted=True))
    assert first.succeeded == 2 and Document.objects.count() == 2

    blocked = f"{wiki.instance_url}{pages['secret']['_links']['webui']}"
    source_rule_create(tenant=tenant, kind="block", target="url", value=blocked, actor=ACTOR, request_id=None)
    second = run(queue_upload(tenant, wiki, "HAND", blacklisted=True, configuration=first.configuration))

    assert (second.status, second.skipped, second.failed) == ("success", 2, 0)
    assert second.vectors_removed >= 1
    assert list(Document.objects.values_list("title", flat=True)) == ["Public"]
    skipped = SyncRunItem.objects.get(run=second, name="Board minutes")
    assert skipped.outcome == "skipped" and "blocked" in skipped.error_message
    assert wiki.body_requests(pages["secret"]["id"]) == 1  # never fetched again


def test_a_configuration_that_is_not_blacklisted_ignores_the_block_list(tenant, wiki):
    pages = handbook(wiki)
    blocked = f"{wiki.instance_url}{pages['secret']['_links']['webui']}"
    source_rule_create(tenant=tenant, kind="block", target="url", value=blocked, actor=ACTOR, request_id=None)
    assert run(queue_upload(tenant, wiki, "HAND")).succeeded == 2


def test_a_wiki_without_the_v2_api_is_read_through_v1(tenant, platforms_reachable):
    with FakeWikiPermissions(v2=False) as wiki:
        wiki.add_user(WIKI_USER, WIKI_TOKEN)
        handbook(wiki)
        finished = run(queue_upload(tenant, wiki, "HAND"))
    assert (finished.status, finished.succeeded) == ("success", 2)


def test_an_unknown_space_fails_the_run_saying_why(tenant, wiki):
    finished = run(queue_upload(tenant, wiki, "NOPE"))
    assert finished.status == "failed" and "NOPE" in finished.error and WIKI_TOKEN not in finished.error


class WorkerDied(BaseException):
    """Stands for the worker process dying: nothing in the run catches it."""


@pytest.mark.django_db(transaction=True)
def test_a_run_whose_worker_died_is_resumed_by_the_next_data_sync_without_duplicates(
    tenant, wiki, monkeypatch, finished_runs, request
):
    import ingestion.pipeline.store as store

    space = wiki.add_space("HAND", "Handbook")
    for n in range(6):
        wiki.add_page(space, f"Page {n}", f"<p>Rule {n}: item{n} applies.</p>" * 5)
    queued = queue_upload(tenant, wiki, "HAND")
    drop_queued_messages()  # the dead worker's message is lost: only dataSync can bring the run back
    written = []
    real_upsert = store.document_upsert

    def dies_on_the_fourth(**kwargs):
        if len(written) == 3:
            raise WorkerDied
        written.append(kwargs["title"])
        return real_upsert(**kwargs)

    monkeypatch.setattr(store, "document_upsert", dies_on_the_fourth)
    with pytest.raises(WorkerDied):
        sync_run_execute(run_id=str(queued.id))
    monkeypatch.setattr(store, "document_upsert", real_upsert)
    SyncRun.objects.filter(id=queued.id).update(lease_expires_at=timezone.now() - timedelta(seconds=1))

    job_execute(job_enqueue(name="dataSync", triggered_by=ACTOR, tenant_id=None))
    request.getfixturevalue("celery_worker_thread")
    while finished_runs.get(timeout=120) != str(queued.id):
        pass
    queued.refresh_from_db()
    assert (queued.status, queued.attempts, queued.succeeded) == ("success", 2, 6)
    assert Document.objects.count() == 6
    assert Chunk.objects.count() == sum(d.chunk_count for d in Document.objects.all())
    assert SyncRunItem.objects.filter(run=queued).count() == 6
