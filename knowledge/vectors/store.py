"""Writing, removing, counting and searching a tenant's documents and chunks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.db.models.constants import LOOKUP_SEP

from core.models import Tenant
from knowledge.fields import FLOAT32
from knowledge.models import Chunk, Document
from knowledge.vectors.audience import audience_tags, readers_tags
from knowledge.vectors.prefixes import url_key, url_prefix
from knowledge.vectors.ranking import nearest

# A metadata key that documents_delete_where names in a lookup: letters, digits and single
# underscores (a double one would reach into a nested key or name a lookup).
METADATA_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Rows per INSERT of a document's chunks: with parameters bound on the server
# (DATABASE_PREPARED_STATEMENTS) one statement carries at most 65,535 of them.
CHUNKS_PER_INSERT = 1000


@dataclass(frozen=True)
class Hit:
    document_id: str  # the API form, doc-<uuid>
    title: str
    source_url: str
    platform_type: str
    content_type: str
    chunk: str
    score: float  # cosine similarity, -1..1


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
    readers: Sequence[str] = (),
) -> tuple[Document, int, int]:
    """Store the document and replace its chunks in one transaction: a reader sees its old chunks
    or its new ones, never a mix, and a failure on the way leaves the old ones (and the old
    content hash, so the next run tries again). `readers` are the platform's read permissions of
    the item (empty: no upstream restriction). Returns (document, chunks_written, vectors_removed)."""
    tags = audience_tags(audience)
    reader_tags = readers_tags(readers)
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


def chunks_search(
    *,
    tenant: Tenant,
    vector: np.ndarray,
    model: str,
    top_k: int,
    platform_types: Sequence[str] | None = None,
    documents: QuerySet[Document] | None = None,
) -> list[Hit]:
    """The tenant's `top_k` chunks of embedding `model` nearest to `vector`, best first, among the
    chunks of `documents` (the documents the caller may read, `knowledge.selectors.
    documents_readable`; None: every document of the tenant)."""
    query = embedding_check(vector)
    if top_k < 1:
        raise ValueError("top_k is at least 1.")
    candidates = Chunk.objects.filter(tenant=tenant, model=model, dimension=query.size)
    if platform_types is not None:
        candidates = candidates.filter(document__platform_type__in=list(platform_types))
    if documents is not None:
        candidates = candidates.filter(document__in=documents)
    return [_hit(chunk, score) for chunk, score in nearest(candidates, query, top_k)]


def _hit(chunk: Chunk, score: float) -> Hit:
    document = chunk.document
    return Hit(
        document_id=document.public_id,
        title=document.title,
        source_url=document.source_url,
        platform_type=document.platform_type,
        content_type=document.content_type,
        chunk=chunk.text,
        score=score,
    )
