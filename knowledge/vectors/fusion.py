"""Hybrid ranking: the semantic and keyword legs fused (DESIGN section 20).

Reciprocal-rank fusion of the semantic leg and the keyword leg's strong matches: a chunk scores
the sum over the legs of 1 / (RRF_K + its rank there) (ranks from 1; a leg that did not return it
adds nothing), so at most 2 / 61. A keyword match is strong when the query terms the chunk holds
weigh at least STRONG = ln 100, about 4.6 (`lexical`: a term held by about 1 % of the chunks
counted, or two or three less rare ones together): a query whose words are common, or a knowledge
base too small to tell rare words from common ones, keeps the semantic order.

Then the lift: when the query names identifiers (`lexical.identifier_like`) that the index holds,
the keyword leg's chunks that hold the most of them come first, in their fused order, and score 1
more. Measured on the labelled set (bench/retrieval, docs/ingestion.md "Search"), this beat plain
reciprocal-rank fusion, a weighted one, and the semantic order with the lift alone.
"""

from __future__ import annotations

import math
from collections import defaultdict

from knowledge.vectors.lexical import KeywordMatch

RRF_K = 60
LIFT = 1.0
STRONG = math.log(100.0)


def reciprocal_rank_fusion(
    semantic: list[int], keyword: list[int], *, k: int = RRF_K, keyword_weight: float = 1.0
) -> dict[int, float]:
    """Chunk id -> fused score, from each leg's chunk ids best first."""
    fused: dict[int, float] = defaultdict(float)
    for rank, chunk_id in enumerate(semantic, start=1):
        fused[chunk_id] += 1.0 / (k + rank)
    for rank, chunk_id in enumerate(keyword, start=1):
        fused[chunk_id] += keyword_weight / (k + rank)
    return fused


def lifted(keyword: list[KeywordMatch]) -> set[int]:
    """The keyword leg's chunks that hold the most weight of the query's identifiers (none when
    the query holds no identifier the index knows)."""
    most = max((match.identifier for match in keyword), default=0.0)
    return {match.chunk_id for match in keyword if most > 0 and match.identifier >= most}


def hybrid_ranked(
    semantic: list[int], keyword: list[KeywordMatch], *, keyword_weight: float = 1.0, strong: float = STRONG
) -> list[tuple[int, float]]:
    """(chunk id, score) best first: the fused order with the identifier matches lifted."""
    strong_matches = [match.chunk_id for match in keyword if match.score >= strong]
    fused = reciprocal_rank_fusion(semantic, strong_matches, keyword_weight=keyword_weight)
    for chunk_id in lifted(keyword):
        fused[chunk_id] += LIFT
    order = {chunk_id: rank for rank, chunk_id in enumerate(semantic)}
    # Ties (a chunk first in one leg, another first in the other) go to the semantic leg's.
    return sorted(fused.items(), key=lambda item: (-item[1], order.get(item[0], len(order)), item[0]))
