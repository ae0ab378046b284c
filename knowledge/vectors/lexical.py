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

The keyword leg ranks chunks by the sum of the weights of the query's terms they hold (BM25's
inverse document frequency, without term frequency): rare words weigh more, and an
identifier-like term (letters with digits, a number of 3 digits or more, `snake_case`, a dotted
name, `camelCase`) weighs `IDENTIFIER_WEIGHT` times as much. Its work is bounded whatever the size
of the knowledge base, the way common-terms queries bound it: a term held by at most
`TERM_CHUNKS_MAX` of the chunks the caller may read is rare, and the chunks that hold it are the
candidates; a common term only adds its weight to candidates that rare terms found (or, when
there is no rare term, the candidates are the chunks that hold every common term). The weights
count at most `READABLE_COUNT_MAX` chunks, so a common term weighs ln(1 + 899.5 / 101.5), about
2.3, in any knowledge base of 1,000 chunks or more, and a term held by one chunk about 6.5.
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
# A term held by more of the readable chunks than this is common; the chunks counted for the idf.
TERM_CHUNKS_MAX = 100
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
    rare, common = _probed(candidates, terms)
    if not rare and not common:
        return []
    counted = candidates[:READABLE_COUNT_MAX].count()
    weight = {term: _idf(len(ids), counted) for term, ids in rare.items()}
    weight |= {term: _idf(TERM_CHUNKS_MAX + 1, counted) for term in common}
    holders = rare | _common_holders(candidates, common, found=set().union(*rare.values()))
    score: dict[int, float] = defaultdict(float)
    identifier: dict[int, float] = defaultdict(float)
    for term, ids in holders.items():
        term_weight = weight[term] * (IDENTIFIER_WEIGHT if term.identifier else 1.0)
        for chunk_id in ids:
            score[chunk_id] += term_weight
            if term.identifier:
                identifier[chunk_id] += term_weight
    best = sorted(score, key=lambda chunk_id: (-score[chunk_id], chunk_id))[:limit]
    return [KeywordMatch(chunk_id, score[chunk_id], identifier[chunk_id]) for chunk_id in best]


def _probed(
    candidates: QuerySet[Chunk], terms: list[QueryTerm]
) -> tuple[dict[QueryTerm, set[int]], list[QueryTerm]]:
    """(the rare terms with the ids of the candidates that hold them, the common terms), one
    query a term; the terms that no candidate holds are left out."""
    rare, common = {}, []
    for term in terms:
        holding_it = candidates.filter(holding(term.term, using=candidates.db))
        ids = set(holding_it.values_list("id", flat=True)[: TERM_CHUNKS_MAX + 1])
        if len(ids) > TERM_CHUNKS_MAX:
            common.append(term)
        elif ids:
            rare[term] = ids
    return rare, common


def _common_holders(
    candidates: QuerySet[Chunk], common: list[QueryTerm], *, found: set[int]
) -> dict[QueryTerm, set[int]]:
    """Which of the chunks `found` by the rare terms hold each common term; when the rare terms
    found none, the chunks that hold every common term (at most TERM_CHUNKS_MAX)."""
    if not common:
        return {}
    if not found:
        holding_all = candidates
        for term in common:
            holding_all = holding_all.filter(holding(term.term, using=candidates.db))
        ids = set(holding_all.values_list("id", flat=True)[:TERM_CHUNKS_MAX])
        return {term: ids for term in common}
    among = candidates.filter(id__in=sorted(found))
    return {
        term: set(among.filter(holding(term.term, using=candidates.db)).values_list("id", flat=True))
        for term in common
    }


def _idf(holders: int, readable: int) -> float:
    # BM25's: positive however common the term.
    return math.log(1.0 + (readable - holders + 0.5) / (holders + 0.5))
