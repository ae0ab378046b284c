"""Tenant stats' storage fields and the usage report's failed-file section, on every store backend."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ops.reports import month_start, usage_report_write
from ops.stats import MB, tenant_storage_bytes
from tests import factories
from tests.helpers import assert_ok
from tests.toolhub.support import make_credential


def stats(client_for, tenant):
    owner = factories.make_user(tenant, ["tenant_admin"])
    return assert_ok(client_for(owner, tenant).get(f"/api/v1/admin/tenants/{tenant.id}/stats"))


def test_stats_show_storage_used_and_the_default_quota(
    store, client_for, tenant, other_tenant, record_failure
):
    usage = stats(client_for, tenant)["usage"]
    assert usage["storageQuotaMB"] == 1024 and isinstance(usage["storageUsedMB"], float)
    before = tenant_storage_bytes(tenant)
    for n in range(30):
        record_failure(tenant, f"doc-{n}", error_message="x" * 4000)
    record_failure(other_tenant, "theirs", error_message="y" * 4000)
    grown = tenant_storage_bytes(tenant) - before
    assert 30 * 4000 < grown < 30 * 4300  # the messages and the rest of each record's text
    usage = stats(client_for, tenant)["usage"]
    assert usage["storageUsedMB"] == round(tenant_storage_bytes(tenant) / MB, 2) >= 0.11


def test_the_subscription_or_the_environment_sets_the_quota(client_for, tenant, settings):
    settings.TENANT_STORAGE_QUOTA_MB = 50
    assert stats(client_for, tenant)["usage"]["storageQuotaMB"] == 50
    tenant.subscription = {"plan": "team", "storageQuotaMB": 5}
    tenant.settings = {"storageQuotaMB": 5000}  # the tenant's admins write settings: not a quota
    tenant.save()
    assert stats(client_for, tenant)["usage"]["storageQuotaMB"] == 5
    tenant.subscription = {"storageQuotaMB": "lots"}
    tenant.save()
    assert stats(client_for, tenant)["usage"]["storageQuotaMB"] == 50


@pytest.mark.django_db
def test_stored_credentials_and_audit_entries_count_towards_storage(tenant):
    before = tenant_storage_bytes(tenant)
    make_credential(tenant, "big-one", access_token="t" * 5000, metadata={"note": "m" * 1000})
    assert tenant_storage_bytes(tenant) - before > 6000  # the sealed token, the metadata, the entry


def test_the_report_counts_the_failed_files_of_its_month(store, tenant, other_tenant, record_failure):
    now = timezone.now()
    record_failure(tenant, "a", error_type="PARSE_ERROR")
    record_failure(tenant, "a", error_type="TIMEOUT")  # the same file again: one record, two failures
    record_failure(tenant, "b", content_type="web_article", error_type="TIMEOUT")
    record_failure(other_tenant, "c")
    start = month_start(now)
    if now - start > timedelta(hours=1):
        record_failure(tenant, "older", hours_ago=(now - start).total_seconds() / 3600 + 1)
    report = usage_report_write(tenant=tenant, period_start=start, now=now + timedelta(seconds=1))
    assert report.content["failedFiles"] == {
        "total": 2,
        "failures": 3,
        "byContentType": {"sitelib_attachment": 1, "web_article": 1},
        "byErrorType": {"TIMEOUT": 2},
    }
