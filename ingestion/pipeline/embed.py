"""Pipeline stage "embed": the chunks of several documents in one call to the embedder; when that
call fails, each document is tried alone, and a document whose own call fails is
VECTOR_EMBEDDING_FAILED (the others go on)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from ingestion.pipeline.failures import ItemFailed
from knowledge.embeddings import Embedder, EmbeddingFailed

logger = logging.getLogger(__name__)


def chunks_embed(*, embedder: Embedder, documents: Sequence[list[str]]) -> list[np.ndarray | ItemFailed]:
    """For each document (its list of chunks), its vectors (one row per chunk) or its failure."""
    texts = [chunk for chunks in documents for chunk in chunks]
    if not texts:
        return [np.zeros((0, embedder.dimension), dtype=np.float32) for _ in documents]
    try:
        matrix = embedder.embed(texts)
    except EmbeddingFailed as exc:
        logger.warning(
            "An embedding batch of %d documents failed (%s); trying each alone", len(documents), exc
        )
        return [_alone(embedder, chunks) for chunks in documents]
    rows, start = [], 0
    for chunks in documents:
        rows.append(matrix[start : start + len(chunks)])
        start += len(chunks)
    return rows


def _alone(embedder: Embedder, chunks: list[str]) -> np.ndarray | ItemFailed:
    if not chunks:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    try:
        return embedder.embed(chunks)
    except EmbeddingFailed as exc:
        return ItemFailed("VECTOR_EMBEDDING_FAILED", str(exc))
