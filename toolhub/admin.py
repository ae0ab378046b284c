"""The operators' pages: connections, the approval policy, execution records, and the approval queue
(pending first, approve and reject actions that go through the same service as the API)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Case, IntegerField, Value, When
from django.template.response import TemplateResponse

from adminops.audit import client_ip
from adminops.console import APPROVERS, AUDITORS, TenantScopedAdmin
from adminops.models import Membership
from adminops.principals import Principal
from adminops.tenancy import effective_roles
from config.api.errors import ApiError
from toolhub.models import Approval, ApprovalPolicy, Connection, ExecutionRecord, RiskLevel
from toolhub.services.approvals import approval_decide


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
        "created_by",
    )

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


class RejectForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea, max_length=2000, strip=True)


@admin.register(Approval)
class ApprovalAdmin(TenantScopedAdmin, admin.ModelAdmin):
    """The approval queue: approvers (and tenant admins) see their tenants' calls and decide them."""

    list_display = ("tool_key", "tenant", "status", "risk_level", "requested_by", "created_at", "expires_at")
    list_filter = ("status", "risk_level", ("tenant", admin.RelatedOnlyFieldListFilter))
    view_roles = APPROVERS
    search_fields = ("tool_key", "idempotency_key", "tenant__name")
    actions = ["approve_selected", "reject_selected"]
    readonly_fields = [f.name for f in Approval._meta.fields]

    def get_queryset(self, request):
        pending_first = Case(
            When(status=Approval.Status.PENDING, then=Value(0)), default=Value(1), output_field=IntegerField()
        )
        return super().get_queryset(request).select_related("tenant").order_by(pending_first, "-created_at")

    @admin.display(description="requested by")
    def requested_by(self, approval: Approval) -> str:
        return str(approval.requester.get("name") or approval.requester.get("id") or "")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Approve selected calls")
    def approve_selected(self, request, queryset):
        self._decide(request, queryset, approve=True, reason="")

    @admin.action(description="Reject selected calls (asks for a reason)")
    def reject_selected(self, request, queryset):
        form = RejectForm(request.POST if "reason" in request.POST else None)
        if form.is_bound and form.is_valid():
            self._decide(request, queryset, approve=False, reason=form.cleaned_data["reason"])
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Reject calls",
            "form": form,
            "approvals": queryset,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/toolhub/approval/reject.html", context)

    def _decide(self, request, queryset, *, approve: bool, reason: str) -> None:
        for approval in queryset.select_related("tenant"):
            principal = Principal.of_user(request.user)
            if not _may_decide(request.user, approval):
                self.message_user(
                    request, f"{approval}: you are not an approver of {approval.tenant}.", messages.ERROR
                )
                continue
            try:
                approval_decide(
                    tenant=approval.tenant,
                    approval=approval,
                    approve=approve,
                    reason=reason,
                    decider=principal,
                    actor=principal.as_actor(client_ip(request)),
                )
            except ApiError as exc:
                self.message_user(request, f"{approval}: {exc.message}", messages.ERROR)
                continue
            verb = "approved" if approve else "rejected"
            self.message_user(
                request, f"{approval.tool_key} ({approval.public_id}) {verb}.", messages.SUCCESS
            )


def _may_decide(user, approval: Approval) -> bool:
    """Approvers of the approval's tenant (tenant_admin includes approver); a superuser anywhere."""
    if user.is_superuser:
        return True
    membership = Membership.objects.filter(user=user, tenant=approval.tenant).first()
    return membership is not None and "approver" in effective_roles(membership.roles)


@admin.register(ExecutionRecord)
class ExecutionRecordAdmin(TenantScopedAdmin, admin.ModelAdmin):
    """Part of the trail an auditor (or tenant admin) browses for their tenants."""

    list_display = ("created_at", "tool_key", "tenant", "outcome", "error_code", "http_status", "duration_ms")
    list_filter = ("outcome", "error_code", "tool_key", ("tenant", admin.RelatedOnlyFieldListFilter))
    view_roles = AUDITORS
    search_fields = ("request_id", "tool_key", "principal_key", "idempotency_key")
    ordering = ("-created_at",)
    readonly_fields = [f.name for f in ExecutionRecord._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
