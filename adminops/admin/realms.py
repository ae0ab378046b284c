"""Identity realms (DESIGN section 17), shown to tenant admins. They are written through
/api/v1/admin/realms, which checks the issuer against the outbound guard, audits the change and drops
the realm's cached keys."""

from django.contrib import admin

from adminops.console import TENANT_ADMIN, ReadOnlyAdmin, TenantFilter, TenantScopedAdmin
from adminops.models import IdentityRealm


@admin.register(IdentityRealm)
class IdentityRealmAdmin(ReadOnlyAdmin, TenantScopedAdmin, admin.ModelAdmin):
    list_display = ("name", "tenant", "issuer", "audience", "created_at")
    search_fields = ("name", "issuer", "tenant__name")
    list_filter = (TenantFilter,)
    view_roles = TENANT_ADMIN
