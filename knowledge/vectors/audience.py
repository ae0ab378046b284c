"""Who may see a chunk (DESIGN section 15): a chunk whose document's audience is ["all"] is visible
to every query; a query that names groups sees those groups' chunks and the unrestricted ones.

A chunk keeps its document's audience as `|group|group|` (names stripped and case-folded, `%` and
`|` percent-encoded), so that "visible to these groups" is a substring filter that both databases
evaluate alike. Group names therefore match without regard to case.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from knowledge.models import EVERYONE


def _tag(name: str) -> str:
    return name.strip().casefold().replace("%", "%25").replace("|", "%7C")


def audience_tags(groups: Sequence[str]) -> str:
    """A document's audience in the form its chunks store. Raises ValueError for an empty or
    malformed audience: a document is either for everyone (["all"]) or for named groups."""
    if isinstance(groups, str) or not groups or not all(isinstance(g, str) and g.strip() for g in groups):
        raise ValueError('An audience is a list of group names, or ["all"] for everyone.')
    return "|" + "|".join(sorted({_tag(g) for g in groups})) + "|"


def audience_visible(groups: Sequence[str]) -> Q:
    """The chunks that a query naming `groups` may see: those groups' and everyone's."""
    names = {_tag(g) for g in groups if isinstance(g, str) and g.strip()} | {EVERYONE}
    visible = Q()
    for name in sorted(names):
        visible |= Q(audience__contains=f"|{name}|")
    return visible
