"""Demo data: a block rule and an allow rule, so the admin's "Source rules" page shows the idea, and
a small IT handbook in the knowledge base (`demo_handbook/`, one chunk a document), so that a fresh
`make run` can search something without any vendor."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from core.models import Tenant
from core.readers import EVERYONE
from core.seeding import seed_hook
from knowledge.embeddings import EmbeddingFailed, embedder
from knowledge.selectors import document_find
from knowledge.services import source_rule_ensure
from knowledge.vectors.store import document_upsert

HANDBOOK_DIR = Path(__file__).resolve().parent / "demo_handbook"
HANDBOOK_URL = "https://demo.invalid/handbook/"  # .invalid: clearly not a real address (RFC 2606)
HANDBOOK_PLATFORM, HANDBOOK_CONTENT_TYPE = "wikispace", "wikispace_article"


@seed_hook
def seed_source_rules(tenant: Tenant) -> None:
    source_rule_ensure(
        tenant=tenant,
        kind="block",
        target="site",
        value="https://demo.example.com/sites/finance",
        note="Demo: finance never reaches the knowledge base (applied with blacklisted=true).",
    )
    source_rule_ensure(
        tenant=tenant,
        kind="allow",
        target="site",
        value="https://demo.example.com/sites/hr",
        audiences=["hr"],
        note="Demo: with source_restriction=true, the hr audience sees only this site.",
    )


@dataclass(frozen=True)
class HandbookPage:
    """One file of `demo_handbook/`: its first line is `# <title>`, the rest its text."""

    slug: str
    title: str
    text: str

    @property
    def source_id(self) -> str:
        return f"demo-handbook-{self.slug}"

    @property
    def source_url(self) -> str:
        return HANDBOOK_URL + self.slug

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def handbook_pages() -> list[HandbookPage]:
    pages = []
    for path in sorted(HANDBOOK_DIR.glob("*.md")):
        heading, _, text = path.read_text(encoding="utf-8").partition("\n")
        title = heading.removeprefix("# ").strip()
        pages.append(HandbookPage(slug=path.stem, title=title, text=text.strip()))
    return pages


def _stored(tenant: Tenant, page: HandbookPage, model: str) -> bool:
    """The knowledge base holds the page as it is now, embedded by `model`."""
    document = document_find(tenant=tenant, platform_type=HANDBOOK_PLATFORM, source_id=page.source_id)
    return document is not None and (
        document.content_hash,
        document.title,
        document.source_url,
        (document.metadata or {}).get("embedding_model"),
    ) == (page.content_hash, page.title, page.source_url, model)


@seed_hook
def seed_demo_handbook(tenant: Tenant) -> str:
    """Write the handbook's pages that are missing or changed (or embedded by another model); a
    second run writes nothing. An embedder that cannot load leaves the knowledge base as it was."""
    pages = handbook_pages()
    try:
        model = embedder()
        stale = [page for page in pages if not _stored(tenant, page, model.model)]
        vectors = model.embed([page.text for page in stale]) if stale else []
    except EmbeddingFailed as exc:
        return f"Knowledge base: the demo handbook was NOT written, the embedder failed: {exc}"
    for page, vector in zip(stale, vectors, strict=True):
        document_upsert(
            tenant=tenant,
            platform_type=HANDBOOK_PLATFORM,
            content_type=HANDBOOK_CONTENT_TYPE,
            source_id=page.source_id,
            source_url=page.source_url,
            title=page.title,
            content_hash=page.content_hash,
            audience=["all"],
            readers=[EVERYONE],
            metadata={"demo": True, "embedding_model": model.model},
            sync_configuration_id=None,
            model=model.model,
            chunks=[(page.text, vector)],
        )
    return (
        f"Knowledge base: {len(pages)} demo handbook pages under {HANDBOOK_URL} "
        f"({len(stale)} written now), embedded by {model.model}"
    )
