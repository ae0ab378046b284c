from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from adminops.models import ApiKey, AuditEntry, JobRun, Membership, Tenant, User


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Tenant)
class TenantAdmin(admin.ModelAdmin):
    list_display = ("name", "id", "domain", "status", "created_at")
    search_fields = ("name", "domain", "id")
    list_filter = ("status",)
    inlines = [MembershipInline]


@admin.register(User)
class TenantUserAdmin(UserAdmin):
    inlines = [MembershipInline]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "tenant", "prefix", "status", "environment", "expires_at", "last_used_at")
    list_filter = ("status", "environment")
    search_fields = ("name", "prefix", "tenant__name")
    exclude = ("key_hash",)
    readonly_fields = ("prefix",)


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ("timestamp", "action", "status", "tenant_id", "actor_id", "resource_type")
    list_filter = ("action", "status", "category")
    search_fields = ("action", "actor_id", "request_id")
    ordering = ("-timestamp",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(JobRun)
class JobRunAdmin(admin.ModelAdmin):
    list_display = ("job_name", "status", "queued_at", "started_at", "finished_at", "items", "duration_ms")
    list_filter = ("job_name", "status")
    ordering = ("-queued_at",)

    def has_change_permission(self, request, obj=None):
        return False
