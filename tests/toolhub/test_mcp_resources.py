"""The knowledge base's documents as MCP resources (DESIGN section 16): listed newest first in pages,
one template, read as text/plain; only for callers that may search, only their tenant's documents,
in both eras of the protocol."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from knowledge.models import Document
from knowledge.selectors import document_text
from tests import factories
from tests.toolhub.test_mcp import ACCEPT, result_of, rpc, rpc_error, stateless
from toolhub.mcp import resources

VPN = "To reach the intranet from home, start the VPN client and sign in with your usual account."


def vector(i: int) -> np.ndarray:
    value = np.zeros(4, dtype=np.float32)
    value[i % 4] = 1.0
    return value


@pytest.fixture
def reader(client_for, tenant):
    """An MCP client whose key may search the knowledge base, and nothing else."""
    _key, raw = factories.make_api_key(tenant, ["knowledge:read"], name="reader")
    return client_for(raw, HTTP_ACCEPT=ACCEPT)


@pytest.fixture
def handbook(tenant):
    document, _, _ = factories.make_document(
        tenant,
        [(VPN, vector(0)), ("Forgot your password? Use the self-service portal.", vector(1))],
        title="Working from home",
        source_url="https://intranet.example/handbook/vpn",
    )
    return document


def test_a_reader_lists_its_tenants_documents_newest_first(reader, tenant, other_tenant, handbook):
    older, _, _ = factories.make_document(tenant, [("Printers", vector(2))], title="Printers")
    Document.objects.filter(id=older.id).update(updated_at=timezone.now() - timedelta(days=1))
    factories.make_document(other_tenant, [("Theirs", vector(3))], title="Their secret")
    listed = result_of(rpc(reader, "resources/list"))
    assert [r["title"] for r in listed["resources"]] == ["Working from home", "Printers"]
    first = listed["resources"][0]
    assert first["uri"] == f"kb://documents/{handbook.public_id}" and first["name"] == handbook.public_id
    assert first["mimeType"] == "text/plain" and first["description"] == handbook.source_url
    assert "nextCursor" not in listed


def test_the_list_comes_in_pages_that_a_cursor_continues(reader, tenant, monkeypatch):
    monkeypatch.setattr(resources, "PAGE_SIZE", 2)
    for n in range(5):
        factories.make_document(tenant, [(f"page {n}", vector(n))], title=f"Doc {n}")
    seen, cursor = [], None
    while True:
        page = result_of(rpc(reader, "resources/list", {"cursor": cursor} if cursor else {}))
        seen += [r["title"] for r in page["resources"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert sorted(seen) == [f"Doc {n}" for n in range(5)] and len(seen) == 5


@pytest.mark.parametrize("cursor", ["page-2", "WyIyMDI2Il0:1abc:forged"])
def test_a_cursor_it_did_not_hand_out_is_invalid_params(reader, cursor):
    error = rpc_error(rpc(reader, "resources/list", {"cursor": cursor}), 200, -32602)
    assert error["data"] == {"cursor": cursor}


def test_the_template_names_documents_by_their_search_id(reader):
    templates = result_of(rpc(reader, "resources/templates/list"))["resourceTemplates"]
    assert [(t["uriTemplate"], t["mimeType"]) for t in templates] == [
        ("kb://documents/{document_id}", "text/plain")
    ]


def test_reading_a_document_gives_its_title_source_and_text(reader, handbook):
    uri = f"kb://documents/{handbook.public_id}"
    contents = result_of(rpc(reader, "resources/read", {"uri": uri}))["contents"]
    assert len(contents) == 1 and contents[0]["uri"] == uri and contents[0]["mimeType"] == "text/plain"
    assert contents[0]["text"] == (
        "Title: Working from home\nSource: https://intranet.example/handbook/vpn\n\n"
        f"{VPN}\nForgot your password? Use the self-service portal."
    )
    assert contents[0]["_meta"]["source_url"] == handbook.source_url


def test_passages_that_overlap_are_read_as_one_text(tenant):
    text = "The VPN client connects you to the intranet. Start it, sign in, and wait for the green light."
    passages = [text[:60], text[30:]]  # chunking lets neighbours share words
    document, _, _ = factories.make_document(tenant, [(p, vector(n)) for n, p in enumerate(passages)])
    assert document_text(document=document) == text


@pytest.mark.parametrize(
    "uri",
    [
        "kb://documents/doc-00000000-0000-0000-0000-000000000000",
        "kb://documents/not-an-id",
        "test://nonexistent-resource-for-conformance-testing",
    ],
)
def test_an_unknown_resource_is_invalid_params_naming_the_uri(reader, uri):
    error = rpc_error(rpc(reader, "resources/read", {"uri": uri}), 200, -32602)
    assert error["message"] == "Resource not found" and error["data"] == {"uri": uri}


def test_another_tenants_document_does_not_exist_for_the_caller(reader, other_tenant):
    theirs, _, _ = factories.make_document(other_tenant, [("Their secret", vector(0))])
    uri = f"kb://documents/{theirs.public_id}"
    assert rpc_error(rpc(reader, "resources/read", {"uri": uri}), 200, -32602)["data"] == {"uri": uri}


def test_a_caller_that_may_not_search_sees_no_documents(client_for, tenant, handbook):
    _key, raw = factories.make_api_key(tenant, ["tools:read"], name="lister")
    blind = client_for(raw, HTTP_ACCEPT=ACCEPT)
    assert result_of(rpc(blind, "resources/list"))["resources"] == []
    uri = f"kb://documents/{handbook.public_id}"
    rpc_error(rpc(blind, "resources/read", {"uri": uri}), 200, -32602)


def test_the_stateless_revision_serves_the_same_resources(reader, handbook):
    listed = result_of(stateless(reader, "resources/list"))
    assert listed["resultType"] == "complete" and listed["cacheScope"] == "private"
    uri = listed["resources"][0]["uri"]
    read = result_of(stateless(reader, "resources/read", {"uri": uri}, name=uri))
    assert read["contents"][0]["text"].startswith("Title: Working from home")
    missing = "kb://documents/doc-00000000-0000-0000-0000-000000000000"
    rpc_error(stateless(reader, "resources/read", {"uri": missing}, name=missing), 400, -32602)
