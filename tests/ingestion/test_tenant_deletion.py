"""Deleting a tenant removes its failed-file records from the table store, in both backends."""

from __future__ import annotations

import pytest
from django.db import transaction

from core.models import Tenant
from ingestion.selectors import failed_file_list
from tests import factories
from tests.helpers import assert_ok


def listed(tenant_or_id, platform="sitelib"):
    tenant = tenant_or_id if isinstance(tenant_or_id, Tenant) else Tenant(id=tenant_or_id)
    return failed_file_list(tenant=tenant, platform_type=platform).total


def test_deleting_a_tenant_removes_its_failed_files_once_the_deletion_commits(
    store, client_for, tenant, other_tenant, record_failure, django_capture_on_commit_callbacks
):
    record_failure(tenant, "a")
    record_failure(tenant, "b", content_type="web_article")
    record_failure(other_tenant, "c")
    root = factories.make_super_admin(username="root")
    with django_capture_on_commit_callbacks(execute=True):
        assert_ok(client_for(root, other_tenant).delete(f"/api/v1/admin/tenants/{tenant.id}"))
    assert listed(tenant.id) == 0 and listed(tenant.id, "web") == 0
    assert listed(other_tenant) == 1


def test_a_tenant_deleted_in_the_console_loses_its_failed_files_too(
    store, tenant, record_failure, django_capture_on_commit_callbacks
):
    record_failure(tenant, "a")
    with django_capture_on_commit_callbacks(execute=True):
        Tenant.objects.filter(id=tenant.id).delete()  # what the admin's bulk delete does
    assert listed(tenant.id) == 0


@pytest.mark.django_db(transaction=True)
def test_a_deletion_that_rolls_back_keeps_the_records(store, tenant, record_failure):
    record_failure(tenant, "a")
    tenant_id = tenant.id
    with pytest.raises(RuntimeError), transaction.atomic():
        tenant.delete()
        raise RuntimeError("the deletion fails after the row went")
    assert Tenant.objects.filter(id=tenant_id).exists() and listed(tenant_id) == 1


def test_deleting_a_tenant_removes_its_configurations_documents_vectors_and_failures(
    store, client_for, tenant, other_tenant, record_failure, django_capture_on_commit_callbacks
):
    import numpy as np

    from ingestion.models import SyncConfiguration
    from knowledge.models import Chunk, Document
    from knowledge.vectors.store import document_upsert

    for owner in (tenant, other_tenant):
        configuration = SyncConfiguration.objects.create(
            tenant=owner, platform="wikispace", name="space", integration_id="x", platform_domain="x"
        )
        document_upsert(
            tenant=owner,
            platform_type="wikispace",
            content_type="wikispace_article",
            source_id="wiki/pages/1",
            source_url="https://wiki.example.com/spaces/HAND/pages/1",
            title="Page",
            content_hash="0" * 64,
            audience=["all"],
            readers=["everyone"],
            metadata={"space_key": "HAND"},
            sync_configuration_id=configuration.public_id,
            model="hash",
            chunks=[("A passage.", np.ones(8, dtype=np.float32))],
        )
        record_failure(owner, "wiki/pages/2", content_type="wikispace_article")
    root = factories.make_super_admin(username="root")
    with django_capture_on_commit_callbacks(execute=True):
        assert_ok(client_for(root, other_tenant).delete(f"/api/v1/admin/tenants/{tenant.id}"))
    assert not SyncConfiguration.objects.filter(tenant_id=tenant.id).exists()
    assert not Document.objects.filter(tenant_id=tenant.id).exists()
    assert not Chunk.objects.filter(tenant_id=tenant.id).exists()
    assert listed(tenant.id, "wikispace") == 0
    assert (SyncConfiguration.objects.count(), Document.objects.count(), Chunk.objects.count()) == (1, 1, 1)
    assert listed(other_tenant, "wikispace") == 1
