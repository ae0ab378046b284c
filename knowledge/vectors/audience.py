"""Who may see a chunk (DESIGN section 15).

Audience: a chunk whose document's audience is ["all"] is visible to every query; a query that
names groups sees those groups' chunks and the unrestricted ones.

Readers: the platform's own read permissions of the item (an ITSM article's user criteria, say).
A chunk without readers has no upstream restriction; one with readers is visible to a query that
names groups only when one of them is among its readers. A query that names no groups
(`audience=None`: a caller trusted with all of the tenant's knowledge) is held to neither.

A chunk keeps both as `|group|group|` (names stripped and case-folded, `%` and `|` percent-encoded),
so that "visible to these groups" is a substring filter that both databases evaluate alike. Group
names therefore match without regard to case.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from knowledge.models import EVERYONE

NO_READERS = ""  # the readers of a chunk without upstream restriction


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


def readers_tags(groups: Sequence[str]) -> str:
    """A document's readers in the form its chunks store; "" for none (no upstream restriction).
    Raises ValueError for a malformed list (a string, or a name that is not a non-blank string)."""
    if not _group_names_valid(groups):
        raise ValueError("Readers are a list of group names; [] for no upstream restriction.")
    return _tags(groups) if groups else NO_READERS


def readers_visible(groups: Sequence[str]) -> Q:
    """The chunks whose readers admit a query naming `groups`: those without readers, and those
    with one of the groups among their readers."""
    visible = Q(readers=NO_READERS)
    for name in sorted(_named(groups)):
        visible |= Q(readers__contains=f"|{name}|")
    return visible


def chunks_visible(groups: Sequence[str]) -> Q:
    """The chunks a query naming `groups` may see: their audience and their readers admit it."""
    return audience_visible(groups) & readers_visible(groups)
