"""Per-tenant source rules for the sitelib listing: a block list and an allow list of site URLs and
drive ids that operators keep in the Django admin. The listing applies the block list when the
caller asks for `blacklisted`, the allow list when it asks for `source_restriction`."""

from __future__ import annotations

import uuid

from django.core.exceptions import ValidationError
from django.db import models

from adminops.models import Tenant


def _audiences_valid(value) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValidationError('A list of audience (group) names, e.g. ["finance", "hr"]; [] for everyone.')


class SourceRuleQuerySet(models.QuerySet):
    def for_tenant(self, tenant: Tenant):
        return self.filter(tenant=tenant)


class SourceRule(models.Model):
    class Kind(models.TextChoices):
        BLOCK = "block", "Block list"
        ALLOW = "allow", "Allow list"

    class Target(models.TextChoices):
        SITE = "site", "Site URL (covers its sub-sites)"
        DRIVE = "drive", "Drive id"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="source_rules")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    target = models.CharField(max_length=8, choices=Target.choices)
    value = models.CharField(max_length=2048, help_text="A site URL (https://host/sites/name) or a drive id.")
    audiences = models.JSONField(
        default=list,
        blank=True,
        validators=[_audiences_valid],
        help_text="Audiences (groups) the rule applies to; empty: every audience.",
    )
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = SourceRuleQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "kind", "target", "value"], name="source_rule_unique")
        ]
        indexes = [models.Index(fields=["tenant", "kind"], name="source_rule_tenant_kind")]

    def __str__(self) -> str:
        return f"{self.kind} {self.target} {self.value}"

    def clean(self) -> None:
        if self.target == self.Target.SITE and not self.value.lower().startswith(("https://", "http://")):
            raise ValidationError({"value": "A site rule names the site's URL (https://...)."})
