"""Readers: the platform's own read permissions of an item (an ITSM article's user criteria). A
query that names its groups sees a document with readers only when one of its groups is among
them; a query that names none is not restricted. The same tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge.models import Chunk, Document
from knowledge.selectors import documents_readable
from knowledge.vectors.store import chunks_search
from tests.factories import make_document, make_searchable_document

DIMENSION = 4


def axis(i: int) -> np.ndarray:
    vector = np.zeros(DIMENSION, dtype=np.float32)
    vector[i] = 1.0
    return vector


def visible(tenant, audience) -> list[str]:
    readable = documents_readable(tenant=tenant, audience=audience)
    hits = chunks_search(tenant=tenant, vector=axis(0), model="test-model", top_k=10, documents=readable)
    return sorted(hit.chunk for hit in hits)


@pytest.fixture
def articles(tenant):
    make_document(tenant, [("open article", axis(0))])
    make_document(tenant, [("for it staff", axis(0))], readers=["IT-Staff"])
    make_document(tenant, [("for hr or managers", axis(0))], readers=["hr", "managers"])
    make_document(
        tenant, [("finance audience, it readers", axis(0))], audience=["finance"], readers=["it-staff"]
    )


@pytest.mark.parametrize(
    ("audience", "seen"),
    [
        (["it-staff"], ["for it staff", "open article"]),
        (["Managers"], ["for hr or managers", "open article"]),
        (["finance"], ["open article"]),  # its audience, not its readers
        (["finance", "it-staff"], ["finance audience, it readers", "for it staff", "open article"]),
        (["legal"], ["open article"]),
        ([], ["open article"]),
        (
            None,
            ["finance audience, it readers", "for hr or managers", "for it staff", "open article"],
        ),
    ],
)
def test_a_query_sees_what_its_groups_may_read_upstream(tenant, articles, audience, seen):
    assert visible(tenant, audience) == seen


def test_the_document_keeps_its_readers_and_new_ones_replace_them(tenant):
    document, _, _ = make_document(tenant, [("article", axis(0))], source_id="KB1", readers=["hr"])
    assert Document.objects.get(id=document.id).readers == ["hr"]
    assert visible(tenant, ["it-staff"]) == []
    make_document(tenant, [("article", axis(0))], source_id="KB1", readers=["it-staff"])
    assert visible(tenant, ["it-staff"]) == ["article"]
    make_document(tenant, [("article", axis(0))], source_id="KB1")
    assert visible(tenant, ["anyone"]) == ["article"]
    assert Document.objects.get(id=document.id).readers == []


@pytest.mark.parametrize("readers", ["hr", ["hr", ""], ["hr", 7]])
def test_it_refuses_readers_that_are_not_a_list_of_group_names(tenant, readers):
    with pytest.raises(ValueError):
        make_document(tenant, [("article", axis(0))], readers=readers)
    assert not Chunk.objects.exists()


def test_the_search_endpoint_applies_the_readers_of_the_groups_it_names(client_for, owner, tenant):
    make_searchable_document(tenant, ["How to reset the VPN token"], title="VPN", readers=["it-staff"])
    config = {"platform_domain": "acme.example.com", "tenant_id": str(tenant.id)}
    api = client_for(owner, tenant)

    def titles(**extra) -> list[str]:
        body = {"query": "reset the VPN token", "vectordb_config": config, **extra}
        response = api.post("/v2/knowledge/search", body, format="json")
        assert response.status_code == 200, response.content
        return [result["title"] for result in response.json()["data"]["results"]]

    assert titles(audience=["it-staff"]) == ["VPN"]
    assert titles(audience=["sales"]) == []
    assert titles() == ["VPN"]
