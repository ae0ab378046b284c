"""Operators browse the knowledge base's documents in the console, read-only; a tenant admin sees
only their tenants' documents."""

from __future__ import annotations

import numpy as np
import pytest

from core.models import Role
from knowledge.models import Document
from tests import factories

LIST = "/admin/knowledge/document/"


def vector(i: int) -> np.ndarray:
    return np.eye(8, dtype=np.float32)[i]


@pytest.fixture
def documents(tenant, other_tenant):
    ours, _, _ = factories.make_document(
        tenant,
        [("one", vector(0)), ("two", vector(1)), ("three", vector(2))],
        title="Travel policy",
        source_url="https://contoso.sitelib.test/sites/hr/Shared/travel.docx",
    )
    theirs, _, _ = factories.make_document(other_tenant, [("x", vector(0))], title="Merger plans")
    return ours, theirs


def signed_in(client, user):
    client.force_login(user)
    return client


def test_a_superuser_sees_every_tenants_documents_with_their_chunks(client, documents):
    console = signed_in(client, factories.make_super_admin(username="root"))
    page = console.get(LIST).content.decode()
    assert "Travel policy" in page and "Merger plans" in page
    assert "https://contoso.sitelib.test/sites/hr/Shared/travel.docx" in page
    assert '<td class="field-chunks">3</td>' in page


def test_documents_cannot_be_added_changed_or_deleted_in_the_console(client, documents):
    ours, _ = documents
    console = signed_in(client, factories.make_super_admin(username="root"))
    change = f"{LIST}{ours.id}/change/"
    assert console.get(f"{LIST}add/").status_code == 403
    assert console.get(change).status_code == 200  # the read-only view
    assert console.post(change, {"title": "Renamed"}).status_code == 403
    assert console.post(f"{LIST}{ours.id}/delete/", {"post": "yes"}).status_code == 403
    assert Document.objects.get(id=ours.id).title == "Travel policy"


def test_a_tenant_admin_sees_only_their_tenants_documents(client, tenant, documents):
    ours, theirs = documents
    admin = factories.make_user(tenant, [Role.TENANT_ADMIN], is_staff=True)
    console = signed_in(client, admin)
    page = console.get(LIST).content.decode()
    assert "Travel policy" in page
    assert "Merger plans" not in page
    assert console.get(f"{LIST}{ours.id}/change/").status_code == 200
    assert console.get(f"{LIST}{theirs.id}/change/").status_code == 302  # "does not exist"


def test_console_users_without_the_tenant_admin_role_do_not_see_documents(client, tenant, documents):
    approver = factories.make_user(tenant, [Role.APPROVER, Role.AUDIT_VIEWER], is_staff=True)
    assert signed_in(client, approver).get(LIST).status_code == 403


def test_a_tenant_admin_sees_only_the_documents_they_may_read_at_the_source(client, tenant):
    factories.make_document(tenant, [("x", vector(0))], title="Handbook", readers=["everyone"])
    factories.make_document(tenant, [("x", vector(1))], title="My notes", readers=["user:dana@acme.test"])
    hidden, _, _ = factories.make_document(
        tenant, [("x", vector(2))], title="Board minutes", readers=["group:sitelib:board"]
    )
    dana = factories.make_user(tenant, [Role.TENANT_ADMIN], is_staff=True, email="dana@acme.test")
    console = signed_in(client, dana)
    page = console.get(LIST).content.decode()
    assert "Handbook" in page and "My notes" in page and "Board minutes" not in page
    assert console.get(f"{LIST}{hidden.id}/change/").status_code == 302  # as a missing one
    root = signed_in(client, factories.make_super_admin(username="root"))
    assert "Board minutes" in root.get(LIST).content.decode()  # superusers see every document
