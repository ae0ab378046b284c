"""Writing, removing, counting and searching a tenant's documents and chunks.

Search (DESIGN section 20) has two legs over the same chunks, those the caller may read
(`chunks_readable`, the one filter both legs start from, so that nothing hidden is ranked, counted
or cut to `top_k`): the semantic leg ranks them by cosine similarity to the query's embedding
(`ranking.nearest`), the keyword leg by the query's terms in the lexical index
(`lexical.keyword_ranked`); hybrid fuses the best `LEG_SIZE` of each (`fusion.hybrid_ranked`)."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.constants import LOOKUP_SEP

from core.models import Tenant
from core.readers import principals
from knowledge.fields import FLOAT32
from knowledge.models import Chunk, Document
from knowledge.vectors.audience import audience_tags, audience_visible, readers_tags, readers_visible
from knowledge.vectors.fusion import hybrid_ranked
from knowledge.vectors.lexical import chunk_terms, keyword_ranked, query_terms
from knowledge.vectors.prefixes import url_key, url_prefix
from knowledge.vectors.ranking import nearest

# A metadata key that documents_delete_where names in a lookup: letters, digits and single
# underscores (a double one would reach into a nested key or name a lookup).
METADATA_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Rows per INSERT of a document's chunks: with parameters bound on the server
# (DATABASE_PREPARED_STATEMENTS) one statement carries at most 65,535 of them.
CHUNKS_PER_INSERT = 1000
HYBRID, SEMANTIC, KEYWORD = "hybrid", "semantic", "keyword"
SEARCH_MODES = (HYBRID, SEMANTIC, KEYWORD)
LEG_SIZE = 50  # chunks each leg hands to the fusion


@dataclass(frozen=True)
class Hit:
    document_id: str  # the API form, doc-<uuid>
    title: str
    source_url: str
    platform_type: str
    content_type: str
    chunk: str
    score: float  # higher is better: semantic, cosine similarity; keyword, term weight; hybrid, fusion


def embedding_check(vector) -> np.ndarray:
    """The vector as float32, or ValueError: cosine similarity needs finite values and a direction."""
    array = np.asarray(vector, dtype=FLOAT32)
    if array.ndim != 1 or array.size == 0:
        raise ValueError("An embedding is a non-empty one-dimensional vector.")
    if not np.isfinite(array).all():
        raise ValueError("An embedding's values must be finite float32 numbers.")
    if not array.any():
        raise ValueError("An embedding must not be all zeros.")
    return array


def _embeddings(chunks: Sequence[tuple[str, np.ndarray]]) -> list[np.ndarray]:
    vectors = [embedding_check(vector) for _, vector in chunks]
    if len({v.size for v in vectors}) > 1:
        raise ValueError("The chunks of one document have embeddings of one dimension.")
    return vectors


def _document_fields_check(tenant: Tenant, fields: dict) -> None:
    """The model's own field rules (choices, lengths, required values), the same on both databases."""
    try:
        Document(tenant=tenant, **fields).clean_fields(exclude=["tenant"])
    except ValidationError as exc:
        raise ValueError(f"Invalid document: {exc.message_dict}") from None
    platform_type, content_type = fields["platform_type"], fields["content_type"]
    if not content_type.startswith(f"{platform_type}_"):
        raise ValueError(f"Content type {content_type!r} is not one of platform {platform_type!r}.")


def document_upsert(
    *,
    tenant: Tenant,
    platform_type: str,
    content_type: str,
    source_id: str,
    source_url: str,
    title: str,
    content_hash: str,
    audience: list[str],
    metadata: dict,
    sync_configuration_id: str | None,
    model: str,
    chunks: Sequence[tuple[str, np.ndarray]],
    readers: Sequence[str],
) -> tuple[Document, int, int]:
    """Store the document and replace its chunks in one transaction: a reader sees its old chunks
    or its new ones, never a mix, and a failure on the way leaves the old ones (and the old
    content hash, so the next run tries again). `readers` are the source principals that may read
    the item at its source (empty: its permissions could not be read).
    Returns (document, chunks_written, vectors_removed)."""
    tags = audience_tags(audience)
    reader_tags = readers_tags(readers)
    readers = principals(readers)
    vectors = _embeddings(chunks)
    fields = {
        "platform_type": platform_type,
        "content_type": content_type,
        "source_id": source_id,
        "source_url": source_url,
        "source_url_key": url_key(source_url),
        "title": title,
        "content_hash": content_hash,
        "audience": list(audience),
        "readers": list(readers),
        "metadata": metadata,
        "sync_configuration_id": sync_configuration_id or "",
        "chunk_count": len(chunks),
    }
    _document_fields_check(tenant, fields)
    with transaction.atomic():
        # update_or_create locks the document's row: concurrent writers of one document take turns.
        document, _ = Document.objects.update_or_create(
            tenant=tenant, platform_type=platform_type, source_id=source_id, defaults=fields
        )
        removed, _ = Chunk.objects.filter(document=document).delete()
        Chunk.objects.bulk_create(
            (
                Chunk(
                    document=document,
                    tenant=tenant,
                    ordinal=ordinal,
                    text=text,
                    model=model,
                    dimension=vector.size,
                    audience=tags,
                    readers=reader_tags,
                    terms=chunk_terms(title=title, text=text),
                    embedding=vector,
                )
                for ordinal, ((text, _), vector) in enumerate(zip(chunks, vectors, strict=True))
            ),
            batch_size=CHUNKS_PER_INSERT,
        )
    return document, len(chunks), removed


def _under(prefix: str) -> Q:
    """The documents that `prefix` covers (`knowledge.vectors.prefixes`): `https://x/a` covers
    `https://x/a`, `https://x/a/...`, `https://x/a?...` and `https://x/a#...`, not `https://x/ab`."""
    key, beneath = url_prefix(prefix)
    covered = Q(source_url_key=key)
    for start in beneath:
        covered |= Q(source_url_key__startswith=start)
    return covered


def documents_delete_by_url_prefix(*, tenant: Tenant, prefix: str) -> tuple[int, int]:
    """Remove the tenant's documents under `prefix` with their chunks.
    Returns (documents_deleted, vectors_removed)."""
    return _deleted(Document.objects.for_tenant(tenant).filter(_under(prefix)))


def documents_delete_where(
    *, tenant: Tenant, platform_type: str, key: str, values: Sequence[str]
) -> tuple[int, int]:
    """Remove the tenant's documents of `platform_type` whose `metadata[key]` is one of `values`
    (JSON strings; a knowledge base's id, a space's key), with their chunks. `key` is a plain
    identifier (ValueError otherwise). Returns (documents_deleted, vectors_removed)."""
    if not isinstance(key, str) or not METADATA_KEY.fullmatch(key) or LOOKUP_SEP in key:
        raise ValueError("A metadata key is a plain identifier (letters, digits, underscores).")
    wanted = [] if isinstance(values, str) else list(values)
    if isinstance(values, str) or not all(isinstance(v, str) for v in wanted):
        raise ValueError("values is a list of strings.")
    if not wanted:
        return 0, 0
    documents = Document.objects.for_tenant(tenant).filter(platform_type=platform_type)
    return _deleted(documents.filter(**{f"metadata__{key}__in": wanted}))


def _deleted(documents) -> tuple[int, int]:
    _, deleted = documents.delete()
    return deleted.get(Document._meta.label, 0), deleted.get(Chunk._meta.label, 0)


def documents_delete_of_configuration(*, tenant: Tenant, sync_configuration_id: str) -> tuple[int, int]:
    """Remove the tenant's documents that a sync configuration wrote, with their chunks.
    Returns (documents_deleted, vectors_removed)."""
    rows = Document.objects.for_tenant(tenant).filter(sync_configuration_id=sync_configuration_id)
    _, deleted = rows.delete()
    return deleted.get(Document._meta.label, 0), deleted.get(Chunk._meta.label, 0)


def document_delete(*, tenant: Tenant, document: Document) -> int:
    """Remove one document (deleted upstream) with its chunks. Returns vectors_removed."""
    _, deleted = Document.objects.for_tenant(tenant).filter(id=document.id).delete()
    return deleted.get(Chunk._meta.label, 0)


def chunks_count(*, tenant: Tenant) -> int:
    return Chunk.objects.filter(tenant=tenant).count()


def document_readers_set(*, tenant: Tenant, document: Document, readers: Sequence[str]) -> bool:
    """Give the document and its chunks new readers (a permissions pass), without touching their
    text or embeddings. Returns whether they changed."""
    found = list(principals(readers))
    if found == list(document.readers):
        return False
    with transaction.atomic():
        Document.objects.for_tenant(tenant).filter(id=document.id).update(readers=found)
        Chunk.objects.filter(document_id=document.id).update(readers=readers_tags(found))
    document.readers = found
    return True


def chunks_readable(
    *,
    tenant: Tenant,
    identities: Collection[str] | None,
    platform_types: Sequence[str] | None = None,
    audience: Sequence[str] | None = None,
) -> QuerySet[Chunk]:
    """The tenant's chunks that a caller with these source identities may read
    (`identity.sources.source_identities`; None: every chunk), of `platform_types` (None: every
    platform), narrowed to `audience` when it names groups (those groups' chunks and everyone's;
    [] keeps only everyone's)."""
    readable = Chunk.objects.filter(tenant=tenant)
    readable = readable.filter(readers_visible(identities, using=readable.db))
    if platform_types is not None:
        readable = readable.filter(document__platform_type__in=list(platform_types))
    if audience is not None:
        readable = readable.filter(audience_visible(audience))
    return readable


def chunks_search(
    *,
    tenant: Tenant,
    model: str,
    top_k: int,
    vector: np.ndarray | None = None,
    query: str = "",
    mode: str = SEMANTIC,
    identities: Collection[str] | None,
    platform_types: Sequence[str] | None = None,
    audience: Sequence[str] | None = None,
) -> list[Hit]:
    """The tenant's `top_k` readable chunks (`chunks_readable`) of embedding `model` that best
    answer the query, best first. `mode` semantic ranks by the `vector`'s cosine similarity,
    keyword by the `query` text's terms, hybrid by both (it needs the vector and the text)."""
    if mode not in SEARCH_MODES:
        raise ValueError(f"mode is one of {', '.join(SEARCH_MODES)}.")
    if top_k < 1:
        raise ValueError("top_k is at least 1.")
    candidates = chunks_readable(
        tenant=tenant, identities=identities, platform_types=platform_types, audience=audience
    )
    candidates = candidates.filter(model=model)
    if mode == KEYWORD:
        keyword = keyword_ranked(candidates, query_terms(query), top_k)
        return _hits([(match.chunk_id, match.score) for match in keyword])
    embedding = embedding_check(vector)
    semantic = nearest(
        candidates.filter(dimension=embedding.size), embedding, top_k if mode == SEMANTIC else LEG_SIZE
    )
    if mode == SEMANTIC:
        return _hits(semantic)
    keyword = keyword_ranked(candidates, query_terms(query), LEG_SIZE)
    return _hits(hybrid_ranked([chunk_id for chunk_id, _ in semantic], keyword)[:top_k])


HIT_FIELDS = (
    "id",
    "text",
    "document_id",
    "document__title",
    "document__source_url",
    "document__platform_type",
    "document__content_type",
)


def _hits(ranked: list[tuple[int, float]]) -> list[Hit]:
    """The ranked chunks (of the readable candidates) with their documents, by primary key."""
    rows = {
        row[0]: row for row in Chunk.objects.filter(id__in=[i for i, _ in ranked]).values_list(*HIT_FIELDS)
    }
    return [_hit(rows[chunk_id], score) for chunk_id, score in ranked]


def _hit(row: tuple, score: float) -> Hit:
    _, text, document_id, title, source_url, platform_type, content_type = row
    return Hit(
        document_id=f"doc-{document_id}",
        title=title,
        source_url=source_url,
        platform_type=platform_type,
        content_type=content_type,
        chunk=text,
        score=score,
    )
