"""What a tenant knows.

Source rules: a block list and an allow list of site URLs and drive ids, and blocked URL prefixes
of any platform, that operators keep in the Django admin or through `/v2/knowledge/source-rules`.
The listing and ingestion apply the block list when the caller asks for `blacklisted`, the allow
list when it asks for `source_restriction`.

The knowledge base (DESIGN section 15): a tenant's source documents and their chunks with their
embeddings, written and searched only through `knowledge.vectors`.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from core.models import Tenant, TenantOwnedQuerySet
from knowledge.fields import EmbeddingField


def _audiences_valid(value) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValidationError('A list of audience (group) names, e.g. ["finance", "hr"]; [] for everyone.')


class SourceRule(models.Model):
    class Kind(models.TextChoices):
        BLOCK = "block", "Block list"
        ALLOW = "allow", "Allow list"

    class Target(models.TextChoices):
        SITE = "site", "Site URL (covers its sub-sites)"
        DRIVE = "drive", "Drive id"
        URL = "url", "URL prefix (any platform)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="source_rules")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    target = models.CharField(max_length=8, choices=Target.choices)
    value = models.CharField(
        max_length=2048,
        help_text="A site URL (https://host/sites/name), a drive id, or a URL prefix whose items "
        "ingestion skips (block rules only).",
    )
    audiences = models.JSONField(
        default=list,
        blank=True,
        validators=[_audiences_valid],
        help_text="Audiences (groups) the rule applies to; empty: every audience.",
    )
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantOwnedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "kind", "target", "value"], name="source_rule_unique")
        ]
        indexes = [models.Index(fields=["tenant", "kind"], name="source_rule_tenant_kind")]

    def __str__(self) -> str:
        return f"{self.kind} {self.target} {self.value}"

    @property
    def public_id(self) -> str:
        return f"{SOURCE_RULE_PREFIX}{self.id}"

    def problems(self) -> dict[str, str]:
        """What makes the rule unusable, field -> message ({} when none): the admin's form and the
        API say the same."""
        if self.target == self.Target.URL and self.kind != self.Kind.BLOCK:
            return {"kind": "A URL prefix rule is a block rule: allow lists name sites and drives."}
        if self.target in (self.Target.SITE, self.Target.URL) and not _http_url(self.value):
            noun = "the site's URL" if self.target == self.Target.SITE else "an absolute URL prefix"
            return {"value": f"A {self.target} rule names {noun} (https://host/...)."}
        return {}

    def clean(self) -> None:
        problems = self.problems()
        if problems:
            raise ValidationError(problems)


SOURCE_RULE_PREFIX = "srule-"


def _http_url(value: str) -> bool:
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


PLATFORM_TYPES: tuple[str, ...] = ("sitelib", "wikispace", "itsmplatform")
# Each platform p has the content types p_article and p_attachment (the failed-file vocabulary).
CONTENT_TYPES: tuple[str, ...] = tuple(
    f"{p}_{kind}" for p in PLATFORM_TYPES for kind in ("article", "attachment")
)
EVERYONE = "all"  # the audience that every query sees


class Document(models.Model):
    """One item of a platform (a file, a wiki page, a knowledge article) in a tenant's knowledge base."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="documents")
    platform_type = models.CharField(max_length=16, choices=[(p, p) for p in PLATFORM_TYPES])
    content_type = models.CharField(max_length=32, choices=[(c, c) for c in CONTENT_TYPES])
    source_id = models.CharField(max_length=512, help_text="The platform's id of the item.")
    source_url = models.TextField(help_text="The item's web address; a site's or folder's is a prefix of it.")
    # The address in folded case, which prefix deletions match: URL hosts and the platforms' paths
    # compare case-insensitively, and SQLite's LIKE would ignore case anyway.
    source_url_key = models.TextField(editable=False)
    title = models.TextField(blank=True)
    content_hash = models.CharField(max_length=64, help_text="SHA-256 of the extracted text.")
    audience = models.JSONField(default=list, help_text='Groups that may see it; ["all"]: everyone.')
    readers = models.JSONField(
        default=list,
        blank=True,
        help_text="Who may read the item at its source: everyone, user:<email>, "
        "group:<platform>:<id> (DESIGN section 19); empty: its permissions could not be read, so only "
        "callers with knowledge:all read it.",
    )
    metadata = models.JSONField(default=dict, blank=True)
    # A plain string ("" for none): configurations belong to ingestion, which knowledge does not import.
    sync_configuration_id = models.CharField(max_length=64, blank=True, default="")
    chunk_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = TenantOwnedQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "platform_type", "source_id"], name="document_unique_source"
            )
        ]
        indexes = [
            # text_pattern_ops lets PostgreSQL answer `LIKE 'prefix%'` from the index whatever the
            # database's collation (SQLite ignores opclasses).
            models.Index(
                fields=["tenant", "source_url_key"],
                name="document_tenant_url",
                opclasses=["uuid_ops", "text_pattern_ops"],
            ),
            models.Index(fields=["tenant", "sync_configuration_id"], name="document_tenant_config"),
            models.Index(fields=["tenant", "-updated_at"], name="document_tenant_updated"),
        ]

    def __str__(self) -> str:
        return self.title or self.source_url

    @property
    def public_id(self) -> str:
        return f"doc-{self.id}"


class Chunk(models.Model):
    """A passage of a document with its embedding and its lexical terms. The document's audience
    and readers (`core.readers`) are copied here in a form that a plain substring filter matches on
    both databases (`knowledge.vectors.audience`)."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    model = models.CharField(max_length=200, help_text="The embedding model's name.")
    dimension = models.PositiveIntegerField()
    audience = models.TextField(help_text="The document's audience as |group|group| (folded case).")
    readers = models.TextField(
        default="",
        blank=True,
        help_text="The document's readers in the audience's form; empty: only knowledge:all callers.",
    )
    # What the lexical index holds of the chunk (`knowledge.vectors.lexical.chunk_terms`): the
    # distinct terms of its document's title and its text. PostgreSQL indexes it in the generated
    # column `lexical`, SQLite in the FTS5 table `knowledge_chunk_fts` (migration 0004).
    terms = models.TextField(default="", blank=True, editable=False)
    embedding = EmbeddingField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="chunk_unique_ordinal"),
            models.CheckConstraint(condition=~Q(text=""), name="chunk_text_not_empty"),
            models.CheckConstraint(condition=Q(dimension__gt=0), name="chunk_dimension_positive"),
        ]
        indexes = [models.Index(fields=["tenant", "model", "dimension"], name="chunk_tenant_model")]

    def __str__(self) -> str:
        return f"{self.document_id} #{self.ordinal}"
