"""Audit categories of the vault's entries: the contract's plural `credentials`, and the category
list that docs/administration.md gives for every app."""

import re
from pathlib import Path

import pytest

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_ok
from tests.vault.conftest import URL, store_body
from vault.services.dek import dek_rotation_run

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("drop_queued_messages")]
DOCS = Path(__file__).resolve().parents[2] / "docs" / "administration.md"


def documented_categories() -> set[str]:
    line = next(line for line in DOCS.read_text().splitlines() if line.startswith("Categories ("))
    listed = line.split("):", 1)[1].split(";", 1)[0]
    return set(re.findall(r"`([a-z_]+)`", listed))


def test_credential_entries_are_in_the_credentials_category(admin_api, tenant):
    stored = assert_ok(admin_api.post(URL, store_body(), format="json"))
    assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    item = f"{URL}/itsm-prod-001/{stored['id']}"
    assert_ok(admin_api.patch(item, {"description": "changed"}, format="json"))
    assert_ok(admin_api.post(f"{URL}/{stored['id']}/rotate", {"accessToken": "new"}, format="json"))
    assert_ok(admin_api.delete(item))
    entries = AuditEntry.objects.filter(tenant_id=tenant.id, action__startswith="CREDENTIAL_")
    assert entries.count() == 5
    assert set(entries.values_list("category", flat=True)) == {"credentials"}
    assert {"credentials", "authentication"} <= documented_categories()
    logs = assert_ok(admin_api.get("/api/v1/admin/audit-logs?category=credentials"))["logs"]
    assert len(logs) == 5 and {log["category"] for log in logs} == {"credentials"}


def test_dek_rotation_entries_use_a_documented_category(client_for, admin_api, tenant):
    root = client_for(factories.make_super_admin(username="root", email="root@platform.test"), tenant)
    assert_ok(admin_api.post(URL, store_body(), format="json"))
    rotation = assert_ok(root.post("/api/v1/admin/dek/rotate", {"tenantId": str(tenant.id)}, format="json"))
    dek_rotation_run(rotation_id=rotation["rotationId"][4:])
    entries = AuditEntry.objects.filter(tenant_id=tenant.id, action__startswith="DEK_ROTATION_")
    assert set(entries.values_list("category", flat=True)) == {"encryption_keys"}
    assert "encryption_keys" in documented_categories()
    assert entries.count() == 2
