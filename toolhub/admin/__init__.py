"""The operators' pages: connections, the approval policy, execution records, and the approval queue
(`toolhub.admin.approvals`)."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from core.console import AUDITORS, TenantScopedAdmin, person_field
from toolhub.admin import approvals  # noqa: F401 (registers the approval queue)
from toolhub.models import ApprovalPolicy, Connection, ExecutionRecord, RiskLevel


@admin.register(Connection)
class ConnectionAdmin(admin.ModelAdmin):
    list_display = ("name", "tenant", "domain", "connector", "is_default", "status", "health")
    list_filter = ("domain", "connector", "status", "health", "is_default")
    search_fields = ("name", "tenant__name", "integration_id", "base_url")
    # Created and re-pointed through the API or `createconnection`, which check the URL guard and the
    # credential; here operators can rename and switch a connection off.
    readonly_fields = (
        "id",
        "tenant",
        "domain",
        "connector",
        "base_url",
        "integration_id",
        "is_default",
        "settings",
        "health",
        "health_checked_at",
        "health_error",
        "created_at",
        "updated_at",
        "created_by_person",
    )
    exclude = ("created_by",)
    created_by_person = person_field("created_by")

    def has_add_permission(self, request):
        return False


class ApprovalPolicyForm(forms.ModelForm):
    class Meta:
        model = ApprovalPolicy
        fields = ("tenant", "gated_risk_levels", "always_gate", "never_gate")

    def clean_gated_risk_levels(self):
        levels = self.cleaned_data["gated_risk_levels"]
        if not isinstance(levels, list) or set(levels) - set(RiskLevel.values):
            raise forms.ValidationError(f"A list of risk levels from: {', '.join(RiskLevel.values)}.")
        return levels

    def _patterns(self, name: str):
        value = self.cleaned_data[name]
        if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
            raise forms.ValidationError('A list of tool key patterns, e.g. ["itsm.*"].')
        return value

    def clean_always_gate(self):
        return self._patterns("always_gate")

    def clean_never_gate(self):
        return self._patterns("never_gate")


@admin.register(ApprovalPolicy)
class ApprovalPolicyAdmin(admin.ModelAdmin):
    form = ApprovalPolicyForm
    list_display = ("tenant", "gated_risk_levels", "always_gate", "never_gate", "updated_at")
    search_fields = ("tenant__name",)


@admin.register(ExecutionRecord)
class ExecutionRecordAdmin(TenantScopedAdmin, admin.ModelAdmin):
    """Part of the trail an auditor (or tenant admin) browses for their tenants."""

    list_display = (
        "created_at",
        "tool_key",
        "tenant",
        "principal_person",
        "outcome",
        "error_code",
        "http_status",
        "duration_ms",
    )
    list_filter = ("outcome", "error_code", "tool_key", ("tenant", admin.RelatedOnlyFieldListFilter))
    view_roles = AUDITORS
    search_fields = ("request_id", "tool_key", "principal_key", "idempotency_key")
    ordering = ("-created_at",)
    exclude = ("principal",)
    readonly_fields = [f.name for f in ExecutionRecord._meta.fields if f.name != "principal"]
    readonly_fields += ["principal_person"]
    principal_person = person_field("principal", "called by")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
