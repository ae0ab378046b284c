"""Reads: the tenant's source rules, loaded once per listing or run into plain data so that
worker threads can evaluate them without touching the ORM, and listed for the API; the /v2 tenant
check of `vectordb_config`; which documents a caller may read, and search and reading of them."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from functools import cached_property
from urllib.parse import urlsplit

from django.db.models import Q, QuerySet

from core.api.errors import Forbidden, ResourceNotFound
from core.api.ids import prefixed_uuid
from core.models import Tenant
from knowledge.embeddings import embedder
from knowledge.models import SOURCE_RULE_PREFIX, Chunk, Document, SourceRule
from knowledge.vectors.prefixes import url_key, url_prefix
from knowledge.vectors.store import HYBRID, KEYWORD, chunks_readable, chunks_search

ALL_AUDIENCES = "all"
# Neighbouring passages share a few words (INGEST_CHUNK_OVERLAP tokens); a shorter common end and
# start is taken for chance.
MIN_OVERLAP = 12


def site_url_key(url: str) -> str:
    """A site URL compared case-insensitively, without a trailing slash, query or fragment."""
    parts = urlsplit(url.strip())
    return f"{parts.scheme.lower()}://{(parts.netloc or '').lower()}{parts.path.rstrip('/').lower()}"


def _covers(rule_url: str, site_url: str) -> bool:
    """A site rule covers the site itself and everything beneath it (its sub-sites)."""
    return site_url == rule_url or site_url.startswith(rule_url + "/")


def _prefix(value: str) -> tuple[str, tuple[str, ...]] | None:
    try:
        return url_prefix(value)
    except ValueError:
        return None  # not an address: it covers nothing


@dataclass(frozen=True)
class SourceRules:
    block_sites: tuple[str, ...] = ()
    block_drives: frozenset[str] = frozenset()
    allow_sites: tuple[str, ...] = ()
    allow_drives: frozenset[str] = frozenset()
    block_urls: tuple[str, ...] = ()  # blocked URL prefixes of any platform, in `url_key` form

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

    def url_blocked(self, url: str) -> bool:
        """An item's address that a blocked URL prefix or a blocked site covers (case-insensitive;
        `https://x/a` covers `https://x/a`, `.../a/...`, `.../a?...` and `.../a#...`): ingestion
        skips it."""
        key = url_key(url.strip())
        return any(key == prefix or key.startswith(beneath) for prefix, beneath in self._blocked_prefixes)

    @cached_property
    def _blocked_prefixes(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        found = (_prefix(value) for value in (*self.block_urls, *self.block_sites))
        return tuple(prefix for prefix in found if prefix is not None)


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
            picked.setdefault((kind, target), set()).add(_rule_key(target, value))
    return SourceRules(
        block_sites=tuple(sorted(picked.get(("block", "site"), ()))),
        block_drives=frozenset(picked.get(("block", "drive"), ())),
        allow_sites=tuple(sorted(picked.get(("allow", "site"), ()))),
        allow_drives=frozenset(picked.get(("allow", "drive"), ())),
        block_urls=tuple(sorted(picked.get(("block", "url"), ()))),
    )


def _rule_key(target: str, value: str) -> str:
    if target == SourceRule.Target.SITE:
        return site_url_key(value)
    if target == SourceRule.Target.URL:
        prefix = _prefix(value)
        return prefix[0] if prefix is not None else value.strip()
    return value.strip()


def source_rule_list(*, tenant: Tenant, kind: str | None = None, target: str | None = None) -> QuerySet:
    """The tenant's source rules, by kind, target and value; narrowed to `kind` and `target`."""
    rules = SourceRule.objects.for_tenant(tenant)
    if kind is not None:
        rules = rules.filter(kind=kind)
    if target is not None:
        rules = rules.filter(target=target)
    return rules.order_by("kind", "target", "value")


def source_rule_get(*, tenant: Tenant, rule_id: str) -> SourceRule:
    """The tenant's rule `srule-<uuid>` (or the bare uuid). 404 for another tenant's rule, an
    unknown one, or an id that is not of that form: no existence oracle."""
    found = prefixed_uuid(rule_id.strip(), SOURCE_RULE_PREFIX)
    rule = SourceRule.objects.for_tenant(tenant).filter(id=found).first() if found else None
    if rule is None:
        raise ResourceNotFound("No such source rule in this tenant.")
    return rule


def document_find(*, tenant: Tenant, platform_type: str, source_id: str) -> Document | None:
    """The tenant's document of one platform item, if it is in the knowledge base (its
    `content_hash` tells a run whether the item's text changed)."""
    return (
        Document.objects.for_tenant(tenant).filter(platform_type=platform_type, source_id=source_id).first()
    )


def documents_of_configuration(*, tenant: Tenant, sync_configuration_id: str) -> list[Document]:
    """The tenant's documents that a sync configuration last wrote (their id, source, metadata and
    readers: a full run compares them with what it found at the source, a permissions pass their
    readers)."""
    rows = Document.objects.for_tenant(tenant).filter(sync_configuration_id=sync_configuration_id)
    return list(rows.only("id", "platform_type", "source_id", "source_url", "title", "metadata", "readers"))


def vectordb_tenant_check(*, tenant: Tenant, tenant_id: str) -> None:
    """A /v2 body's `vectordb_config.tenant_id` must name the request's own tenant (DESIGN 12):
    a caller never names another tenant's data. 403 otherwise."""
    try:
        named = uuid.UUID(tenant_id.strip())
    except (ValueError, AttributeError):
        named = None
    if named != tenant.id:
        raise Forbidden("vectordb_config.tenant_id must be the tenant named in x-tenantid.")


def documents_readable(*, tenant: Tenant, identities: Collection[str] | None) -> QuerySet[Document]:
    """The tenant's documents a caller with these source identities may read
    (`identity.sources.source_identities`; None: every document): what MCP resources and the
    console's document pages list, trimmed by the same filter as search (DESIGN section 19)."""
    documents = Document.objects.for_tenant(tenant)
    if identities is None:
        return documents
    readable = chunks_readable(tenant=tenant, identities=identities)
    return documents.filter(id__in=readable.values("document_id"))


def documents_search(
    *,
    tenant: Tenant,
    query: str,
    top_k: int = 5,
    identities: Collection[str] | None,
    platform_types: Sequence[str] | None = None,
    audience: Sequence[str] | None = None,
    mode: str = HYBRID,
) -> dict:
    """The tenant's `top_k` chunks that best answer `query`, best first, among the chunks of the
    embedding model in use: `{results: [...], model, mode}`. `mode`: hybrid (meaning and words),
    semantic (meaning), keyword (words; the query is not embedded). Only chunks the caller's
    source `identities` may read are ranked (None: every chunk). `platform_types` narrows the
    platforms; `audience` (groups) narrows to those groups' chunks and everyone's, None to no
    restriction. Raises `EmbeddingFailed` when the query cannot be embedded."""
    model = embedder()
    vector = None if mode == KEYWORD else model.embed([query])[0]
    hits = chunks_search(
        tenant=tenant,
        vector=vector,
        query=query,
        mode=mode,
        model=model.model,
        top_k=top_k,
        identities=identities,
        platform_types=platform_types,
        audience=audience,
    )
    return {"results": [asdict(hit) for hit in hits], "model": model.model, "mode": mode}


def documents_newest_first(
    *, tenant: Tenant, identities: Collection[str] | None, after: tuple | None = None, limit: int
) -> list[Document]:
    """A page of the documents the caller may read, last ingested or changed first: the `limit`
    that come after the position `after` (`(updated_at, id)` of the previous page's last)."""
    documents = documents_readable(tenant=tenant, identities=identities)
    if after is not None:
        updated_at, document_id = after
        documents = documents.filter(
            Q(updated_at__lt=updated_at) | Q(updated_at=updated_at, id__lt=document_id)
        )
    return list(documents.order_by("-updated_at", "-id")[:limit])


def document_readable_get(
    *, tenant: Tenant, document_id: str, identities: Collection[str] | None
) -> Document | None:
    """The document `doc-<uuid>` if the caller may read it; None for one it may not read, another
    tenant's, an unknown one or an id of another form (no existence oracle)."""
    found = prefixed_uuid(document_id.strip(), "doc-")
    if found is None:
        return None
    return documents_readable(tenant=tenant, identities=identities).filter(id=found).first()


def document_text(*, document: Document) -> str:
    """The document's text as the knowledge base keeps it: its passages in order, the overlap that
    neighbouring passages share (ingestion's chunking) written once."""
    text = ""
    for passage in Chunk.objects.filter(document=document).order_by("ordinal").values_list("text", flat=True):
        shared = _overlap(text, passage)
        text = text + passage[shared:] if shared else "\n".join(p for p in (text, passage) if p)
    return text


def _overlap(before: str, passage: str) -> int:
    """The length of the longest start of `passage` that `before` ends with, if it is long enough
    to be shared text rather than chance (0 otherwise). The border of `passage + NUL + before's
    tail` in one linear pass (Knuth-Morris-Pratt's failure function)."""
    joined = passage + "\0" + before[-len(passage) :]
    border = [0] * len(joined)
    for i in range(1, len(joined)):
        k = border[i - 1]
        while k and joined[i] != joined[k]:
            k = border[k - 1]
        border[i] = k + (joined[i] == joined[k])
    return border[-1] if border[-1] >= MIN_OVERLAP else 0
