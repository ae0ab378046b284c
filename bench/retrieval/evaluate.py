"""Retrieval quality on the labelled set (bench/retrieval/README.md): nDCG@10, recall@1, recall@10
and MRR@10 of each search mode, on the whole set and per query class, with the real embedding
model, through the real search (`knowledge.vectors.store.chunks_search`) in a throwaway database.

    EMBEDDING_BACKEND=local .venv/bin/python -m bench.retrieval [--json] [--no-cache]

The corpus's documents are chunked as ingestion chunks them (`ingestion.pipeline.chunk`), embedded
by the configured model and written by the chunk writer (`document_upsert`), which fills the
lexical index. Each query asks for the best 50 chunks; a document ranks where its first chunk
does, and the metrics read its first 10 documents. The fusions measured before one was kept are
computed again from the two legs, so that the choice can be checked on every run.

The chunks' embeddings are kept in VAR_DIR/bench/retrieval-<sha256>.npy, keyed by the model and
the chunks' texts: a second run skips the minutes of embedding (`--no-cache` embeds again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import time
import uuid
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdef0123456789abcdef")
os.environ.setdefault("VAULT_MASTER_KEYS", "bench1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
os.environ.setdefault("EMBEDDING_BACKEND", "local")

import django

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_databases, setup_test_environment, teardown_databases  # noqa: E402

from identity.sources import ALL_KNOWLEDGE  # noqa: E402
from ingestion.pipeline.chunk import text_chunk  # noqa: E402
from knowledge.embeddings import embedder  # noqa: E402
from knowledge.models import Chunk, Document  # noqa: E402
from knowledge.vectors.fusion import hybrid_ranked, lifted, reciprocal_rank_fusion  # noqa: E402
from knowledge.vectors.lexical import keyword_ranked, query_terms  # noqa: E402
from knowledge.vectors.ranking import nearest  # noqa: E402
from knowledge.vectors.store import (  # noqa: E402
    LEG_SIZE,
    SEARCH_MODES,
    chunks_readable,
    chunks_search,
    document_upsert,
)
from tests import factories  # noqa: E402

HERE = Path(__file__).resolve().parent
CLASSES = ("paraphrase", "keyword", "identifier")
DEPTH = 10


def load(name: str) -> list[dict]:
    with (HERE / name).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def chunked(documents: list[dict]) -> list[list[str]]:
    return [text_chunk(document["text"]) for document in documents]


def embedded(texts: list[str], cache: bool) -> np.ndarray:
    """The texts' embeddings by the configured model, from the cache when it holds them."""
    model = embedder()
    key = hashlib.sha256("\0".join([model.model, *texts]).encode()).hexdigest()[:16]
    path = Path(settings.VAR_DIR) / "bench" / f"retrieval-{key}.npy"
    if cache and path.exists():
        return np.load(path)
    vectors = model.embed(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def store(tenant, documents: list[dict], pieces: list[list[str]], vectors: np.ndarray) -> dict[int, str]:
    """Every document through the chunk writer; returns chunk id -> the labelled set's document id."""
    model, offset = embedder().model, 0
    for document, texts in zip(documents, pieces, strict=True):
        document_upsert(
            tenant=tenant,
            platform_type="wikispace",
            content_type="wikispace_article",
            source_id=document["id"],
            source_url=document["url"],
            title=document["title"],
            content_hash=hashlib.sha256(document["text"].encode()).hexdigest(),
            audience=["all"],
            readers=["everyone"],
            metadata={"labelled_set": document["id"]},
            sync_configuration_id=None,
            model=model,
            chunks=list(zip(texts, vectors[offset : offset + len(texts)], strict=True)),
        )
        offset += len(texts)
    rows = Chunk.objects.filter(tenant=tenant).values_list("id", "document__source_id")
    return dict(rows)


def metrics(ranked_documents: list[str], relevant: set[str]) -> tuple[float, float, float, float]:
    """nDCG@10 (binary gains), recall@1 and recall@10 (relevant found / min(relevant, k)), MRR@10."""
    top = ranked_documents[:DEPTH]
    gains = [1.0 if document in relevant else 0.0 for document in top]
    dcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(gains))
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(len(relevant), DEPTH)))
    first = next((rank for rank, gain in enumerate(gains) if gain), None)
    return (
        dcg / ideal,
        gains[0] if gains else 0.0,
        sum(gains) / min(len(relevant), DEPTH),
        0.0 if first is None else 1.0 / (first + 1),
    )


def documents_of(chunk_ids: list[int], owner: dict[int, str]) -> list[str]:
    ranked: dict[str, None] = {}
    for chunk_id in chunk_ids:
        ranked.setdefault(owner[chunk_id], None)
    return list(ranked)


def rankings(
    tenant, queries: list[dict], vectors: np.ndarray, owner: dict[int, str]
) -> tuple[dict, list[float]]:
    """For each query, the labelled documents in the order of each mode and of each candidate
    fusion; and the hybrid searches' milliseconds."""
    model = embedder().model
    labelled = dict(Document.objects.filter(tenant=tenant).values_list("id", "source_id"))
    found: dict[str, list[list[str]]] = defaultdict(list)
    readable = chunks_readable(tenant=tenant, identities=ALL_KNOWLEDGE).filter(model=model)
    for query, vector in zip(queries, vectors, strict=True):
        for mode in SEARCH_MODES:
            hits = chunks_search(
                tenant=tenant,
                model=model,
                top_k=LEG_SIZE,
                vector=vector,
                query=query["query"],
                mode=mode,
                identities=ALL_KNOWLEDGE,
            )
            ranked = [labelled[uuid.UUID(hit.document_id.removeprefix("doc-"))] for hit in hits]
            found[mode].append(list(dict.fromkeys(ranked)))
        semantic = [chunk_id for chunk_id, _ in nearest(readable, vector, LEG_SIZE)]
        keyword = keyword_ranked(readable, query_terms(query["query"]), LEG_SIZE)
        for name, chunk_ids in candidates(semantic, keyword).items():
            found[name].append(documents_of(chunk_ids, owner))
    return found


def candidates(semantic: list[int], keyword) -> dict[str, list[int]]:
    """The fusions measured before `fusion.hybrid_ranked` was kept (docs/ingestion.md, "Search")."""

    def ordered(scores: dict[int, float]) -> list[int]:
        order = {chunk_id: rank for rank, chunk_id in enumerate(semantic)}
        return sorted(scores, key=lambda c: (-scores[c], order.get(c, len(order)), c))

    ids = [match.chunk_id for match in keyword]
    lift = lifted(keyword)
    return {
        "candidate: rrf k=60": ordered(reciprocal_rank_fusion(semantic, ids)),
        "candidate: rrf k=60, keyword x0.5": ordered(
            reciprocal_rank_fusion(semantic, ids, keyword_weight=0.5)
        ),
        "candidate: semantic + lift": [
            *(c for c in semantic if c in lift),
            *(c for c in ids if c in lift and c not in semantic),
            *(c for c in semantic if c not in lift),
        ],
        "candidate: rrf + lift": [c for c, _ in hybrid_ranked(semantic, keyword, strong=0.0)],
        "candidate: rrf strong + lift (kept)": [c for c, _ in hybrid_ranked(semantic, keyword)],
        "candidate: rrf strong x0.7 + lift": [
            c for c, _ in hybrid_ranked(semantic, keyword, keyword_weight=0.7)
        ],
    }


def report(queries: list[dict], found: dict) -> list[tuple[str, dict]]:
    rows = []
    for name, per_query in found.items():
        by_class: dict[str, list] = defaultdict(list)
        for query, ranked in zip(queries, per_query, strict=True):
            scores = metrics(ranked, set(query["relevant"]))
            by_class["all"].append(scores)
            by_class[query["class"]].append(scores)
        rows.append((name, {c: np.mean(values, axis=0) for c, values in by_class.items()}))
    return rows


def table(rows: list[tuple[str, dict]]) -> list[str]:
    lines = [f"{'ranking':<36} {'class':<11} {'nDCG@10':>8} {'R@1':>6} {'R@10':>6} {'MRR@10':>7}"]
    for name, by_class in rows:
        for n, klass in enumerate(("all", *CLASSES)):
            ndcg, r1, r10, mrr = by_class[klass]
            label = name if n == 0 else ""
            lines.append(f"{label:<36} {klass:<11} {ndcg:>8.3f} {r1:>6.3f} {r10:>6.3f} {mrr:>7.3f}")
    return lines


def floors(rows: list[tuple[str, dict]]) -> list[str]:
    """The floors of DESIGN section 20 (and issue 36): met or missed."""
    by_name = dict(rows)
    verdicts = []
    for klass in ("all", *CLASSES):
        hybrid = by_name["hybrid"][klass][0]
        best = max(by_name["semantic"][klass][0], by_name["keyword"][klass][0])
        verdict = "met" if hybrid >= best - 1e-9 else "MISSED"
        verdicts.append(f"hybrid nDCG@10 {hybrid:.3f} >= best other {best:.3f} ({klass}): {verdict}")
    r1 = by_name["hybrid"]["identifier"][1]
    verdicts.append(f"identifier recall@1 in hybrid {r1:.3f} >= 0.95: {'met' if r1 >= 0.95 else 'MISSED'}")
    return verdicts


def summary(rows: list[tuple[str, dict]], chunks: int, queries: int) -> list[tuple[str, str]]:
    """[name, figure] pairs for bench/run."""
    by_name = dict(rows)
    figures = []
    for mode in SEARCH_MODES:
        parts = ", ".join(f"{klass[:5]} {by_name[mode][klass][0]:.3f}" for klass in CLASSES)
        figures.append(
            (
                f"retrieval nDCG@10 {mode}",
                f"{by_name[mode]['all'][0]:.3f} ({parts}; {queries} queries, {chunks:,} chunks)",
            )
        )
    identifier = by_name["hybrid"]["identifier"][1]
    figures.append(("retrieval identifier R@1 hybrid", f"{identifier:.3f} (floor >= 0.95)"))
    return figures


def measure(cache: bool) -> tuple[list[tuple[str, dict]], int, int]:
    documents, queries = load("corpus.jsonl"), load("queries.jsonl")
    pieces = chunked(documents)
    vectors = embedded([text for texts in pieces for text in texts], cache)
    tenant = factories.make_tenant("retrieval")
    owner = store(tenant, documents, pieces, vectors)
    query_vectors = embedder().embed([query["query"] for query in queries])
    found = rankings(tenant, queries, query_vectors, owner)
    return report(queries, found), len(owner), len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="end with one JSON line for bench/run")
    parser.add_argument("--no-cache", action="store_true", help="embed the chunks again")
    args = parser.parse_args()
    started = time.perf_counter()
    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False, serialized_aliases=[])
    try:
        rows, chunks, queries = measure(cache=not args.no_cache)
    finally:
        connection.close()
        teardown_databases(databases, verbosity=0)
    print(
        f"{queries} queries over {chunks:,} chunks ({connection.vendor}, {embedder().model}), "
        f"in {time.perf_counter() - started:.0f} s\n"
    )
    print("\n".join(table(rows)))
    print()
    print("\n".join(floors(rows)))
    if args.json:
        print(json.dumps(summary(rows, chunks, queries)))


if __name__ == "__main__":
    main()
