"""Reads: the tenant's source rules, loaded once per listing into plain data so that the listing's
worker threads can evaluate them without touching the ORM."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from adminops.models import Tenant
from knowledge.models import Document, SourceRule

ALL_AUDIENCES = "all"


def site_url_key(url: str) -> str:
    """A site URL compared case-insensitively, without a trailing slash, query or fragment."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{(parts.netloc or '').lower()}{parts.path.rstrip('/').lower()}"


def _covers(rule_url: str, site_url: str) -> bool:
    """A site rule covers the site itself and everything beneath it (its sub-sites)."""
    return site_url == rule_url or site_url.startswith(rule_url + "/")


@dataclass(frozen=True)
class SourceRules:
    block_sites: tuple[str, ...] = ()
    block_drives: frozenset[str] = frozenset()
    allow_sites: tuple[str, ...] = ()
    allow_drives: frozenset[str] = frozenset()

    @property
    def restricts(self) -> bool:
        return bool(self.allow_sites or self.allow_drives)

    def site_blocked(self, url: str) -> bool:
        key = site_url_key(url)
        return any(_covers(rule, key) for rule in self.block_sites)

    def site_allowed(self, url: str) -> bool:
        """Allowed as a whole: no allow list in force, or the site is under an allowed site URL."""
        key = site_url_key(url)
        return not self.restricts or any(_covers(rule, key) for rule in self.allow_sites)

    def drive_visible(self, site_url: str, drive_id: str) -> bool:
        if drive_id in self.block_drives:
            return False
        return self.site_allowed(site_url) or drive_id in self.allow_drives


def source_rules_get(
    *, tenant: Tenant, audience: list[str], blacklisted: bool, source_restriction: bool
) -> SourceRules:
    """The rules a listing applies: the block list when `blacklisted`, the allow list when
    `source_restriction`. A rule with audiences applies only to a request naming one of them;
    a request for `all` audiences (or none) is held to every rule."""
    kinds = [
        k
        for k, on in ((SourceRule.Kind.BLOCK, blacklisted), (SourceRule.Kind.ALLOW, source_restriction))
        if on
    ]
    if not kinds:
        return SourceRules()
    wanted = {a.strip().lower() for a in audience if a.strip()}
    everyone = not wanted or ALL_AUDIENCES in wanted
    picked: dict[tuple[str, str], set[str]] = {}
    rows = (
        SourceRule.objects.for_tenant(tenant)
        .filter(kind__in=kinds)
        .values_list("kind", "target", "value", "audiences")
    )
    for kind, target, value, audiences in rows:
        rule_audiences = {str(a).strip().lower() for a in audiences or []}
        if everyone or not rule_audiences or rule_audiences & wanted:
            key = site_url_key(value) if target == SourceRule.Target.SITE else value.strip()
            picked.setdefault((kind, target), set()).add(key)
    return SourceRules(
        block_sites=tuple(sorted(picked.get(("block", "site"), ()))),
        block_drives=frozenset(picked.get(("block", "drive"), ())),
        allow_sites=tuple(sorted(picked.get(("allow", "site"), ()))),
        allow_drives=frozenset(picked.get(("allow", "drive"), ())),
    )


def document_find(*, tenant: Tenant, platform_type: str, source_id: str) -> Document | None:
    """The tenant's document of one platform item, if it is in the knowledge base (its
    `content_hash` tells a run whether the item's text changed)."""
    return (
        Document.objects.for_tenant(tenant).filter(platform_type=platform_type, source_id=source_id).first()
    )
