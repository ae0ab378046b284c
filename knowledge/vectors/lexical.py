"""The lexical index beside the vectors, and the keyword leg of search (DESIGN section 20).

Terms. One tokenizer serves both databases, so that they index and match alike: a term is a run
of letters, digits and underscores, or several such runs joined by `-` or `.` (`ERR-4031`,
`admin.E108`, `0x80070005`, `INC0012345`, `select_for_update`), in Unicode NFKC form and folded
case. A chunk's terms are those of its document's title and of its text, each compound also by
its parts (`admin.e108` gives `admin` and `e108` too), kept once each in `Chunk.terms`, which the
chunk writer fills (`chunk_terms`). A query's terms are its whole tokens: `ERR-4031` matches the
chunks holding `ERR-4031`, never one that holds `ERR` and `4031` apart.

The index. PostgreSQL: the generated column `knowledge_chunk.lexical`, a `tsvector` of exactly
these terms (`array_to_tsvector`, no parser, no stemming), with a GIN index. SQLite: the FTS5
table `knowledge_chunk_fts` over `terms`, whose tokenizer keeps `-`, `.` and `_` inside tokens,
kept in step with the chunks by triggers. Either way a chunk's index entry is written and removed
by the statement that writes or removes the chunk, in its transaction (migration 0004). Whether a
chunk holds a term is the one vendor-dependent step, `holding`.

The keyword leg ranks the chunks that hold a query's terms by the sum of the terms' inverse
document frequencies over the chunks the caller may read (BM25's idf without term frequency):
rare words weigh more, and an identifier-like term (letters with digits, a number of 3 digits or
more, `snake_case`, a dotted name, `camelCase`) weighs `IDENTIFIER_WEIGHT` times its idf. A term
held by more than `TERM_CHUNKS_MAX` chunks counts that many (its idf is then a bound, and only
that many of its holders get its weight): so common a term says little about a chunk anyway.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass

from django.db import connections
from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL

from knowledge.models import Chunk

TOKEN = re.compile(r"\w+(?:[-.]\w+)*")
PARTS = re.compile(r"[-._]")
TERM_LENGTH_MAX = 64  # longer runs (hashes, encoded blobs) are not searched for
QUERY_TERMS_MAX = 16
# Chunks read per query term, and chunks counted for the idf: bounds on the keyword leg's work.
TERM_CHUNKS_MAX = 1000
READABLE_COUNT_MAX = 10 * TERM_CHUNKS_MAX
IDENTIFIER_WEIGHT = 3.0


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _tokens(text: str) -> list[str]:
    return [t for t in TOKEN.findall(_normal(text)) if len(t) <= TERM_LENGTH_MAX]


def chunk_terms(*, title: str, text: str) -> str:
    """What the lexical index holds of a chunk: the distinct terms of its document's title and
    of its text, each compound also by its parts, in folded case, separated by spaces."""
    terms: dict[str, None] = {}
    for token in _tokens(f"{title}\n{text}"):
        term = token.casefold()
        terms[term] = None
        if PARTS.search(term):
            terms.update((part, None) for part in PARTS.split(term) if part)
    return " ".join(terms)


@dataclass(frozen=True)
class QueryTerm:
    term: str
    identifier: bool


def identifier_like(token: str) -> bool:
    """A code rather than a word: letters with digits (`INC0012345`, `admin.E108`, `0x80070005`),
    a number of 3 digits or more (a ticket), `snake_case`, a dotted name, or `camelCase`."""
    has_digit = any(c.isdigit() for c in token)
    if has_digit and any(c.isalpha() for c in token):
        return True
    if token.isdigit():
        return len(token) >= 3
    return "_" in token.strip("_") or bool(re.search(r"\w\.\w|[a-z][A-Z]", token))


def query_terms(query: str) -> list[QueryTerm]:
    """The distinct whole tokens of a query (at most QUERY_TERMS_MAX), in folded case."""
    terms: dict[str, QueryTerm] = {}
    for token in _tokens(query):
        term = token.casefold()
        if term not in terms:
            terms[term] = QueryTerm(term, identifier_like(token))
    return list(terms.values())[:QUERY_TERMS_MAX]


def holding(term: str, *, using: str) -> Q:
    """The chunks whose lexical index holds `term` (a term of `query_terms`): the vendor step."""
    if connections[using].vendor == "postgresql":
        # A tsquery of one quoted lexeme, compared as is with the column's lexemes.
        lexeme = "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
        return Q(RawSQL('"knowledge_chunk"."lexical" @@ %s::tsquery', [lexeme], output_field=BooleanField()))
    phrase = '"' + term.replace('"', '""') + '"'
    return Q(
        id__in=RawSQL("SELECT rowid FROM knowledge_chunk_fts WHERE knowledge_chunk_fts MATCH %s", [phrase])
    )


@dataclass(frozen=True)
class KeywordMatch:
    chunk_id: int
    score: float  # the matched terms' weights, summed
    identifier: float  # the part of `score` that identifier-like terms gave


def keyword_ranked(candidates: QuerySet[Chunk], terms: list[QueryTerm], limit: int) -> list[KeywordMatch]:
    """The `limit` candidates that hold the most weight of `terms`, best first."""
    holders = _holders(candidates, terms)
    if not holders:
        return []
    readable = max(candidates[:READABLE_COUNT_MAX].count(), *(len(ids) for ids in holders.values()))
    score: dict[int, float] = defaultdict(float)
    identifier: dict[int, float] = defaultdict(float)
    for term, ids in holders.items():
        weight = _idf(len(ids), readable) * (IDENTIFIER_WEIGHT if term.identifier else 1.0)
        for chunk_id in ids:
            score[chunk_id] += weight
            if term.identifier:
                identifier[chunk_id] += weight
    best = sorted(score, key=lambda chunk_id: (-score[chunk_id], chunk_id))[:limit]
    return [KeywordMatch(chunk_id, score[chunk_id], identifier[chunk_id]) for chunk_id in best]


def _holders(candidates: QuerySet[Chunk], terms: list[QueryTerm]) -> dict[QueryTerm, list[int]]:
    """The ids of the candidates that hold each term, at most TERM_CHUNKS_MAX a term (one query
    each); the terms that none holds are left out."""
    found = {}
    for term in terms:
        holding_it = candidates.filter(holding(term.term, using=candidates.db))
        ids = list(holding_it.values_list("id", flat=True)[:TERM_CHUNKS_MAX])
        if ids:
            found[term] = ids
    return found


def _idf(holders: int, readable: int) -> float:
    # BM25's: positive however common the term.
    return math.log(1.0 + (readable - holders + 0.5) / (holders + 0.5))
