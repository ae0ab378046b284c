from django.contrib import admin

from core.console import TENANT_ADMIN, ReadOnlyAdmin, TenantFilter, TenantScopedAdmin
from knowledge.models import Document, SourceRule


@admin.register(SourceRule)
class SourceRuleAdmin(admin.ModelAdmin):
    """Block and allow lists of sites and drives, and blocked URL prefixes (target `url`)."""

    list_display = ("tenant", "kind", "target", "value", "audiences", "note", "updated_at")
    list_filter = ("kind", "target")
    search_fields = ("value", "note", "tenant__name")
    list_select_related = ("tenant",)
    ordering = ("tenant__name", "kind", "target", "value")


@admin.register(Document)
class DocumentAdmin(ReadOnlyAdmin, TenantScopedAdmin, admin.ModelAdmin):
    """The knowledge base's documents, read-only: ingestion adds, replaces and removes them.
    Superusers see every tenant's; a tenant admin sees their tenants'."""

    view_roles = TENANT_ADMIN

    list_display = ("title", "platform_type", "source_url", "chunks", "updated_at", "tenant")
    list_filter = (TenantFilter, "platform_type", "content_type")
    search_fields = ("title", "source_url")
    list_select_related = ("tenant",)
    ordering = ("-updated_at",)
    exclude = ("source_url_key",)

    @admin.display(description="chunks", ordering="chunk_count")
    def chunks(self, document: Document) -> int:
        return document.chunk_count
