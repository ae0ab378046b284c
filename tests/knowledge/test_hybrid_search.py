"""Hybrid retrieval (DESIGN section 20): the lexical index beside the vectors, the keyword leg, and
their fusion. The same tests run on SQLite (FTS5) and on PostgreSQL (tsvector). Vectors here come
from the hashing embedder (shared words, not meaning), so that the identifier, not the wording,
has to decide; the paraphrase test uses the real model."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from core.audit import system_actor
from identity.sources import ALL_KNOWLEDGE
from knowledge.embeddings import embedder
from knowledge.models import Chunk
from knowledge.selectors import documents_search
from knowledge.vectors.lexical import holding
from knowledge.vectors.store import (
    chunks_search,
    document_delete,
    document_upsert,
    documents_delete_by_url_prefix,
)
from ops.services import tenant_delete
from tests.factories import make_document, make_searchable_document

SITE = "https://contoso.sitelib.test/sites/support"
STEM = (
    "Ticket {}: the VPN client fails to connect after the Windows update; reinstalling the client fixes it."
)


def search(tenant, query: str, mode: str, **options) -> list:
    options.setdefault("top_k", 5)
    model = embedder()
    vector = None if mode == "keyword" else model.embed([query])[0]
    options.setdefault("identities", ALL_KNOWLEDGE)
    return chunks_search(tenant=tenant, model=model.model, vector=vector, query=query, mode=mode, **options)


def texts(hits) -> list[str]:
    return [hit.chunk for hit in hits]


def index_entries(term: str) -> int:
    """The lexical index's own entries for `term`, read from the index itself (on SQLite the FTS5
    table, whose entries outlive their chunks unless something removes them)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT count(*) FROM knowledge_chunk WHERE lexical @@ %s::tsquery", [f"'{term}'"])
        else:
            cursor.execute(
                "SELECT count(*) FROM knowledge_chunk_fts WHERE knowledge_chunk_fts MATCH %s", [f'"{term}"']
            )
        return cursor.fetchone()[0]


def store(tenant, text: str, **fields):
    """One document of one chunk, embedded by the configured embedder."""
    return make_document(tenant, [(text, embedder().embed([text])[0])], model=embedder().model, **fields)[0]


@pytest.mark.parametrize(
    ("wanted", "neighbours"),
    [
        ("INC0012345", ["INC0012346", "INC0012354", "INC0012335", "INC0021345"]),
        ("KB0010042", ["KB0010043", "KB0010024", "KB0010142", "KB0001042"]),
        ("ERR-4031", ["ERR-4032", "ERR-4301", "ERR-3031", "ERR-4013"]),
        ("0x80070005", ["0x80070006", "0x80070050", "0x80007005", "0x80070015"]),
    ],
)
@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_an_identifier_in_one_document_among_many_similar_ones_comes_first(tenant, wanted, neighbours, mode):
    for n, identifier in enumerate(neighbours * 4):
        store(tenant, STEM.format(identifier) + f" Seen on laptop {n}.", title=f"Ticket {identifier}")
    store(tenant, STEM.format(wanted), title=f"Ticket {wanted}")
    hits = search(tenant, f"{wanted} VPN client fails after update", mode)
    assert hits[0].chunk == STEM.format(wanted)
    assert hits[0].score > hits[1].score


def test_a_hyphenated_identifier_matches_whole(tenant):
    store(tenant, "The gateway answers ERR-4031 when the token expired.")
    store(tenant, "ERR is logged for 4031 requests a day.")
    assert texts(search(tenant, "ERR-4031", "keyword")) == [
        "The gateway answers ERR-4031 when the token expired."
    ]


def test_a_part_of_a_dotted_or_hyphenated_identifier_finds_it(tenant):
    store(tenant, "admin.E108: The value of list_display refers to a field that does not exist.")
    store(tenant, "A plain note about the admin site.")
    assert texts(search(tenant, "E108", "keyword")) == [
        "admin.E108: The value of list_display refers to a field that does not exist."
    ]


def test_the_title_is_searched_with_the_text(tenant):
    store(tenant, "Reinstall the client from the portal.", title="INC0099887 VPN drops")
    assert texts(search(tenant, "INC0099887", "keyword")) == ["Reinstall the client from the portal."]


def test_keyword_mode_finds_nothing_without_a_shared_term(tenant):
    store(tenant, "Printers on the third floor need a badge.")
    assert search(tenant, "VPN certificate", "keyword") == []


def test_a_query_of_common_words_finds_the_chunks_that_hold_them_all(tenant):
    vector = embedder().embed(["x"])[0]
    model = embedder().model
    make_document(tenant, [(f"The printer on floor {n} is fine.", vector) for n in range(120)], model=model)
    make_document(tenant, [(f"Order toner number {n}.", vector) for n in range(120)], model=model)
    make_document(tenant, [(f"Printer {n} needs toner.", vector) for n in range(3)], model=model)
    hits = search(tenant, "printer toner", "keyword", top_k=10)
    assert sorted(texts(hits)) == [
        "Printer 0 needs toner.",
        "Printer 1 needs toner.",
        "Printer 2 needs toner.",
    ]


def test_a_rare_word_outweighs_common_ones(tenant):
    vector = embedder().embed(["x"])[0]
    model = embedder().model
    make_document(
        tenant, [(f"The printer on floor {n} needs toner.", vector) for n in range(150)], model=model
    )
    make_document(tenant, [("The plotter jammed.", vector)], model=model)
    hits = search(tenant, "printer toner plotter", "keyword", top_k=3)
    assert hits[0].chunk == "The plotter jammed."


def test_the_semantic_mode_is_cosine_similarity(tenant):
    store(tenant, "Printers on the third floor need a badge.")
    (hit,) = search(tenant, "printers badge", "semantic")
    assert 0 < hit.score <= 1


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_audience_is_applied_inside_both_legs_before_top_k(tenant, mode):
    for n in range(8):
        store(tenant, f"{STEM.format('INC0012345')} Finance laptop {n}.", audience=["finance"])
    store(tenant, STEM.format("INC0012345"), audience=["all"])
    hits = search(tenant, "INC0012345", mode, top_k=1, audience=["hr"])
    assert texts(hits) == [STEM.format("INC0012345")]


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_platform_types_narrow_both_legs(tenant, mode):
    store(
        tenant, "Ticket INC0012345 on the wiki.", platform_type="wikispace", content_type="wikispace_article"
    )
    store(tenant, "Ticket INC0012345 in a file.")
    hits = search(tenant, "INC0012345", mode, platform_types=["wikispace"])
    assert texts(hits) == ["Ticket INC0012345 on the wiki."]


def test_keyword_search_never_returns_another_tenants_chunks(tenant, other_tenant):
    store(other_tenant, "Ticket INC0012345 of another tenant.")
    assert search(tenant, "INC0012345", "keyword") == []
    assert search(tenant, "INC0012345", "hybrid") == []


def test_a_re_ingested_document_is_found_by_its_new_words_only(tenant):
    store(tenant, "Error ERR-4031 after the update.", source_id="kb-1")
    store(tenant, "Error ERR-5000 after the update.", source_id="kb-1", content_hash="f" * 64)
    assert texts(search(tenant, "ERR-5000", "keyword")) == ["Error ERR-5000 after the update."]
    assert search(tenant, "ERR-4031", "keyword") == []
    assert (index_entries("err-4031"), index_entries("err-5000")) == (0, 1)


def test_a_retitled_document_is_found_by_its_new_title(tenant):
    store(tenant, "Reinstall the client.", source_id="kb-1", title="INC0000001")
    store(tenant, "Reinstall the client.", source_id="kb-1", title="INC0000002")
    assert search(tenant, "INC0000001", "keyword") == []
    assert texts(search(tenant, "INC0000002", "keyword")) == ["Reinstall the client."]


@pytest.mark.django_db(transaction=True)
def test_the_lexical_index_changes_with_the_chunks_in_their_transaction(tenant):
    store(tenant, "Error ERR-4031 after the update.", source_id="kb-1")
    with transaction.atomic():
        store(tenant, "Error ERR-5000 after the update.", source_id="kb-1", content_hash="f" * 64)
        assert texts(search(tenant, "ERR-5000", "keyword")) == ["Error ERR-5000 after the update."]
        assert search(tenant, "ERR-4031", "keyword") == []
        transaction.set_rollback(True)
    assert texts(search(tenant, "ERR-4031", "keyword")) == ["Error ERR-4031 after the update."]
    assert search(tenant, "ERR-5000", "keyword") == []
    assert (index_entries("err-4031"), index_entries("err-5000")) == (1, 0)


@pytest.mark.django_db(transaction=True)
def test_a_failed_re_ingest_keeps_the_old_words_findable(tenant):
    vector = embedder().embed(["x"])[0]
    fields = {"source_id": "kb-1", "model": embedder().model}
    make_document(tenant, [("Error ERR-4031 after the update.", vector)], **fields)
    with pytest.raises(IntegrityError):
        # The second chunk's empty text is refused after the old chunks were removed.
        make_document(tenant, [("Error ERR-5000.", vector), ("", vector)], content_hash="f" * 64, **fields)
    assert texts(search(tenant, "ERR-4031", "keyword")) == ["Error ERR-4031 after the update."]
    assert search(tenant, "ERR-5000", "keyword") == []


def test_a_deleted_document_leaves_the_lexical_index(tenant):
    gone = store(tenant, "Error ERR-4031 after the update.")
    store(tenant, "Error ERR-4032 after the update.")
    assert document_delete(tenant=tenant, document=gone) == 1
    assert search(tenant, "ERR-4031", "keyword") == []
    assert texts(search(tenant, "ERR-4031", "hybrid")) == ["Error ERR-4032 after the update."]
    assert index_entries("err-4031") == 0
    assert texts(search(tenant, "ERR-4032", "keyword")) == ["Error ERR-4032 after the update."]


def test_a_source_deletion_leaves_the_lexical_index(tenant):
    store(tenant, "Error ERR-4031 after the update.", source_url=f"{SITE}/kb/1")
    store(tenant, "Error ERR-4031 in the archive.", source_url=f"{SITE}-archive/kb/1")
    assert documents_delete_by_url_prefix(tenant=tenant, prefix=SITE) == (1, 1)
    assert texts(search(tenant, "ERR-4031", "keyword")) == ["Error ERR-4031 in the archive."]
    assert index_entries("err-4031") == 1


def test_a_deleted_tenant_leaves_nothing_in_the_lexical_index(tenant, other_tenant):
    store(tenant, "Error ERR-4031 after the update.")
    store(other_tenant, "Error ERR-4031 elsewhere.")
    tenant_delete(tenant=tenant, actor=system_actor("tests"), request_id="r-1")
    assert index_entries("err-4031") == 1
    assert texts(search(other_tenant, "ERR-4031", "keyword")) == ["Error ERR-4031 elsewhere."]


def test_every_stored_chunk_has_its_terms(tenant):
    store(tenant, "Error ERR-4031 after the update.", title="VPN")
    assert Chunk.objects.get(tenant=tenant).terms.split() == [
        "vpn", "error", "err-4031", "err", "4031", "after", "the", "update",
    ]  # fmt: skip
    assert Chunk.objects.filter(holding("err-4031", using="default")).count() == 1


def test_a_paraphrase_that_shares_no_word_is_found_in_hybrid_mode(tenant, settings):
    settings.EMBEDDING_BACKEND = "local"
    wanted = make_searchable_document(
        tenant, ["Steps to recover access when you forgot your login credentials."], title="Account recovery"
    )
    make_searchable_document(tenant, ["The cafeteria serves lunch from noon until two."], title="Canteen")
    make_searchable_document(tenant, ["My desk lamp can't be switched on."], title="Facilities")
    make_searchable_document(tenant, ["Remember to lock your screen."], title="Security habits")
    query = "I can't remember my password"
    found = documents_search(tenant=tenant, query=query, top_k=2, mode="hybrid", identities=ALL_KNOWLEDGE)
    assert found["mode"] == "hybrid"
    assert f"doc-{wanted.id}" in [r["document_id"] for r in found["results"]]
    keyword = documents_search(tenant=tenant, query=query, top_k=4, mode="keyword", identities=ALL_KNOWLEDGE)[
        "results"
    ]
    assert f"doc-{wanted.id}" not in [r["document_id"] for r in keyword]  # it shares no word


def test_document_upsert_indexes_every_chunk_of_a_long_document(tenant):
    vector = embedder().embed(["x"])[0]
    chunks = [(f"Passage {n} mentions INC{n:07d}.", vector) for n in range(1200)]
    document_upsert(
        tenant=tenant, platform_type="sitelib", content_type="sitelib_attachment", source_id="big",
        source_url=f"{SITE}/big", title="Big", content_hash="0" * 64, audience=["all"], metadata={},
        readers=["everyone"], sync_configuration_id=None, model=embedder().model, chunks=chunks,
    )  # fmt: skip
    assert texts(search(tenant, "INC0001199", "keyword")) == ["Passage 1199 mentions INC0001199."]
