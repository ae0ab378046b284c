"""Who may see a chunk (DESIGN sections 15 and 19).

Readers: the source principals (`core.readers`) that may read the chunk's document at its source.
A caller reads the chunks whose readers hold one of its source identities
(`identity.sources.source_identities`); a caller with `knowledge:all` reads every chunk; a chunk
without readers (its permissions could not be read) only such a caller.

Audience: what a request's `audience` narrows to. A chunk whose document's audience is ["all"]
stays in every narrowed request; a request that names groups keeps those groups' chunks and the
unrestricted ones. It never widens what the readers allow.

A chunk keeps both as `|name|name|` (stripped and case-folded, `%` and `|` percent-encoded), so
that "visible to these names" is a substring filter that both databases evaluate alike.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.lookups import Overlap
from django.db import connections
from django.db.models import F, Func, Q, TextField, Value

from core.readers import principals
from knowledge.models import EVERYONE

TEXT_ARRAY = ArrayField(TextField())
NO_READERS = ""  # the readers of a chunk whose permissions could not be read


def _tag(name: str) -> str:
    return name.strip().casefold().replace("%", "%25").replace("|", "%7C")


def _group_names_valid(groups: Sequence[str]) -> bool:
    return not isinstance(groups, str) and all(isinstance(g, str) and g.strip() for g in groups)


def _tags(groups: Sequence[str]) -> str:
    return "|" + "|".join(sorted({_tag(g) for g in groups})) + "|"


def _named(groups: Sequence[str]) -> set[str]:
    return {_tag(g) for g in groups if isinstance(g, str) and g.strip()}


def audience_tags(groups: Sequence[str]) -> str:
    """A document's audience in the form its chunks store. Raises ValueError for an empty or
    malformed audience: a document is either for everyone (["all"]) or for named groups."""
    if not groups or not _group_names_valid(groups):
        raise ValueError('An audience is a list of group names, or ["all"] for everyone.')
    return _tags(groups)


def audience_visible(groups: Sequence[str]) -> Q:
    """The chunks that a query naming `groups` may see: those groups' and everyone's."""
    visible = Q()
    for name in sorted(_named(groups) | {EVERYONE}):
        visible |= Q(audience__contains=f"|{name}|")
    return visible


def readers_tags(readers: Sequence[str]) -> str:
    """A document's readers (source principals, `core.readers`) in the form its chunks store; ""
    for none (its permissions could not be read: only an all-knowledge caller reads it). Raises
    ValueError for a malformed list."""
    found = principals(readers)
    return _tags(found) if found else NO_READERS


def readers_visible(identities: Collection[str] | None, *, using: str = "default") -> Q:
    """The chunks a caller with these source identities may read: those with one of them among
    their readers. `ALL_KNOWLEDGE` (None): every chunk; no identities: none. The vendor step:
    PostgreSQL splits the readers at `|` and tests the names against the identities in one array
    overlap (`&&`) per row, where a substring test per identity (20 groups: 22 tests) costs each
    row a scan reads that many times (docs/performance.md, "Trimmed search"); SQLite tests the
    substrings."""
    if identities is None:
        return Q()
    names = sorted(_named(identities))
    if not names:
        return Q(pk__in=[])
    if connections[using].vendor == "postgresql":
        # An expression over the column, not SQL naming its table: inside a subquery (the
        # documents a caller may read) Django gives the table another alias.
        split = Func(F("readers"), Value("|"), function="string_to_array", output_field=TEXT_ARRAY)
        return Q(Overlap(split, Value(names, output_field=TEXT_ARRAY)))
    visible = Q(pk__in=[])
    for name in names:
        visible |= Q(readers__contains=f"|{name}|")
    return visible
