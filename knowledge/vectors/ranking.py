"""Ranking chunks by cosine similarity: the vector store's one vendor-dependent step.

PostgreSQL: pgvector's cosine distance, answered from the partial HNSW index of the query's
dimension (see `hnsw_index`), with an iterative scan so that filters (tenant, model, platform,
audience) still yield `top_k` rows. SQLite: exact cosine similarity over the candidates' float32
vectors with numpy.
"""

from __future__ import annotations

import numpy as np
from django.conf import settings
from django.contrib.postgres.indexes import OpClass
from django.db import connections, transaction
from django.db.models import Q, QuerySet
from django.db.models.functions import Cast
from pgvector.django import CosineDistance, HnswIndex, VectorField

from knowledge.models import Chunk

# pgvector indexes vectors of up to 2,000 dimensions.
HNSW_MAX_DIMENSION = 2000


def nearest(candidates: QuerySet[Chunk], query: np.ndarray, top_k: int) -> list[tuple[int, float]]:
    """The ids of the `top_k` candidates most similar to `query` with their cosine similarity,
    best first. Every candidate has the query's dimension."""
    if connections[candidates.db].vendor == "postgresql":
        return _nearest_pgvector(candidates, query, top_k)
    return _nearest_exact(candidates, query, top_k)


def _nearest_exact(candidates: QuerySet[Chunk], query: np.ndarray, top_k: int) -> list[tuple[int, float]]:
    rows = list(candidates.values_list("id", "embedding"))
    if not rows:
        return []
    ids = [chunk_id for chunk_id, _ in rows]
    matrix = np.stack([embedding for _, embedding in rows])
    scores = (matrix @ query) / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
    best = np.argsort(-scores, kind="stable")[:top_k]
    return [(ids[i], _similarity(scores[i])) for i in best]


def _nearest_pgvector(candidates: QuerySet[Chunk], query: np.ndarray, top_k: int) -> list[tuple[int, float]]:
    distance = CosineDistance(Cast("embedding", VectorField(dimensions=query.size)), query)
    ranked = candidates.annotate(distance=distance).order_by("distance").values_list("id", "distance")[:top_k]
    with transaction.atomic(using=candidates.db), connections[candidates.db].cursor() as cursor:
        # Settings of this transaction only. strict_order: the rows come back in distance order.
        # A custom plan sees the dimension's value, which the partial index's predicate needs
        # (with DATABASE_PREPARED_STATEMENTS a generic plan would not).
        cursor.execute(
            "SELECT set_config('hnsw.iterative_scan', 'strict_order', true),"
            " set_config('hnsw.ef_search', %s, true),"
            " set_config('plan_cache_mode', 'force_custom_plan', true)",
            [str(max(settings.VECTOR_HNSW_EF_SEARCH, 2 * top_k))],
        )
        return [(chunk_id, _similarity(1.0 - distance)) for chunk_id, distance in ranked]


def _similarity(value: float) -> float:
    # float32 rounding can step just outside the cosine's range.
    return float(np.clip(value, -1.0, 1.0))


def vector_index_create(*, dimension: int, using: str = "default") -> bool:
    """Build the HNSW index of one embedding dimension unless it exists, without blocking writes.
    True when it was built; False when it existed or the database ranks exactly (SQLite)."""
    if not 1 <= dimension <= HNSW_MAX_DIMENSION:
        raise ValueError(f"pgvector indexes 1 to {HNSW_MAX_DIMENSION} dimensions.")
    connection = connections[using]
    if connection.vendor != "postgresql":
        return False
    index = hnsw_index(dimension)
    with connection.cursor() as cursor:
        if index.name in connection.introspection.get_constraints(cursor, Chunk._meta.db_table):
            return False
    with connection.schema_editor(atomic=False) as editor:
        editor.add_index(Chunk, index, concurrently=True)
    return True


def hnsw_index(dimension: int) -> HnswIndex:
    """The partial HNSW index (cosine) over the chunks of one embedding dimension. The query in
    `_nearest_pgvector` casts and filters the same way, so the planner can use it."""
    return HnswIndex(
        OpClass(Cast("embedding", VectorField(dimensions=dimension)), name="vector_cosine_ops"),
        name=f"chunk_embedding_{dimension}_hnsw",
        condition=Q(dimension=dimension),
    )
