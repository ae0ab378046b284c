"""Who may read an IT-service knowledge article (DESIGN section 19), from its user criteria.

- The article's "can read" user criteria (`can_read_user_criteria`) decide; an article without
  them takes its knowledge base's (`kb_uc_can_read_mtom`); with neither, every user reads it
  (`everyone`), as on the platform.
- A criterion admits the users it names (`user:<email>`, by their e-mail address) and the members
  of the groups it names (`group:itsmplatform:<sys_id>`). What this service cannot know of a person
  (roles, departments, companies, locations, scripts) admits nobody more: a criterion with a script
  (`advanced`), or one that must match all of several conditions (`match_all`), admits nobody. The
  readers can be fewer than the platform's, never more.
- "Cannot read" criteria (the article's `cannot_read_user_criteria`, its knowledge base's
  `kb_uc_cannot_read_mtom`) cannot be taken away from a group: such an article is read only by
  knowledge:all callers, and its item fails `ACCESS_DENIED` saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from core.readers import EVERYONE, group_principal, user_principal
from integrations.errors import VendorError
from integrations.itsm import ItsmClient, KnowledgeArticle, field_text

PLATFORM = "itsmplatform"
CAN_READ, CANNOT_READ = "can_read_user_criteria", "cannot_read_user_criteria"
ARTICLE_FIELDS = [CAN_READ, CANNOT_READ]
CONDITIONS = ["user", "group", "role", "department", "company", "location"]
CRITERIA_FIELDS = ["sys_id", *CONDITIONS, "match_all", "advanced"]
UNREPRESENTED = "Cannot-read user criteria apply to it, which this service cannot represent."


@dataclass
class Criteria:
    """What the platform said of the criteria that the articles of one run name."""

    readers: dict[str, frozenset[str]] = field(default_factory=dict)  # criterion -> principals
    base_can: dict[str, list[str]] = field(default_factory=dict)
    base_cannot: dict[str, list[str]] = field(default_factory=dict)
    error: str = ""  # why they could not be read ("" when they were)

    def article_readers(self, article: KnowledgeArticle) -> tuple[tuple[str, ...] | None, str]:
        """(the article's readers, "") or (None, why they are unknown)."""
        if self.error:
            return None, self.error
        if _ids(article.fields.get(CANNOT_READ)) or self.base_cannot.get(article.knowledge_base):
            return None, UNREPRESENTED
        criteria = _ids(article.fields.get(CAN_READ)) or self.base_can.get(article.knowledge_base) or []
        if not criteria:
            return (EVERYONE,), ""
        return tuple(sorted(set().union(*(self.readers.get(c, frozenset()) for c in criteria)))), ""


def criteria_read(client: ItsmClient, articles: Sequence[KnowledgeArticle]) -> Criteria:
    """The criteria of `articles` and of their knowledge bases, in a few requests."""
    bases = sorted({a.knowledge_base for a in articles if a.knowledge_base})
    try:
        found = Criteria(
            base_can=client.knowledge_base_criteria("kb_uc_can_read_mtom", bases),
            base_cannot=client.knowledge_base_criteria("kb_uc_cannot_read_mtom", bases),
        )
        named = {c for a in articles for c in _ids(a.fields.get(CAN_READ))}
        named |= {c for criteria in found.base_can.values() for c in criteria}
        rows = client.records_by_id("user_criteria", sorted(named), fields=CRITERIA_FIELDS)
        users = {u for row in rows if _plain(row) for u in _ids(row.get("user"))}
        emails = {
            field_text(user.get("sys_id")): field_text(user.get("email"))
            for user in client.records_by_id("sys_user", sorted(users), fields=["sys_id", "email"])
        }
    except VendorError as exc:
        return Criteria(error=f"The user criteria could not be read: {exc.message}")
    found.readers = {field_text(row.get("sys_id")): _admitted(row, emails) for row in rows}
    return found


def _admitted(row: dict, emails: dict[str, str]) -> frozenset[str]:
    if not _plain(row):
        return frozenset()
    users = {user_principal(emails.get(user, "")) for user in _ids(row.get("user"))}
    groups = {group_principal(PLATFORM, group) for group in _ids(row.get("group"))}
    return frozenset(p for p in users | groups if p)


def _plain(row: dict) -> bool:
    """A criterion whose admissions this service can tell: no script, and not several conditions
    that must all match."""
    if _true(row.get("advanced")):
        return False
    conditions = sum(len(_ids(row.get(name))) for name in CONDITIONS)
    return not (_true(row.get("match_all")) and conditions > 1)


def _ids(value) -> list[str]:
    return [part.strip() for part in field_text(value).split(",") if part.strip()]


def _true(value) -> bool:
    return field_text(value).strip().lower() == "true"
