"""The failed-file store behaves the same on every backend (see conftest: orm, azure_tables)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from core.api.errors import RequestInvalid
from ingestion.records import CONTENT_TYPES, FailureReport
from ingestion.selectors import failed_file_list
from ingestion.services.failed_files import (
    failed_file_record,
    failed_file_remove,
    failed_files_forget_tenant,
    failed_files_purge_expired,
)

EPOCH = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def report(
    tenant_id: str, file_id: str, *, content_type="sitelib_article", minutes=0, **fields
) -> FailureReport:
    return FailureReport(
        tenant_id=tenant_id,
        platform_domain=fields.get("platform_domain", "example.com"),
        content_type=content_type,
        file_id=file_id,
        file_name=fields.get("file_name", file_id),
        source_url=fields.get("source_url", f"https://example.com/{file_id}"),
        error_type=fields.get("error_type", "TIMEOUT"),
        error_message=fields.get("error_message", "took too long"),
        failed_at=EPOCH + timedelta(minutes=minutes),
    )


def listed(store, tenant_id, content_types=("sitelib_article", "sitelib_attachment"), **page):
    return store.list(
        tenant_id=tenant_id,
        content_types=content_types,
        since=EPOCH - timedelta(days=1),
        limit=page.get("limit"),
        offset=page.get("offset", 0),
    )


def test_a_first_failure_is_stored_with_one_attempt(store, tenant, record_failure):
    stored = record_failure(tenant, "doc-1", error_type="FILE_TOO_LARGE", error_message="72 MB > 50 MB")
    page = failed_file_list(tenant=tenant, platform_type="sitelib")
    assert page.total == 1
    [record] = page.items
    assert record == stored
    assert (record.file_id, record.file_name, record.source_url) == (
        "doc-1",
        "doc-1.pdf",
        "https://files.example.com/doc-1",
    )
    assert (record.error_type, record.error_message, record.retry_count) == (
        "FILE_TOO_LARGE",
        "72 MB > 50 MB",
        1,
    )
    assert record.platform_domain == "acme.example.com" and record.content_type == "sitelib_attachment"


def test_a_repeat_failure_updates_the_record_and_counts_the_attempt(store, tenant, record_failure):
    record_failure(tenant, "doc-1", error_type="TIMEOUT", hours_ago=2)
    record_failure(tenant, "doc-1", error_type="TIMEOUT", hours_ago=1)
    latest = record_failure(
        tenant, "doc-1", error_type="NETWORK_ERROR", error_message="reset", file_name="new.pdf"
    )
    [record] = failed_file_list(tenant=tenant, platform_type="sitelib").items
    assert record.retry_count == 3 == latest.retry_count
    assert (record.error_type, record.error_message, record.file_name) == (
        "NETWORK_ERROR",
        "reset",
        "new.pdf",
    )
    assert abs(record.failed_at - timezone.now()) < timedelta(minutes=1)


def test_the_same_file_id_under_another_content_type_is_another_record(store, tenant, record_failure):
    record_failure(tenant, "doc-1", content_type="sitelib_article")
    record_failure(tenant, "doc-1", content_type="sitelib_attachment")
    page = failed_file_list(tenant=tenant, platform_type="sitelib")
    assert page.total == 2 and {r.retry_count for r in page.items} == {1}


def test_a_listing_holds_only_its_platforms_article_and_attachment_types(store, tenant, record_failure):
    for content_type in CONTENT_TYPES:
        record_failure(tenant, f"file-{content_type}", content_type=content_type)
    for platform in ("sitelib", "itsmplatform", "wikispace", "itdocs", "web"):
        page = failed_file_list(tenant=tenant, platform_type=platform)
        assert {r.content_type for r in page.items} == {f"{platform}_article", f"{platform}_attachment"}
        assert page.total == 2


def test_a_listing_is_newest_first(store, tenant, record_failure):
    record_failure(tenant, "old", hours_ago=30)
    record_failure(tenant, "newest", content_type="sitelib_article", hours_ago=0.5)
    record_failure(tenant, "middle", hours_ago=5)
    page = failed_file_list(tenant=tenant, platform_type="sitelib")
    assert [r.file_id for r in page.items] == ["newest", "middle", "old"]


def test_records_past_retention_are_left_out(store, settings, tenant, record_failure):
    settings.FAILED_FILES_RETENTION_DAYS = 7
    record_failure(tenant, "recent", hours_ago=6 * 24)
    record_failure(tenant, "expired", hours_ago=8 * 24)
    page = failed_file_list(tenant=tenant, platform_type="sitelib")
    assert [r.file_id for r in page.items] == ["recent"] and page.total == 1


def test_another_tenants_records_are_never_listed(store, tenant, other_tenant, record_failure):
    record_failure(tenant, "ours")
    record_failure(other_tenant, "theirs")
    assert [r.file_id for r in failed_file_list(tenant=tenant, platform_type="sitelib").items] == ["ours"]
    assert [r.file_id for r in failed_file_list(tenant=other_tenant, platform_type="sitelib").items] == [
        "theirs"
    ]


@pytest.mark.parametrize(
    "sneaky",
    [
        "acme'",
        "acme' or PartitionKey ne '",
        "x' or '1' eq '1",
        "acme|sitelib_article' or RowKey ne '",
    ],
)
def test_a_quote_in_a_tenant_id_never_widens_the_query(store, sneaky):
    store.record(report("acme", "secret-plan"))
    store.record(report("acme", "secret-note", content_type="sitelib_attachment"))
    store.record(report(sneaky, "own-file"))
    page = listed(store, sneaky)
    assert [r.file_id for r in page.items] == ["own-file"] and page.total == 1
    assert page.items[0].tenant_id == sneaky
    assert listed(store, "acme").total == 2


def test_limit_and_offset_slice_the_newest_first_listing(store):
    for minute in range(7):
        store.record(report("t1", f"f{minute}", minutes=minute, content_type=CONTENT_TYPES[minute % 2]))
    page = listed(store, "t1", limit=3, offset=2)
    assert page.total == 7 and [r.file_id for r in page.items] == ["f4", "f3", "f2"]
    assert listed(store, "t1", limit=3, offset=7).items == []
    assert [r.file_id for r in listed(store, "t1", offset=5).items] == ["f1", "f0"]


def test_a_resolved_file_can_be_removed(store, tenant, record_failure):
    record_failure(tenant, "doc-1")
    record_failure(tenant, "doc-2")
    assert failed_file_remove(tenant=tenant, content_type="sitelib_attachment", file_id="doc-1") is True
    assert failed_file_remove(tenant=tenant, content_type="sitelib_attachment", file_id="doc-1") is False
    assert [r.file_id for r in failed_file_list(tenant=tenant, platform_type="sitelib").items] == ["doc-2"]


def test_a_file_recorded_again_after_removal_starts_counting_afresh(store, tenant, record_failure):
    record_failure(tenant, "doc-1")
    record_failure(tenant, "doc-1")
    failed_file_remove(tenant=tenant, content_type="sitelib_attachment", file_id="doc-1")
    assert record_failure(tenant, "doc-1").retry_count == 1


def test_retention_deletes_only_old_records_of_every_tenant(
    store, settings, tenant, other_tenant, record_failure
):
    settings.FAILED_FILES_RETENTION_DAYS = 30
    record_failure(tenant, "fresh", hours_ago=1)
    record_failure(tenant, "old", hours_ago=31 * 24)
    record_failure(other_tenant, "old-too", content_type="wikispace_article", hours_ago=40 * 24)
    assert failed_files_purge_expired() == 2
    assert failed_files_purge_expired() == 0
    settings.FAILED_FILES_RETENTION_DAYS = 365  # what is left is really gone, not only hidden
    assert [r.file_id for r in failed_file_list(tenant=tenant, platform_type="sitelib").items] == ["fresh"]
    assert failed_file_list(tenant=other_tenant, platform_type="wikispace").total == 0


def test_retention_deletes_more_than_one_batch_in_a_partition(store):
    for n in range(130):  # Azure transactions take at most 100 operations
        store.record(report("t1", f"f{n}", minutes=n))
    store.record(report("t1", "young", minutes=10_000))
    assert store.purge(before=EPOCH + timedelta(minutes=500)) == 130
    assert [r.file_id for r in listed(store, "t1").items] == ["young"]


def test_forgetting_a_tenant_deletes_all_of_its_records_only(store, tenant, other_tenant, record_failure):
    record_failure(tenant, "a", content_type="web_article")
    record_failure(tenant, "b", content_type="itdocs_attachment")
    record_failure(other_tenant, "c", content_type="web_article")
    assert failed_files_forget_tenant(tenant=tenant) == 2
    assert failed_file_list(tenant=tenant, platform_type="web").total == 0
    assert failed_file_list(tenant=other_tenant, platform_type="web").total == 1


def test_forgetting_a_tenant_spares_tenants_whose_id_starts_the_same(store):
    store.record(report("abc", "mine"))
    store.record(report("abc|x", "lookalike"))
    store.record(report("abcd", "longer"))
    assert store.forget_tenant(tenant_id="abc") == 1
    assert listed(store, "abcd").total == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("content_type", "sitelib_page"),
        ("error_type", "DISK_FULL"),
        ("file_id", ""),
        ("file_id", "x" * 2049),
        ("file_name", "n" * 1025),
    ],
)
def test_a_report_outside_the_vocabulary_is_refused_and_nothing_stored(store, tenant, field, value):
    fields = {
        "platform_domain": "acme.example.com",
        "content_type": "sitelib_article",
        "file_id": "doc-1",
        "file_name": "doc.pdf",
        "source_url": "https://example.com/doc",
        "error_type": "PARSE_ERROR",
        "error_message": "bad",
    } | {field: value}
    with pytest.raises(RequestInvalid) as raised:
        failed_file_record(tenant=tenant, **fields)
    assert raised.value.errors[0].loc == (field,)
    assert failed_file_list(tenant=tenant, platform_type="sitelib").total == 0


def test_a_long_error_message_is_cut(store, tenant, record_failure):
    record = record_failure(tenant, "doc-1", error_message="e" * 10_000)
    assert len(record.error_message) == 4000 and record.error_message.endswith("…")


def test_the_store_answers_its_health_probe(store):
    store.probe()


def test_file_ids_with_key_unsafe_characters_are_stored(store):
    weird = "/sites/a#b?c\\d/файл 'quoted'.pdf"
    store.record(report("t1", weird))
    store.record(report("t1", weird))
    [record] = listed(store, "t1").items
    assert record.file_id == weird and record.retry_count == 2


@pytest.mark.django_db(transaction=True)
def test_concurrent_repeats_of_one_file_are_all_counted(store, settings):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    if store.name == "orm" and connection.vendor == "sqlite":
        pytest.skip("SQLite serialises writers; the concurrent case runs on PostgreSQL")

    def fail_three_times(worker: int) -> None:
        try:
            for attempt in range(3):
                store.record(report("t1", "shared.pdf", minutes=worker * 10 + attempt))
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(fail_three_times, range(4)))
    [record] = listed(store, "t1").items
    assert record.retry_count == 12


def test_store_calls_leave_no_request_logs_at_info(store, caplog):
    import logging

    caplog.set_level(logging.INFO)
    store.record(report("t1", "doc"))
    listed(store, "t1")
    assert [r.getMessage()[:80] for r in caplog.records if r.name.startswith("azure")] == []
