"""The console (`/admin/`) for the demo users that `make run` prints: approvers decide their
tenant's approvals, auditors browse their tenant's audit trail, tenant admins their tenant's keys;
people without a console role cannot sign in, and nobody sees another tenant's rows."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from core.models import AuditEntry, Tenant
from identity.models import ApiKey, Membership, User
from identity.services.users import membership_grant, membership_remove
from ops.management.commands.seed_demo import DEMO_PASSWORD
from tests import factories
from toolhub.models import Approval

pytestmark = pytest.mark.django_db

QUEUE = "/admin/toolhub/approval/"
AUDIT = "/admin/core/auditentry/"


@pytest.fixture
def demo(db):
    call_command("seed_demo", stdout=StringIO(), stderr=StringIO())
    return Tenant.objects.get(name="demo")


@pytest.fixture
def acme(db):
    """Another tenant, with a row of every kind a console user could see."""
    tenant = factories.make_tenant("acme-elsewhere")
    factories.make_api_key(tenant, name="acme-secret-key")  # audited in acme's chain
    return tenant


def pending_approval(tenant: Tenant, tool_key: str) -> Approval:
    return Approval.objects.create(
        tenant=tenant,
        tool_key=tool_key,
        risk_level="destructive",
        idempotency_key=f"key-{tool_key}",
        fingerprint="0" * 64,
        requester={"type": "api_key", "id": "k", "name": "ci"},
        requester_key="api_key:k",
        expires_at=timezone.now() + timedelta(hours=1),
    )


def sign_in(client, username: str):
    """Through the login form, with the password, as a browser does."""
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": DEMO_PASSWORD})


def test_console_roles_make_their_holders_staff_and_losing_the_last_one_clears_it(demo, acme):
    staff = dict(User.objects.filter(username__startswith="demo-").values_list("username", "is_staff"))
    assert staff == {
        "demo-owner": True,
        "demo-approver": True,
        "demo-auditor": True,
        "demo-integrations": False,
        "demo-viewer": False,
    }
    approver = User.objects.get(username="demo-approver")
    membership_grant(tenant=acme, user=approver, roles=["approver"])
    membership_grant(tenant=demo, user=approver, roles=["integration_viewer"])
    assert User.objects.get(username="demo-approver").is_staff  # still an approver of acme
    membership_remove(membership=Membership.objects.get(user=approver, tenant=acme))
    assert not User.objects.get(username="demo-approver").is_staff


def test_the_demo_approver_signs_in_and_decides_their_tenants_queue_only(client, demo, acme):
    ours, theirs = pending_approval(demo, "itsm.incident.delete"), pending_approval(acme, "wiki.page.create")
    assert sign_in(client, "demo-approver")["Location"] == "/admin/"
    page = client.get(QUEUE).content.decode()
    assert str(ours.id) in page and str(theirs.id) not in page and "acme-elsewhere" not in page
    for approval in (ours, theirs):
        client.post(QUEUE, {"action": "approve_selected", "_selected_action": [str(approval.id)]})
    ours.refresh_from_db(), theirs.refresh_from_db()
    assert (ours.status, theirs.status) == ("approved", "pending")
    assert ours.decided_by["name"] == "demo-approver"
    assert client.get(f"{QUEUE}{theirs.id}/change/").status_code == 302  # "does not exist"
    assert client.get("/admin/identity/apikey/").status_code == 403  # not a tenant admin


def test_the_demo_auditor_browses_their_tenants_audit_trail_and_cannot_change_it(client, demo, acme):
    ours = AuditEntry.objects.filter(tenant_id=demo.id).first()
    theirs = AuditEntry.objects.get(tenant_id=acme.id, action="API_KEY_CREATED")
    sign_in(client, "demo-auditor")
    listing = client.get(AUDIT)
    assert listing.status_code == 200
    page = listing.content.decode()
    assert str(demo.id) in page and str(acme.id) not in page and "acme-elsewhere" not in page
    detail = client.get(f"{AUDIT}{ours.id}/change/")
    assert detail.status_code == 200 and b'name="_save"' not in detail.content
    assert client.post(f"{AUDIT}{ours.id}/change/", {"action": "X"}).status_code == 403
    assert client.post(f"{AUDIT}{ours.id}/delete/").status_code == 403
    assert str(theirs.id) not in client.get(f"{AUDIT}?tenant={acme.id}").content.decode()
    assert client.get(f"{AUDIT}{theirs.id}/change/").status_code == 302
    queue = client.get(QUEUE)  # auditors see the decisions, but decide nothing: not approvers
    assert queue.status_code == 200 and b"approve_selected" not in queue.content


@pytest.mark.parametrize("username", ["demo-viewer", "demo-integrations"])
def test_people_without_a_console_role_cannot_sign_in(client, demo, username):
    response = sign_in(client, username)
    assert response.status_code == 200 and b"staff account" in response.content
    assert client.get("/admin/")["Location"].startswith("/admin/login/")


def test_the_demo_owner_manages_their_tenants_keys_only(client, demo, acme):
    sign_in(client, "demo-owner")
    listing = client.get("/admin/identity/apikey/").content.decode()
    assert "demo" in listing and "acme-secret-key" not in listing
    form = client.get("/admin/identity/apikey/add/").content.decode()
    assert str(demo.id) in form and str(acme.id) not in form
    refused = client.post(
        "/admin/identity/apikey/add/",
        {"tenant": acme.id, "name": "sneaky", "scopes_text": "*", "environment": "live"},
    )
    assert refused.status_code == 200 and not ApiKey.objects.filter(name="sneaky").exists()
    made = client.post(
        "/admin/identity/apikey/add/",
        {"tenant": demo.id, "name": "ops", "scopes_text": "vault:read", "environment": "live"},
    )
    assert made.status_code == 200 and re.search(r"ak_live_[A-Za-z0-9]+", made.content.decode())
    assert ApiKey.objects.get(name="ops").tenant == demo
    theirs = ApiKey.objects.get(name="acme-secret-key")
    assert client.get(f"/admin/identity/apikey/{theirs.id}/change/").status_code == 302


@pytest.mark.parametrize("username", ["demo-owner", "demo-approver", "demo-auditor"])
def test_no_console_page_shows_another_tenants_rows(client, demo, acme, username):
    pending_approval(acme, "itsm.incident.delete")
    sign_in(client, username)
    index = client.get("/admin/").content.decode()
    pages = sorted(set(re.findall(r'href="(/admin/[a-z_]+/[a-z_]+/)"', index)))
    assert pages, f"{username} sees no page at all"
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        body = response.content.decode()
        assert "acme-elsewhere" not in body and str(acme.id) not in body, page
        assert "acme-secret-key" not in body, page


def test_superusers_keep_seeing_every_tenant(client, demo, acme):
    client.force_login(factories.make_super_admin(username="root"))
    assert "acme-secret-key" in client.get("/admin/identity/apikey/").content.decode()
    assert str(acme.id) in client.get(AUDIT).content.decode()


def test_memberships_edited_in_the_console_keep_staff_status_in_step(client, demo):
    client.force_login(factories.make_super_admin(username="root"))
    beta = factories.make_tenant("beta")
    viewer = User.objects.get(username="demo-viewer")
    url = f"/admin/core/tenant/{beta.id}/change/"

    def save(rows: list[dict], initial: int) -> None:
        data = {
            "name": "beta",
            "status": "active",
            "settings": "{}",
            "subscription": "{}",
            "created_at_0": "2026-11-01",
            "created_at_1": "10:00:00",
            "memberships-TOTAL_FORMS": str(len(rows)),
            "memberships-INITIAL_FORMS": str(initial),
        }
        for index, row in enumerate(rows):
            data |= {f"memberships-{index}-{name}": value for name, value in row.items()}
        response = client.post(url, data)
        assert response.status_code == 302, response.context["inline_admin_formsets"][0].formset.errors

    save([{"user": viewer.id, "roles": '["approver"]'}], initial=0)
    assert User.objects.get(username="demo-viewer").is_staff
    row = Membership.objects.get(user=viewer, tenant=beta)
    save([{"id": row.id, "user": viewer.id, "roles": '["approver"]', "DELETE": "on"}], initial=1)
    assert not Membership.objects.filter(tenant=beta).exists()
    assert not User.objects.get(username="demo-viewer").is_staff


def test_a_page_the_users_roles_do_not_open_answers_a_console_page(client, demo):
    sign_in(client, "demo-owner")
    refused = client.get("/admin/toolhub/connection/")
    assert refused.status_code == 403 and refused["Content-Type"].startswith("text/html")
    page = refused.content.decode()
    assert "Not for your roles" in page and 'href="/admin/"' in page and '"success"' not in page


def test_an_unknown_console_address_answers_a_console_page(client, demo):
    sign_in(client, "demo-owner")
    missing = client.get("/admin/nowhere/at/all/")
    assert missing.status_code == 404 and missing["Content-Type"].startswith("text/html")


def test_view_site_leads_to_the_api_docs(client, demo):
    sign_in(client, "demo-owner")
    index = client.get("/admin/").content.decode()
    assert 'href="/api/docs/"' in index and client.get("/api/docs/").status_code == 200
