from django.contrib import admin
from django.db.models import Q

from core.console import TENANT_ADMIN, ReadOnlyAdmin, TenantFilter, TenantScopedAdmin
from core.models import Tenant
from core.principals import Principal
from identity.sources import source_identities
from knowledge.models import Document, SourceRule
from knowledge.selectors import documents_readable


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
    Superusers see every tenant's; a tenant admin sees those of their tenants they may read at the
    source (DESIGN section 19), as search would find them; another opens as a missing one."""

    view_roles = TENANT_ADMIN

    list_display = ("title", "platform_type", "source_url", "chunks", "updated_at", "tenant")
    list_filter = (TenantFilter, "platform_type", "content_type")
    search_fields = ("title", "source_url")
    list_select_related = ("tenant",)
    ordering = ("-updated_at",)
    exclude = ("source_url_key",)

    def get_queryset(self, request):
        documents = super().get_queryset(request)
        if request.user.is_superuser:
            return documents
        person = Principal.of_user(request.user)
        readable = Q(pk__in=[])
        for tenant in Tenant.objects.filter(id__in=self.scoped_tenant_ids(request)):
            mine = documents_readable(tenant=tenant, identities=source_identities(person, tenant))
            readable |= Q(pk__in=mine.values("pk"))
        return documents.filter(readable)

    @admin.display(description="chunks", ordering="chunk_count")
    def chunks(self, document: Document) -> int:
        return document.chunk_count
