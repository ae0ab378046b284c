"""Readers (DESIGN section 19): the source principals that may read a document at its source. A
caller finds the documents one of its source identities may read: a person by e-mail and groups,
a key or client those shared with everyone unless it holds knowledge:all. A request's audience
only narrows. The same tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import numpy as np
import pytest

from core.models import Role
from identity.sources import ALL_KNOWLEDGE
from knowledge.models import Chunk, Document
from knowledge.vectors.store import chunks_search
from tests import factories
from tests.factories import make_document, make_searchable_document

DIMENSION = 4
ANNA = "user:anna@acme.test"
HR = "group:sitelib:hr-1"


def axis(i: int) -> np.ndarray:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[i] = 1.0
    return vector


def visible(tenant, identities, audience=None) -> list[str]:
    hits = chunks_search(
        tenant=tenant, vector=axis(0), model="test-model", top_k=10, identities=identities, audience=audience
    )
    return sorted(hit.chunk for hit in hits)


@pytest.fixture
def documents(tenant):
    make_document(tenant, [("handbook", axis(0))], readers=["everyone"])
    make_document(tenant, [("anna's notes", axis(0))], readers=["User:Anna@ACME.test"])
    make_document(tenant, [("hr folder", axis(0))], readers=[HR, "group:wikispace:managers"])
    make_document(tenant, [("hr for finance", axis(0))], audience=["finance"], readers=[HR])
    make_document(tenant, [("permissions unknown", axis(0))], readers=[])


@pytest.mark.parametrize(
    ("identities", "audience", "seen"),
    [
        ({"everyone"}, None, ["handbook"]),
        ({"everyone", ANNA}, None, ["anna's notes", "handbook"]),
        ({"everyone", HR}, None, ["handbook", "hr folder", "hr for finance"]),
        ({"everyone", HR}, ["finance"], ["handbook", "hr folder", "hr for finance"]),
        ({"everyone", HR}, ["legal"], ["handbook", "hr folder"]),  # narrowed, never widened
        ({"everyone"}, ["finance"], ["handbook"]),
        ({"everyone", "group:wikispace:Managers"}, None, ["handbook", "hr folder"]),
        (set(), None, []),
        (
            ALL_KNOWLEDGE,
            None,
            ["anna's notes", "handbook", "hr folder", "hr for finance", "permissions unknown"],
        ),
    ],
)
def test_a_caller_finds_what_its_identities_may_read(tenant, documents, identities, audience, seen):
    assert visible(tenant, identities, audience) == seen


def test_the_document_keeps_its_readers_and_new_ones_replace_them(tenant):
    document, _, _ = make_document(tenant, [("article", axis(0))], source_id="KB1", readers=[HR])
    assert Document.objects.get(id=document.id).readers == [HR]
    assert visible(tenant, {"everyone", ANNA}) == []
    make_document(tenant, [("article", axis(0))], source_id="KB1", readers=[ANNA])
    assert visible(tenant, {"everyone", ANNA}) == ["article"]
    make_document(tenant, [("article", axis(0))], source_id="KB1", readers=[])
    assert visible(tenant, {"everyone", ANNA}) == []
    assert Document.objects.get(id=document.id).readers == []


@pytest.mark.parametrize("readers", ["everyone", ["hr"], ["group:nowhere:1"], ["user:"], ["everyone", 7]])
def test_it_refuses_readers_that_are_not_source_principals(tenant, readers):
    with pytest.raises(ValueError):
        make_document(tenant, [("article", axis(0))], readers=readers)
    assert not Chunk.objects.exists()


def test_the_search_endpoint_shows_each_caller_what_it_may_read_at_the_source(client_for, tenant):
    make_searchable_document(tenant, ["How to reset the VPN token"], title="VPN", readers=[ANNA])
    make_searchable_document(
        tenant, ["Resetting a VPN token, for everyone"], title="All", readers=["everyone"]
    )
    config = {"platform_domain": "acme.example.com", "tenant_id": str(tenant.id)}
    anna = factories.make_user(tenant, [Role.INTEGRATION_VIEWER], username="anna", email="anna@acme.test")
    bob = factories.make_user(tenant, [Role.TENANT_ADMIN], username="bob", email="bob@acme.test")
    _, reader_key = factories.make_api_key(tenant, ["knowledge:read"])
    _, all_key = factories.make_api_key(tenant, ["knowledge:read", "knowledge:all"])

    def titles(principal, **extra) -> list[str]:
        body = {"query": "reset the VPN token", "vectordb_config": config, **extra}
        response = client_for(principal, tenant).post("/v2/knowledge/search", body, format="json")
        assert response.status_code == 200, response.content
        return sorted(result["title"] for result in response.json()["data"]["results"])

    assert titles(anna) == ["All", "VPN"]
    assert titles(anna, audience=["sales"]) == ["All", "VPN"]  # both are for every audience
    assert titles(bob) == ["All"]  # a tenant admin reads no more than the source lets them
    assert titles(reader_key) == ["All"]
    assert titles(all_key) == ["All", "VPN"]
