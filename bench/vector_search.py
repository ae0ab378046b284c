"""Search latency and recall@10 over 100,000 synthetic chunks on PostgreSQL with pgvector, and
the latency of hybrid search over the same chunks with their lexical index.

One tenant's chunks, 10 to a document, whose vectors are clustered unit vectors of 384 dimensions
made to have the structure of sentence embeddings (`Corpus`): random vectors spread evenly over the
sphere are the known worst case of an approximate index and tell nothing of real text. Each chunk
has text too (`Words`): about 120 words drawn from a Zipf law over 30,000 made-up words (so that a
few are in nearly every chunk and most in very few, as in prose), a fifth of them from its
subject's own words, and one document in three names a ticket (`INC` and 7 digits). They are
written through the ORM's `bulk_create` in batches with their terms (`lexical.chunk_terms`, what
the chunk writer stores), the migration's HNSW index is then built over them by
`vector_index_create` (the function behind `manage.py create_vector_index`), and the tables are
analysed, as autovacuum would have done. Then `--queries` new vectors of the same kind are searched
one at a time with `knowledge.vectors.chunks_search` (what POST /v2/knowledge/search calls);
printed: p50 and p99 of its time (floor: p50 <= 25 ms) and its recall@10 against the exact top 10
computed with numpy over the same vectors (floor: >= 0.95), at `VECTOR_HNSW_EF_SEARCH` or at each
`--ef-search` given. Then the same vectors in hybrid mode, each with a query text of its subject
(two of its words, a common word, and in one query in three a ticket of the tenant): p50 and p99
(floor: p50 <= 25 ms), and the keyword leg's alone.

    .venv/bin/python -m bench.vector_search [--chunks 100000] [--queries 300] [--ef-search N ...] [--json]

Needs PostgreSQL with pgvector (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/bench;
a throwaway test database is created and dropped). `--json` prints one last line of [name, figure]
pairs for bench/run.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdef0123456789abcdef")
os.environ.setdefault("VAULT_MASTER_KEYS", "bench1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench")

import django

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import (  # noqa: E402
    override_settings,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)

from core.readers import EVERYONE, principals  # noqa: E402
from knowledge.embeddings import LOCAL_MODEL_NAME  # noqa: E402
from knowledge.models import Chunk, Document  # noqa: E402
from knowledge.vectors.audience import readers_tags  # noqa: E402
from knowledge.vectors.lexical import chunk_terms  # noqa: E402
from knowledge.vectors.ranking import hnsw_index, vector_index_create  # noqa: E402
from knowledge.vectors.store import CHUNKS_PER_INSERT, chunks_search  # noqa: E402
from tests import factories  # noqa: E402

DIMENSION = 384
CHUNKS_PER_DOCUMENT = 10
TOPICS = 1000  # subjects; documents of one subject are near each other
LATENT = 16  # the directions along which the texts of one subject differ
BUILD_MEMORY = "1GB"  # maintenance_work_mem of the index build: the graph of 100,000 vectors fits
VOCABULARY = 30_000  # made-up words, ranked by frequency
WORDS_PER_CHUNK, SUBJECT_SHARE, SUBJECT_WORDS = 120, 0.2, 40
ZIPF = 1.1
GROUPS, USERS = 200, 2000  # the document site's groups and people who are given items of their own
CALLER_GROUPS = 20  # the groups of the trimmed search's caller


class Corpus:
    """Clustered unit vectors with the structure of sentence embeddings: a direction that every
    text shares a little of (embeddings fill a cone, not the sphere), a subject per document, and
    the document's and its chunks' own place within a small subspace of that subject, plus a
    little noise in every direction. A query is a text on a random subject that no stored
    document is about exactly: its top 10 spread over several documents of the subject. With the
    constants here, a query's best chunk has a cosine of about 0.7, its 10th of about 0.58, and
    two unrelated chunks are at about 0.1."""

    AXIS, SUBJECT, DOCUMENT_SPREAD, CHUNK_SPREAD, NOISE = 0.5, 0.8, 0.25, 0.15, 0.01

    def __init__(self, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        self.axis = self._unit(self.rng.standard_normal(DIMENSION))
        self.subjects = self._unit(self.rng.standard_normal((TOPICS, DIMENSION)))
        self.bases = np.linalg.qr(self.rng.standard_normal((TOPICS, DIMENSION, LATENT)))[0].astype(np.float32)

    def documents(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(subject of each document, its centre)."""
        subjects = self.rng.integers(0, TOPICS, size=count)
        return subjects, self._centre(subjects, self.DOCUMENT_SPREAD)

    def chunks(self, subjects: np.ndarray, centres: np.ndarray) -> np.ndarray:
        """One chunk for each (subject, centre) given."""
        return self._unit(centres + self._within(subjects, self.CHUNK_SPREAD) + self._noise(len(subjects)))

    def queries(self, count: int) -> np.ndarray:
        subjects, centres = self.documents(count)
        return self.chunks(subjects, centres)

    def _centre(self, subjects: np.ndarray, spread: float) -> np.ndarray:
        return self.AXIS * self.axis + self.SUBJECT * self.subjects[subjects] + self._within(subjects, spread)

    def _within(self, subjects: np.ndarray, spread: float) -> np.ndarray:
        weights = self.rng.standard_normal((len(subjects), LATENT))
        return np.einsum("nl,ndl->nd", weights, self.bases[subjects]) * spread

    def _noise(self, count: int) -> np.ndarray:
        return self.rng.standard_normal((count, DIMENSION)) * self.NOISE

    @staticmethod
    def _unit(matrix: np.ndarray) -> np.ndarray:
        return (matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)).astype(np.float32)


class Words:
    """Text for the chunks: words drawn from a Zipf law over VOCABULARY made-up words (a few in
    nearly every chunk, most in very few), SUBJECT_SHARE of them from the chunk's subject's own
    SUBJECT_WORDS words, which lie beyond the commonest thousand."""

    SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pe", "da", "zu", "gri", "bel", "mor")

    def __init__(self, seed: int = 11) -> None:
        self.rng = np.random.default_rng(seed)
        self.words = [self._word(n) for n in range(VOCABULARY)]
        ranks = np.arange(1, VOCABULARY + 1, dtype=np.float64)
        self.weights = ranks**-ZIPF / (ranks**-ZIPF).sum()
        self.subject_words = self.rng.integers(1000, VOCABULARY, size=(TOPICS, SUBJECT_WORDS))

    def _word(self, n: int) -> str:
        word, base = "", len(self.SYLLABLES)
        while True:
            word += self.SYLLABLES[n % base]
            n //= base
            if not n:
                return word

    def text(self, subject: int, ticket: str | None) -> str:
        common = self.rng.choice(
            VOCABULARY, size=round(WORDS_PER_CHUNK * (1 - SUBJECT_SHARE)), p=self.weights
        )
        own = self.rng.choice(self.subject_words[subject], size=round(WORDS_PER_CHUNK * SUBJECT_SHARE))
        words = [self.words[i] for i in np.concatenate([common, own])]
        self.rng.shuffle(words)
        if ticket:
            words.insert(len(words) // 2, ticket)
        return " ".join(words)

    def query(self, subject: int, ticket: str | None) -> str:
        own = self.rng.choice(self.subject_words[subject], size=2, replace=False)
        common = self.rng.choice(100)
        words = [self.words[own[0]], self.words[common], self.words[own[1]]]
        return " ".join([ticket, *words] if ticket else words)


class Readers:
    """Who may read each document at its source, as a document site shares its items: two in five
    with everyone, two in five with one or two of GROUPS groups, one in ten with one group and one
    person, one in ten with one person only."""

    def __init__(self, seed: int = 13) -> None:
        self.rng = np.random.default_rng(seed)

    def of_document(self) -> tuple[str, ...]:
        draw = self.rng.random()
        if draw < 0.4:
            return (EVERYONE,)
        if draw < 0.8:
            return principals(group(int(g)) for g in self.rng.choice(GROUPS, size=self.rng.integers(1, 3)))
        person = user(int(self.rng.integers(USERS)))
        if draw < 0.9:
            return principals([group(int(self.rng.integers(GROUPS))), person])
        return (person,)


def group(n: int) -> str:
    return f"group:sitelib:g{n}"


def user(n: int) -> str:
    return f"user:person{n}@bench.example.com"


def caller_identities() -> list[str]:
    """A person of CALLER_GROUPS groups, as `identity.sources.source_identities` would list them."""
    return [EVERYONE, user(7), *(group(n) for n in range(0, GROUPS, GROUPS // CALLER_GROUPS))]


def ticket(document: int) -> str | None:
    """One document in three names a ticket."""
    return f"INC{document:07d}" if document % 3 == 0 else None


def seed(
    tenant, corpus: Corpus, words: Words, readers: Readers, chunks: int
) -> tuple[np.ndarray, np.ndarray, list[tuple[str, ...]]]:
    """`chunks` chunks in documents of CHUNKS_PER_DOCUMENT, written in batches through the ORM,
    each document with its readers and its chunks with them as the store keeps them
    (`readers_tags`); returns their vectors, row i being the chunk whose text starts with
    `chunk i`, their documents' subjects and each chunk's readers."""
    rows, topics, chunk_readers = [], [], []
    for first in range(0, chunks // CHUNKS_PER_DOCUMENT, 1000):
        count = min(1000, chunks // CHUNKS_PER_DOCUMENT - first)
        documents = Document.objects.bulk_create(
            Document(
                tenant=tenant,
                platform_type="sitelib",
                content_type="sitelib_attachment",
                source_id=f"bench/{first + n}",
                source_url=f"https://bench.example.com/doc-{first + n}",
                source_url_key=f"https://bench.example.com/doc-{first + n}",
                title=f"Document {first + n}",
                content_hash="0" * 64,
                audience=["all"],
                readers=list(readers.of_document()),
                chunk_count=CHUNKS_PER_DOCUMENT,
            )
            for n in range(count)
        )
        subjects, centres = corpus.documents(count)
        matrix = corpus.chunks(
            subjects.repeat(CHUNKS_PER_DOCUMENT), centres.repeat(CHUNKS_PER_DOCUMENT, axis=0)
        )
        offset = first * CHUNKS_PER_DOCUMENT
        texts = [
            f"chunk {offset + i} "
            + words.text(subjects[i // CHUNKS_PER_DOCUMENT], ticket(first + i // CHUNKS_PER_DOCUMENT))
            for i in range(len(matrix))
        ]
        Chunk.objects.bulk_create(
            [
                Chunk(
                    document=documents[i // CHUNKS_PER_DOCUMENT],
                    tenant=tenant,
                    ordinal=i % CHUNKS_PER_DOCUMENT,
                    text=text,
                    model=LOCAL_MODEL_NAME,
                    dimension=DIMENSION,
                    audience="|all|",
                    readers=readers_tags(documents[i // CHUNKS_PER_DOCUMENT].readers),
                    terms=chunk_terms(title=documents[i // CHUNKS_PER_DOCUMENT].title, text=text),
                    embedding=vector,
                )
                for i, (vector, text) in enumerate(zip(matrix, texts, strict=True))
            ],
            batch_size=CHUNKS_PER_INSERT,
        )
        rows.append(matrix)
        topics.append(subjects)
        chunk_readers += [
            tuple(document.readers) for document in documents for _ in range(CHUNKS_PER_DOCUMENT)
        ]
    return np.vstack(rows), np.concatenate(topics), chunk_readers


def index_drop() -> None:
    """Without the migration's HNSW index for the bulk load: building it over the loaded rows is
    many times faster than inserting each row into it."""
    with connection.schema_editor() as editor:
        editor.remove_index(Chunk, hnsw_index(DIMENSION))


def index_build() -> float:
    """The HNSW index, built over the loaded rows as `manage.py create_vector_index` builds it;
    returns its seconds."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('maintenance_work_mem', %s, false)", [BUILD_MEMORY])
    started = time.perf_counter()
    vector_index_create(dimension=DIMENSION)
    seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("RESET maintenance_work_mem")
        cursor.execute("VACUUM ANALYZE knowledge_chunk")
        cursor.execute("VACUUM ANALYZE knowledge_document")
    return seconds


def search(
    tenant, queries: np.ndarray, exact: np.ndarray, identities: list[str] | None = None
) -> tuple[list[float], float]:
    """Each query through `chunks_search` for a caller with these source identities (None: an
    all-knowledge caller): (milliseconds of each, mean recall@10 against `exact`)."""
    times, recalls = [], []
    for query, truth in zip(queries, exact, strict=True):
        started = time.perf_counter()
        hits = chunks_search(
            tenant=tenant, vector=query, model=LOCAL_MODEL_NAME, top_k=10, identities=identities
        )
        times.append((time.perf_counter() - started) * 1000)
        found = {int(hit.chunk.split()[1]) for hit in hits}
        recalls.append(len(found & set(truth.tolist())) / 10)
    return times, float(np.mean(recalls))


def search_texts(
    tenant, queries: np.ndarray, texts: list[str], mode: str, identities: list[str] | None = None
) -> list[float]:
    """Each query through `chunks_search` in `mode`, with its text, for a caller with these source
    identities (None: an all-knowledge caller): milliseconds of each."""
    times = []
    for vector, text in zip(queries, texts, strict=True):
        started = time.perf_counter()
        chunks_search(
            tenant=tenant,
            vector=vector,
            query=text,
            mode=mode,
            model=LOCAL_MODEL_NAME,
            top_k=10,
            identities=identities,
        )
        times.append((time.perf_counter() - started) * 1000)
    return times


def query_texts(words: Words, subjects: np.ndarray, documents: int) -> list[str]:
    """A text of each query's subject; one in three names a ticket of the tenant."""
    rng = np.random.default_rng(3)
    texts = []
    for n, subject in enumerate(subjects):
        named = ticket(3 * int(rng.integers(documents // 3))) if n % 3 == 0 else None
        texts.append(words.query(int(subject), named))
    return texts


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(chunks: int, queries: int, ef_searches: list[int]) -> list[tuple[str, str]]:
    tenant = factories.make_tenant("bench")
    corpus, words = Corpus(), Words()
    index_drop()
    started = time.perf_counter()
    matrix, _, chunk_readers = seed(tenant, corpus, words, Readers(), chunks)
    seeded = time.perf_counter() - started
    built = index_build()
    subjects, centres = corpus.documents(queries)
    asked = corpus.chunks(subjects, centres)
    exact = np.argsort(-(asked @ matrix.T), axis=1)[:, :10]
    texts = query_texts(words, subjects, len(matrix) // CHUNKS_PER_DOCUMENT)
    identities = caller_identities()
    readable = np.array([not set(readers).isdisjoint(identities) for readers in chunk_readers])
    exact_readable = np.flatnonzero(readable)[np.argsort(-(asked @ matrix[readable].T), axis=1)[:, :10]]
    search(tenant, asked[:20], exact[:20])  # warm-up: the index's pages, the connection
    search_texts(tenant, asked[:20], texts[:20], "hybrid")
    figures = []
    for ef_search in ef_searches:
        with override_settings(VECTOR_HNSW_EF_SEARCH=ef_search):
            times, recall = search(tenant, asked, exact)
            hybrid = search_texts(tenant, asked, texts, "hybrid")
            keyword = search_texts(tenant, asked, texts, "keyword")
            trimmed, trimmed_recall = search(tenant, asked, exact_readable, identities)
            trimmed_hybrid = search_texts(tenant, asked, texts, "hybrid", identities)
        figures += [
            (
                f"vector search {len(matrix):,} chunks",
                f"p50 {percentile(times, 0.5):.2f} ms (floor <= 25), p99 {percentile(times, 0.99):.2f} ms, "
                f"recall@10 {recall:.3f} (floor >= 0.95) at ef_search {ef_search}; "
                f"seeded in {seeded:.0f} s, index built in {built:.0f} s",
            ),
            (
                f"hybrid search {len(matrix):,} chunks",
                f"p50 {percentile(hybrid, 0.5):.2f} ms (floor <= 25), p99 {percentile(hybrid, 0.99):.2f} ms; "
                f"keyword alone p50 {percentile(keyword, 0.5):.2f} ms, "
                f"p99 {percentile(keyword, 0.99):.2f} ms",
            ),
            (
                f"trimmed search {len(matrix):,} chunks",
                f"hybrid p50 {percentile(trimmed_hybrid, 0.5):.2f} ms (floor <= 25), "
                f"p99 {percentile(trimmed_hybrid, 0.99):.2f} ms; "
                f"semantic p50 {percentile(trimmed, 0.5):.2f} ms, p99 {percentile(trimmed, 0.99):.2f} ms, "
                f"recall@10 {trimmed_recall:.3f}; a caller of {CALLER_GROUPS} groups "
                f"who reads {readable.mean():.0%} of the chunks",
            ),
        ]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--ef-search",
        type=int,
        action="append",
        help="hnsw.ef_search to measure (repeatable; default: VECTOR_HNSW_EF_SEARCH)",
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line for bench/run")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        raise SystemExit("bench.vector_search needs PostgreSQL with pgvector (DATABASE_URL)")
    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False, serialized_aliases=[])
    try:
        figures = measure(args.chunks, args.queries, args.ef_search or [settings.VECTOR_HNSW_EF_SEARCH])
    finally:
        connection.close()
        teardown_databases(databases, verbosity=0)
    for name, value in figures:
        print(f"{name:<34} {value}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
