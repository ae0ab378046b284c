import io
import shutil

import pytest
from django.core.management import call_command

from core.models import Tenant
from identity.sources import ALL_KNOWLEDGE
from knowledge.models import Chunk, Document, SourceRule
from knowledge.seeding import HANDBOOK_DIR
from knowledge.selectors import documents_search

HANDBOOK_PAGES = sorted(path.stem for path in HANDBOOK_DIR.glob("*.md"))

ANYONE = frozenset({"everyone"})  # a caller that reads what is shared with everyone


def seed_demo() -> str:
    """seed_demo's notes (stderr)."""
    notes = io.StringIO()
    call_command("seed_demo", stdout=io.StringIO(), stderr=notes)
    return notes.getvalue()


def handbook(tenant) -> list[tuple]:
    rows = Document.objects.for_tenant(tenant).order_by("source_url")
    return list(rows.values_list("id", "source_url", "content_hash", "updated_at", "chunk_count"))


def test_seed_demo_adds_the_demo_source_rules_once(db):
    seed_demo()
    seed_demo()
    rules = SourceRule.objects.order_by("kind")
    assert [(r.kind, r.target, r.audiences) for r in rules] == [
        ("allow", "site", ["hr"]),
        ("block", "site", []),
    ]


def test_seed_demo_writes_the_demo_handbook_into_the_demo_knowledge_base(db):
    notes = seed_demo()
    demo = Tenant.objects.get(name="demo")
    documents = Document.objects.for_tenant(demo).order_by("source_url")
    assert 5 <= len(HANDBOOK_PAGES) <= 10
    assert [d.source_url for d in documents] == [f"https://demo.invalid/handbook/{p}" for p in HANDBOOK_PAGES]
    assert {(d.platform_type, d.content_type, d.chunk_count) for d in documents} == {
        ("wikispace", "wikispace_article", 1)
    }
    assert all(d.metadata["demo"] is True and d.audience == ["all"] and d.title for d in documents)
    vpn = Chunk.objects.get(document__source_url="https://demo.invalid/handbook/vpn")
    assert "VPN" in vpn.text and vpn.model == "hash-256"
    count = len(HANDBOOK_PAGES)
    assert f"{count} demo handbook pages" in notes and f"({count} written now)" in notes


def test_a_second_seed_demo_changes_nothing_in_the_knowledge_base(db):
    seed_demo()
    demo = Tenant.objects.get(name="demo")
    before, chunks = handbook(demo), list(Chunk.objects.values_list("id", "text"))
    notes = seed_demo()
    assert handbook(demo) == before
    assert list(Chunk.objects.values_list("id", "text")) == chunks
    assert "(0 written now)" in notes


def test_an_edited_handbook_page_is_written_again(db, tmp_path, monkeypatch):
    pages = shutil.copytree(HANDBOOK_DIR, tmp_path / "handbook")
    monkeypatch.setattr("knowledge.seeding.HANDBOOK_DIR", pages)
    seed_demo()
    (pages / "printer.md").write_text("# Printer troubleshooting\n\nPrinters now live on the ground floor.\n")
    assert "(1 written now)" in seed_demo()
    printer = Chunk.objects.get(document__source_url="https://demo.invalid/handbook/printer")
    assert printer.text == "Printers now live on the ground floor."
    assert Document.objects.count() == len(HANDBOOK_PAGES)


def test_another_tenant_sees_none_of_the_demo_handbook(db, other_tenant):
    seed_demo()
    demo = Tenant.objects.get(name="demo")
    assert documents_search(tenant=demo, query="VPN from home", top_k=50, identities=ANYONE)["results"]
    assert (
        documents_search(tenant=other_tenant, query="VPN from home", top_k=50, identities=ALL_KNOWLEDGE)[
            "results"
        ]
        == []
    )
    assert not Document.objects.for_tenant(other_tenant).exists()


def test_seed_demo_succeeds_without_an_embedder_and_says_so(db, settings, tmp_path):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL_DIR = str(tmp_path)  # no model there
    notes = seed_demo()
    assert "the demo handbook was NOT written, the embedder failed" in notes
    assert "weights cannot be read" in notes
    assert not Document.objects.exists()
    settings.EMBEDDING_BACKEND = "hash"  # the next start that can embed writes it
    seed_demo()
    assert Document.objects.count() == len(HANDBOOK_PAGES)


@pytest.mark.parametrize("page", HANDBOOK_PAGES)
def test_every_handbook_page_has_a_title_and_fits_one_chunk(page):
    heading, _, text = (HANDBOOK_DIR / f"{page}.md").read_text().partition("\n")
    assert heading.startswith("# ") and len(heading) > 5
    assert 50 <= len(text.split()) <= 160  # all-MiniLM-L6-v2 reads 256 word pieces at most
