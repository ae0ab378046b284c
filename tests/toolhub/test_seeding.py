"""seed_demo's `knowledge` connection: the demo tenant's first tool call needs no vendor."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from core.audit import system_actor
from core.models import AuditEntry, Tenant
from tests import factories
from tests.toolhub.support import EXEC_URL, assert_tool_ok
from toolhub.models import Connection
from toolhub.services.connections import connection_create

HANDBOOK = "https://demo.invalid/handbook/"


def seed_demo() -> tuple[str, str]:
    """(the demo API key, the notes)."""
    out, notes = StringIO(), StringIO()
    call_command("seed_demo", stdout=out, stderr=notes)
    return out.getvalue().strip().splitlines()[-1], notes.getvalue()


def test_seed_demo_gives_the_demo_tenant_a_default_knowledge_connection_once(db, other_tenant):
    _, first_notes = seed_demo()
    _, notes = seed_demo()
    demo = Tenant.objects.get(name="demo")
    (connection,) = Connection.objects.filter(tenant=demo)
    assert connection.name == "demo-knowledge"
    assert (connection.domain, connection.connector) == ("knowledge", "knowledge")
    assert connection.is_default and connection.status == "active"
    assert (connection.base_url, connection.integration_id) == ("", "")
    assert AuditEntry.objects.filter(tenant_id=demo.id, action="CONNECTION_CREATED").count() == 1
    assert f"demo-knowledge ({connection.public_id}, the default of its domain)" in notes
    assert first_notes.count("demo-knowledge") == notes.count("demo-knowledge") == 1
    assert not Connection.objects.filter(tenant=other_tenant).exists()


def test_the_demo_key_searches_the_demo_handbook_through_the_knowledge_tool(db, client):
    key, _ = seed_demo()
    demo = Tenant.objects.get(name="demo")
    response = client.post(
        EXEC_URL.format("knowledge.documents.search"),
        {"input": {"query": "how do I connect to the office network from home", "top_k": 3}},
        content_type="application/json",
        HTTP_X_API_KEY=key,
        HTTP_X_TENANTID=str(demo.id),
    )
    body = assert_tool_ok(response)
    assert body["connection_id"] == Connection.objects.get(tenant=demo).public_id
    results = body["data"]["results"]
    assert len(results) == 3 and all(r["source_url"].startswith(HANDBOOK) for r in results)


def test_it_leaves_a_knowledge_default_the_demo_tenant_chose_alone(db):
    demo = factories.make_tenant("demo")
    chosen = connection_create(
        tenant=demo, actor=system_actor("tests"), name="Ours", domain="knowledge", connector="knowledge"
    )
    _, notes = seed_demo()
    assert Connection.objects.get(tenant=demo, name="demo-knowledge").is_default is False
    assert Connection.objects.get(id=chosen.id).is_default is True
    assert "not the default of its domain" in notes


def test_the_connection_is_made_even_when_the_embedder_cannot_load(db, settings, tmp_path):
    settings.EMBEDDING_BACKEND, settings.EMBEDDING_MODEL_DIR = "local", str(tmp_path)
    seed_demo()
    assert Connection.objects.filter(tenant__name="demo", name="demo-knowledge").exists()
