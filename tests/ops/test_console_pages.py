"""What the console's pages say: the audit trail one line per entry with names, an entry's page with
its place in the hash chain and a verification, honest labels (an expired credential is a warning),
readable people instead of JSON, and section and page names that read well."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client

from core.audit import audit_record
from core.models import AuditEntry
from identity.services.users import tenant_user_create
from tests import factories
from tests.helpers import assert_ok
from tests.toolhub.support import make_credential
from vault.models import Credential

pytestmark = pytest.mark.django_db

AUDIT = "/admin/core/auditentry/"


@pytest.fixture
def activity(as_owner):
    """Two audited changes by the tenant's owner."""
    for name in ("reporting", "billing"):
        body = {"name": name, "scopes": "vault:read", "environment": "live"}
        assert_ok(as_owner.post("/api/v1/api-keys", body, format="json"))
    return AuditEntry.objects.filter(action="API_KEY_CREATED").order_by("seq")


@pytest.fixture
def auditor(client, tenant):
    user = tenant_user_create(
        tenant=tenant, username="ada", password=factories.PASSWORD, roles=["audit_viewer"]
    )
    client.force_login(user)
    return client


@pytest.fixture
def credential(as_owner):
    body = {"integrationId": "itsm-prod-001", "credentialName": "ITSM", "authType": "api_key"}
    body["accessToken"] = "ak-plain-0001"
    assert_ok(as_owner.post("/api/v1/credentials", body, format="json"))
    return Credential.objects.get(integration_id="itsm-prod-001")


def result_table(page: str) -> str:
    return re.search(r'<table id="result_list">.*?</table>', page, re.S).group(0)


def test_the_audit_list_shows_one_short_line_per_entry_with_names(auditor, tenant, owner, activity):
    page = auditor.get(f"{AUDIT}?action=API_KEY_CREATED").content.decode()
    table = result_table(page)
    rows = re.findall(r"<tr>.*?</tr>", table.split("</thead>")[1], re.S)
    assert len(rows) == 2
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", rows[0])  # to the second
    assert "owner (user)" in rows[0] and "api key: billing" in rows[0]
    assert str(owner.id) not in table and str(tenant.id) not in table  # names, not ids
    assert "field-tenant_name" not in table  # one tenant: no tenant column
    assert "core/console.css" in page  # keeps each row on one line
    root = Client()
    root.force_login(factories.make_super_admin(username="root"))
    table = result_table(root.get(f"{AUDIT}?action=API_KEY_CREATED").content.decode())
    assert '<td class="field-tenant_name">acme</td>' in table


def test_the_audit_trail_is_searched_and_filtered_by_actor_resource_and_request_id(auditor, owner, activity):
    first = activity.first()
    assert "api key: reporting" in auditor.get(f"{AUDIT}?q=reporting").content.decode()
    by_request = result_table(auditor.get(f"{AUDIT}?q={first.request_id}").content.decode())
    assert "api key: reporting" in by_request and "api key: billing" not in by_request
    assert "api key: billing" in auditor.get(f"{AUDIT}?actor={owner.id}").content.decode()
    listing = auditor.get(f"{AUDIT}?resource_type=api_key").content.decode()
    assert "owner (user)" in result_table(listing) and "By resource type" in listing


def test_an_entry_page_shows_the_entry_its_chain_position_and_a_verification(auditor, activity):
    entry = activity.last()
    response = auditor.get(f"{AUDIT}{entry.id}/change/")
    page = response.content.decode()
    assert response.status_code == 200
    for fact in [
        "API_KEY_CREATED",
        "owner (user)",
        "api key: billing",
        entry.chain,
        entry.hash,
        entry.prev_hash,
    ]:
        assert fact in page, fact
    assert "&quot;scopes&quot;: [" in page  # the details, indented JSON
    assert "Intact: this entry&#x27;s hash matches" in page
    assert 'name="_save"' not in page and "deletelink" not in page
    assert auditor.post(f"{AUDIT}{entry.id}/change/", {"action": "X"}).status_code == 403
    assert auditor.post(f"{AUDIT}{entry.id}/delete/").status_code == 403


def test_an_altered_entry_is_reported_on_its_page(auditor, activity):
    entry = activity.first()
    with connection.cursor() as cursor:  # what someone with database access could do
        cursor.execute(
            "UPDATE adminops_auditentry SET action = %s WHERE id = %s", ["API_KEY_DELETED", entry.id.hex]
        )
    page = auditor.get(f"{AUDIT}{entry.id}/change/").content.decode()
    assert "icon-alert.svg" in page and "altered after it was written" in page
    following = AuditEntry.objects.get(chain=entry.chain, seq=entry.seq + 1)
    with connection.cursor() as cursor:  # a link cut: the next entry names another predecessor
        cursor.execute(
            "UPDATE adminops_auditentry SET prev_hash = %s WHERE id = %s", ["0" * 64, following.id.hex]
        )
    page = auditor.get(f"{AUDIT}{following.id}/change/").content.decode()
    assert "icon-alert.svg" in page and "altered after it was written" in page  # its own hash covers it


def test_an_expired_credential_is_a_warning_and_people_are_names(client, tenant, credential):
    client.force_login(factories.make_super_admin(username="root"))
    Credential.objects.filter(id=credential.id).update(is_expired=True)
    listing = client.get("/admin/vault/credential/").content.decode()
    row = re.search(r"<tr>.*?itsm-prod-001.*?</tr>", result_table(listing), re.S).group(0)
    assert "icon-alert.svg" in row and "expired" in row and "icon-yes.svg" not in row
    page = client.get(f"/admin/vault/credential/{credential.id}/change/").content.decode()
    assert "icon-alert.svg" in page and "icon-yes.svg" not in page
    assert re.search(r'field-created_by_person.*?<div class="readonly">owner</div>', page, re.S)
    assert "&quot;id&quot;" not in page  # a person, not JSON


def test_a_tenant_admin_reads_their_tenants_credentials_and_nothing_else(
    client, tenant, other_tenant, credential
):
    theirs = make_credential(other_tenant, "globex-itsm", access_token="globex-plain-0002")
    admin_user = tenant_user_create(
        tenant=tenant, username="tina", password=factories.PASSWORD, roles=["tenant_admin"]
    )
    client.force_login(admin_user)
    listing = client.get("/admin/vault/credential/").content.decode()
    assert "itsm-prod-001" in result_table(listing) and "ak-plain-0001" not in listing
    assert "globex-itsm" not in listing
    assert client.get(f"/admin/vault/credential/{theirs.id}/change/").status_code == 302
    page = client.get(f"/admin/vault/credential/{credential.id}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.post(f"/admin/vault/credential/{credential.id}/change/", {"name": "x"}).status_code == 403
    assert client.post(f"/admin/vault/credential/{credential.id}/delete/", {"post": "yes"}).status_code == 403
    assert Credential.objects.get(id=credential.id).name == "ITSM"


def test_the_index_names_sections_and_pages_plainly_and_has_no_groups(client):
    client.force_login(factories.make_super_admin(username="root"))
    index = client.get("/admin/").content.decode()
    for name in [
        "Tenants and audit",
        "Identity and access",
        "Operations",
        "API keys",
        "Audit trail",
        "Tool hub",
    ]:
        assert f">{name}<" in index, name
    for name in ["Approval queue", "Credential vault", "DEK rotations", "Data keys (DEKs)"]:
        assert f">{name}<" in index, name
    assert ">Groups<" not in index and "Api keys" not in index and "Dek rotations" not in index
    assert client.get("/admin/auth/group/").status_code == 404


def test_two_actors_of_one_name_are_told_apart_in_the_actor_filter(auditor, tenant):
    for _ in range(2):  # a key made again under its old name, each acting in turn
        key, _raw = factories.make_api_key(tenant, name="demo")
        actor = {"type": "api_key", "id": str(key.id), "name": "demo", "email": "", "ipAddress": None}
        audit_record(tenant=tenant, action="TOOL_EXECUTED", category="tools", actor=actor, resource={})
        key.delete()
    page = auditor.get(AUDIT).content.decode()
    labels = re.findall(r'href="\?actor=[^"]+"[^>]*>([^<]+)</a>', page)
    demos = [label for label in labels if label.startswith("demo (API key)")]
    assert len(demos) == 2 and len(set(demos)) == 2


def test_every_date_on_a_list_and_a_detail_page_is_written_one_way(client, root, activity):
    client.force_login(root)
    entry = activity.first()
    pages = [AUDIT, f"{AUDIT}{entry.id}/change/", "/admin/core/tenant/"]
    for page in (client.get(url).content.decode() for url in pages):
        assert re.search(r"\b20\d\d-\d\d-\d\d \d\d:\d\d:\d\d\b", page)
        assert not re.search(r"\b(a\.m\.|p\.m\.|noon|midnight)", page)
