"""The vector store's contract (DESIGN section 15). The same tests run on the SQLite default (exact
cosine with numpy) and on PostgreSQL (pgvector), with small hand-made vectors."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import IntegrityError

from core.audit import system_actor
from identity.sources import ALL_KNOWLEDGE
from knowledge.models import Chunk, Document
from knowledge.selectors import document_find
from knowledge.vectors.store import (
    chunks_count,
    chunks_search,
    document_delete,
    document_upsert,
    documents_delete_by_url_prefix,
)
from ops.services import tenant_delete
from tests.factories import make_document

DIMENSION = 8
SITE = "https://contoso.sitelib.test/sites/finance"


def axis(i: int, dimension: int = DIMENSION) -> np.ndarray:
    vector = np.zeros(dimension, dtype=np.float32)
    vector[i] = 1.0
    return vector


def toward(i: int, j: int, weight: float) -> np.ndarray:
    """Mostly along axis i, leaning toward axis j."""
    return axis(i) + weight * axis(j)


def search(tenant, vector, **options) -> list:
    options.setdefault("model", "test-model")
    options.setdefault("top_k", 5)
    options.setdefault("identities", ALL_KNOWLEDGE)
    return chunks_search(tenant=tenant, vector=vector, **options)


def texts(hits) -> list[str]:
    return [hit.chunk for hit in hits]


def test_it_finds_the_chunk_nearest_to_the_query(tenant):
    document, written, removed = make_document(
        tenant,
        [("invoices", axis(0)), ("holidays", axis(1)), ("laptops", axis(2))],
        title="Handbook",
        source_url=f"{SITE}/Shared/handbook.docx",
    )
    hits = search(tenant, toward(1, 2, 0.5))
    assert (written, removed) == (3, 0)
    assert hits[0].chunk == "holidays"
    assert hits[0].score == pytest.approx(1 / np.sqrt(1.25), abs=1e-5)
    assert (hits[0].document_id, hits[0].title, hits[0].source_url) == (
        f"doc-{document.id}",
        "Handbook",
        f"{SITE}/Shared/handbook.docx",
    )
    assert (hits[0].platform_type, hits[0].content_type) == ("sitelib", "sitelib_attachment")


def test_it_finds_the_nearest_chunk_among_many_of_the_default_models_dimension(tenant):
    rng = np.random.default_rng(21)
    vectors = rng.standard_normal((40, 384)).astype(np.float32)
    make_document(tenant, [(f"passage {i}", v) for i, v in enumerate(vectors)], model="all-MiniLM-L6-v2")
    query = vectors[17] + 0.05 * rng.standard_normal(384).astype(np.float32)
    hits = search(tenant, query, model="all-MiniLM-L6-v2", top_k=3)
    assert hits[0].chunk == "passage 17"
    assert hits[0].score > 0.99


def test_it_replaces_a_documents_chunks_when_it_is_stored_again(tenant):
    first, _, _ = make_document(
        tenant, [("old a", axis(0)), ("old b", axis(1)), ("old c", axis(2))], source_id="item-1"
    )
    again, written, removed = make_document(
        tenant, [("new a", axis(0)), ("new b", axis(1))], source_id="item-1", content_hash="f" * 64
    )
    assert again.id == first.id
    assert (written, removed) == (2, 3)
    assert chunks_count(tenant=tenant) == 2
    assert sorted(texts(search(tenant, axis(0), top_k=10))) == ["new a", "new b"]
    assert Document.objects.get(id=first.id).content_hash == "f" * 64


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_old_chunks_when_the_database_refuses_a_new_one(tenant):
    make_document(tenant, [("old a", axis(0)), ("old b", axis(1))], source_id="item-1", content_hash="a" * 64)
    with pytest.raises(IntegrityError):
        # The table refuses the second chunk's empty text when the new chunks are written, after
        # the old ones were removed in the same transaction.
        make_document(tenant, [("new a", axis(0)), ("", axis(1))], source_id="item-1", content_hash="b" * 64)
    assert sorted(texts(search(tenant, axis(0), top_k=10))) == ["old a", "old b"]
    assert chunks_count(tenant=tenant) == 2
    assert Document.objects.get(tenant=tenant, source_id="item-1").content_hash == "a" * 64


def test_it_never_returns_another_tenants_chunks(tenant, other_tenant):
    make_document(tenant, [("ours", toward(0, 1, 0.9))], source_id="item-1")
    make_document(other_tenant, [("theirs", axis(0))], source_id="item-1")
    assert texts(search(tenant, axis(0))) == ["ours"]
    assert texts(search(other_tenant, axis(0))) == ["theirs"]


def test_a_prefix_deletion_leaves_another_tenants_documents(tenant, other_tenant):
    make_document(tenant, [("ours", axis(0))], source_url=f"{SITE}/Shared/a.docx")
    make_document(other_tenant, [("theirs", axis(0)), ("more", axis(1))], source_url=f"{SITE}/Shared/a.docx")
    assert documents_delete_by_url_prefix(tenant=tenant, prefix=SITE) == (1, 1)
    assert chunks_count(tenant=tenant) == 0
    assert chunks_count(tenant=other_tenant) == 2
    assert texts(search(other_tenant, axis(0))) == ["theirs", "more"]


def test_a_document_of_another_tenant_is_not_deleted_through_this_one(tenant, other_tenant):
    theirs, _, _ = make_document(other_tenant, [("theirs", axis(0))])
    assert document_delete(tenant=tenant, document=theirs) == 0
    assert chunks_count(tenant=other_tenant) == 1


def test_it_never_mixes_embedding_models(tenant):
    make_document(tenant, [("small model", toward(0, 1, 0.9))], model="model-a")
    make_document(tenant, [("other model", axis(0))], model="model-b")
    make_document(tenant, [("wider vectors", axis(0, 16))], model="model-a")
    assert texts(search(tenant, axis(0), model="model-a")) == ["small model"]
    assert texts(search(tenant, axis(0), model="model-b")) == ["other model"]
    assert texts(search(tenant, axis(0, 16), model="model-a")) == ["wider vectors"]
    assert search(tenant, axis(0), model="model-c") == []


@pytest.fixture
def audiences(tenant):
    make_document(tenant, [("for everyone", axis(0))], audience=["all"])
    make_document(tenant, [("for finance", axis(0))], audience=["Finance"])
    make_document(tenant, [("for hr", axis(0))], audience=["hr", "people-leads"])


@pytest.mark.parametrize(
    ("audience", "visible"),
    [
        (["finance"], ["for everyone", "for finance"]),
        (["FINANCE", "people-leads"], ["for everyone", "for finance", "for hr"]),
        (["all"], ["for everyone"]),
        ([], ["for everyone"]),
        (["legal"], ["for everyone"]),
        (None, ["for everyone", "for finance", "for hr"]),
    ],
)
def test_a_query_sees_its_groups_chunks_and_everyones(tenant, audiences, audience, visible):
    assert sorted(texts(search(tenant, axis(0), audience=audience))) == visible


def test_a_group_named_like_a_separator_sees_only_its_own_chunks(tenant):
    make_document(tenant, [("pipes", axis(0))], audience=["a|b"])
    make_document(tenant, [("letters", axis(0))], audience=["a", "b%"])
    assert texts(search(tenant, axis(0), audience=["a|b"])) == ["pipes"]
    assert texts(search(tenant, axis(0), audience=["b%"])) == ["letters"]
    assert search(tenant, axis(0), audience=["b"]) == []


def test_it_filters_by_platform(tenant):
    make_document(tenant, [("a file", axis(0))], platform_type="sitelib", content_type="sitelib_attachment")
    make_document(tenant, [("a page", axis(0))], platform_type="wikispace", content_type="wikispace_article")
    assert texts(search(tenant, axis(0), platform_types=["wikispace"])) == ["a page"]
    assert sorted(texts(search(tenant, axis(0), platform_types=["sitelib", "wikispace"]))) == [
        "a file",
        "a page",
    ]


def test_a_prefix_deletion_removes_the_documents_beneath_it_with_their_chunks(tenant):
    make_document(tenant, [("site home", axis(0))], source_url=SITE)
    make_document(tenant, [("one", axis(0)), ("two", axis(1))], source_url=f"{SITE}/Shared/Budget.xlsx")
    make_document(tenant, [("three", axis(2))], source_url=f"{SITE}/Shared/Plans/2027.docx")
    make_document(tenant, [("a neighbour", axis(0))], source_url=f"{SITE}-archive/Shared/old.docx")
    make_document(tenant, [("a sibling", axis(0))], source_url=f"{SITE}2/Shared/new.docx")
    assert documents_delete_by_url_prefix(tenant=tenant, prefix=f"{SITE}/") == (3, 4)
    assert sorted(texts(search(tenant, axis(0)))) == ["a neighbour", "a sibling"]
    assert documents_delete_by_url_prefix(tenant=tenant, prefix=SITE) == (0, 0)


def test_a_prefix_deletion_names_a_folder_in_any_case(tenant):
    make_document(tenant, [("plan", axis(0))], source_url=f"{SITE}/Shared%20Documents/Plans/2027.docx")
    make_document(tenant, [("budget", axis(0))], source_url=f"{SITE}/Shared%20Documents/Budget.xlsx")
    prefix = "https://CONTOSO.sitelib.test/sites/Finance/Shared%20Documents/plans"
    assert documents_delete_by_url_prefix(tenant=tenant, prefix=prefix) == (1, 1)
    assert texts(search(tenant, axis(0))) == ["budget"]


@pytest.mark.parametrize("prefix", ["", "/", "sites/finance", "https://"])
def test_a_prefix_deletion_refuses_a_prefix_that_is_not_a_url(tenant, prefix):
    make_document(tenant, [("kept", axis(0))])
    with pytest.raises(ValueError):
        documents_delete_by_url_prefix(tenant=tenant, prefix=prefix)
    assert chunks_count(tenant=tenant) == 1


def test_a_document_deleted_upstream_leaves_with_its_chunks(tenant):
    gone, _, _ = make_document(tenant, [("gone a", axis(0)), ("gone b", axis(1))])
    make_document(tenant, [("kept", axis(0))])
    assert document_delete(tenant=tenant, document=gone) == 2
    assert texts(search(tenant, axis(0))) == ["kept"]
    assert not Document.objects.filter(id=gone.id).exists()


def test_it_returns_at_most_top_k_hits_best_first(tenant):
    make_document(tenant, [(f"lean {i}", toward(0, 1, i / 4)) for i in range(10)])
    make_document(tenant, [("opposite", -axis(0))])
    hits = search(tenant, axis(0), top_k=4)
    assert texts(hits) == ["lean 0", "lean 1", "lean 2", "lean 3"]
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    everything = search(tenant, axis(0), top_k=50)
    assert len(everything) == 11
    assert everything[0].score == pytest.approx(1.0, abs=1e-6)
    assert (everything[-1].chunk, everything[-1].score) == ("opposite", pytest.approx(-1.0, abs=1e-6))


def test_it_counts_the_tenants_chunks(tenant, other_tenant):
    make_document(tenant, [("a", axis(0)), ("b", axis(1))])
    make_document(tenant, [("c", axis(2))])
    make_document(other_tenant, [("d", axis(3))])
    assert chunks_count(tenant=tenant) == 3


@pytest.mark.parametrize(
    ("chunks", "fields"),
    [
        ([("zero", np.zeros(DIMENSION))], {}),
        ([("not a number", np.full(DIMENSION, np.nan))], {}),
        ([("a", axis(0)), ("b", axis(0, 16))], {}),
        ([("matrix", np.ones((2, 4)))], {}),
        ([("a", axis(0))], {"audience": []}),
        ([("a", axis(0))], {"platform_type": "sitelib", "content_type": "wikispace_article"}),
        ([("a", axis(0))], {"platform_type": "itdocs", "content_type": "itdocs_article"}),
        ([("a", axis(0))], {"source_id": "x" * 513}),
    ],
)
def test_it_refuses_a_document_it_could_not_search_correctly(tenant, chunks, fields):
    with pytest.raises(ValueError):
        make_document(tenant, chunks, **fields)
    assert Document.objects.count() == 0


def test_a_document_without_text_keeps_no_chunks(tenant):
    document, written, removed = make_document(tenant, [("old", axis(0))], source_id="item-1")
    emptied, written, removed = make_document(tenant, [], source_id="item-1")
    assert (emptied.id, written, removed) == (document.id, 0, 1)
    assert chunks_count(tenant=tenant) == 0


def test_a_document_of_more_chunks_than_one_statement_carries_is_stored_whole(tenant):
    # About 80,000 values: more than PostgreSQL takes in one statement when they are bound on the
    # server (DATABASE_PREPARED_STATEMENTS, the default there).
    chunks = [(f"passage {n}", axis(n % DIMENSION)) for n in range(8000)]
    document, written, removed = make_document(tenant, chunks)
    assert (written, removed) == (8000, 0)
    assert chunks_count(tenant=tenant) == 8000
    assert Chunk.objects.filter(document=document, ordinal=7999).get().text == "passage 7999"


def test_a_query_vector_must_have_a_direction(tenant):
    with pytest.raises(ValueError):
        search(tenant, np.zeros(DIMENSION))


def test_the_stored_document_describes_its_source(tenant):
    document, _, _ = document_upsert(
        tenant=tenant,
        platform_type="wikispace",
        content_type="wikispace_article",
        source_id="12345",
        source_url="https://wiki.test/spaces/OPS/pages/12345/Runbook",
        title="Runbook",
        content_hash="c" * 64,
        audience=["ops"],
        readers=["group:wikispace:ops-team"],
        metadata={"space": "OPS"},
        sync_configuration_id="scfg-0f8e4a7e-3c1b-4f7a-9b1e-2d6c8a5f4e31",
        model="test-model",
        chunks=[("restart the service", axis(0))],
    )
    stored = Document.objects.get(id=document.id)
    assert (stored.title, stored.audience, stored.metadata, stored.chunk_count) == (
        "Runbook",
        ["ops"],
        {"space": "OPS"},
        1,
    )
    assert stored.public_id == f"doc-{document.id}"
    assert stored.sync_configuration_id == "scfg-0f8e4a7e-3c1b-4f7a-9b1e-2d6c8a5f4e31"


def test_a_stored_document_is_found_by_its_platform_id_in_its_tenant_only(tenant, other_tenant):
    document, _, _ = make_document(tenant, [("a", axis(0))], source_id="b!drive/01ITEM")
    assert document_find(tenant=tenant, platform_type="sitelib", source_id="b!drive/01ITEM") == document
    assert document_find(tenant=other_tenant, platform_type="sitelib", source_id="b!drive/01ITEM") is None
    assert document_find(tenant=tenant, platform_type="wikispace", source_id="b!drive/01ITEM") is None


def test_a_deleted_tenants_knowledge_goes_with_it(tenant, other_tenant):
    make_document(tenant, [("a", axis(0)), ("b", axis(1))])
    make_document(other_tenant, [("c", axis(0))])
    tenant_delete(tenant=tenant, actor=system_actor("tests"), request_id="req-1")
    assert not Document.objects.filter(tenant_id=tenant.id).exists()
    assert not Chunk.objects.filter(tenant_id=tenant.id).exists()
    assert texts(search(other_tenant, axis(0))) == ["c"]
