from django.contrib import admin

from knowledge.models import SourceRule


@admin.register(SourceRule)
class SourceRuleAdmin(admin.ModelAdmin):
    list_display = ("tenant", "kind", "target", "value", "audiences", "note", "updated_at")
    list_filter = ("kind", "target")
    search_fields = ("value", "note", "tenant__name")
    list_select_related = ("tenant",)
    ordering = ("tenant__name", "kind", "target", "value")
