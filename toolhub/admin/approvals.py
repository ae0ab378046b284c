"""The approval queue: pending calls first, each with its tool, risk, requester, age and time left; a
detail page that shows the request and, to approvers, Approve and Reject (with a reason). Every
decision goes through `approval_decide`, the API's service: four eyes, compare-and-set, audited.
Auditors see the queue and the decisions, read-only."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Case, IntegerField, Value, When
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.timesince import timesince, timeuntil

from core.api.errors import ApiError
from core.console import (
    APPROVERS,
    AUDITORS,
    TenantScopedAdmin,
    console_actor,
    json_block,
    to_the_second,
    warning,
)
from core.people import person_label
from core.principals import Principal
from toolhub.models import Approval
from toolhub.registry import tool_lookup
from toolhub.services.approvals import approval_decide

CHANNELS = {"rest": "REST API", "mcp": "MCP"}


class RejectForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea, max_length=2000, strip=True)


@admin.register(Approval)
class ApprovalAdmin(TenantScopedAdmin, admin.ModelAdmin):
    """Approvers (tenant admins include the role) decide their tenants' calls; auditors look on."""

    list_display = ("tool", "risk", "state", "tenant", "requested_by", "age", "time_left", "decided")
    list_filter = ("status", "risk_level", ("tenant", admin.RelatedOnlyFieldListFilter))
    view_roles = APPROVERS | AUDITORS
    search_fields = ("tool_key", "idempotency_key", "request_id", "tenant__name")
    actions = ["approve_selected", "reject_selected"]
    change_form_template = "admin/toolhub/approval/change_form.html"

    class Media:
        css = {"all": ("core/console.css",)}

    def get_queryset(self, request):
        pending_first = Case(
            When(status=Approval.Status.PENDING, then=Value(0)), default=Value(1), output_field=IntegerField()
        )
        queryset = super().get_queryset(request).select_related("tenant", "connection")
        return queryset.order_by(pending_first, "-created_at")

    # Nobody edits, adds or deletes an approval: it is decided (below), through the service.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_decide_permission(self, request, obj=None):
        """Approvers of the approval's tenant (any of theirs without one); superusers anywhere."""
        return self.allows(request, APPROVERS, obj)

    @admin.display(description="tool", ordering="tool_key")
    def tool(self, approval: Approval) -> str:
        return approval.tool_key

    @admin.display(description="risk", ordering="risk_level")
    def risk(self, approval: Approval):
        return format_html('<span class="risk risk-{}">{}</span>', approval.risk_level, approval.risk_level)

    @admin.display(description="status", ordering="status")
    def state(self, approval: Approval):
        if approval.is_expired_at(timezone.now()):
            return warning("expired")
        return format_html('<span class="decision decision-{}">{}</span>', approval.status, approval.status)

    @admin.display(description="requested by")
    def requested_by(self, approval: Approval) -> str:
        return person_label(approval.requester)

    @admin.display(description="age", ordering="created_at")
    def age(self, approval: Approval) -> str:
        return timesince(approval.created_at, depth=1)

    @admin.display(description="time left", ordering="expires_at")
    def time_left(self, approval: Approval) -> str:
        if approval.status != Approval.Status.PENDING or approval.expires_at <= timezone.now():
            return "—"
        return timeuntil(approval.expires_at, depth=1)

    @admin.display(description="decided by")
    def decided(self, approval: Approval) -> str:
        return person_label(approval.decided_by) if approval.decided_by else "—"

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            context.update(self._detail(request, obj))
        return super().render_change_form(request, context, add, change, form_url, obj)

    def _detail(self, request, approval: Approval) -> dict:
        tool = tool_lookup(approval.tool_key)
        requester = approval.requester or {}
        channel = CHANNELS.get(approval.channel, approval.channel or "API")
        facts = [
            ("Tool", f"{approval.tool_key} — {tool.name}" if tool else approval.tool_key),
            ("Risk", self.risk(approval)),
            ("Status", self.state(approval)),
            ("Tenant", approval.tenant.name),
            ("Connection", _connection(approval)),
            ("Requested by", _with_email(requester)),
            ("Channel", f"{channel} from {requester.get('ipAddress') or 'an unknown address'}"),
            ("Requested at", f"{to_the_second(approval.created_at)} ({self.age(approval)} ago)"),
            ("Expires at", _expiry(approval)),
            ("Idempotency key", approval.idempotency_key),
            ("Fingerprint", approval.fingerprint),
            ("Request id", approval.request_id or "—"),
        ]
        decision = []
        if approval.decided_by:
            decision = [
                ("Decided by", _with_email(approval.decided_by)),
                ("Decided at", to_the_second(approval.decided_at)),
                ("Reason", approval.reason or "—"),
                ("Executed at", to_the_second(approval.executed_at) if approval.executed_at else "not yet"),
            ]
        pending = approval.status == Approval.Status.PENDING and not approval.is_expired_at(timezone.now())
        return {
            "title": f"Approval of {approval.tool_key}",
            "facts": facts,
            "decision": decision,
            "input_json": json_block(approval.input_redacted),
            "may_decide": pending and self.has_decide_permission(request, approval),
            "decide_url": reverse("admin:toolhub_approval_decide", args=[approval.pk]),
            "reject_form": RejectForm(),
        }

    def get_urls(self):
        view = self.admin_site.admin_view(self.decide_view)
        return [path("<uuid:approval_id>/decide/", view, name="toolhub_approval_decide"), *super().get_urls()]

    def decide_view(self, request, approval_id):
        """POST from the detail page: `decision` approve or reject (with `reason`)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        approval = self.get_queryset(request).filter(id=approval_id).first()
        if approval is None:
            raise Http404("No such approval.")
        if not self.has_decide_permission(request, approval):
            raise PermissionDenied
        detail = reverse("admin:toolhub_approval_change", args=[approval.pk])
        approve = request.POST.get("decision") == "approve"
        form = RejectForm(request.POST)
        if not approve and not form.is_valid():
            self.message_user(request, "A reason is required to reject: say why below.", messages.ERROR)
            return HttpResponseRedirect(f"{detail}#reject")
        reason = "" if approve else form.cleaned_data["reason"]
        self._decide(request, [approval], approve=approve, reason=reason)
        return HttpResponseRedirect(detail)

    @admin.action(description="Approve selected calls", permissions=["decide"])
    def approve_selected(self, request, queryset):
        self._decide(request, queryset, approve=True, reason="")

    @admin.action(description="Reject selected calls (asks for a reason)", permissions=["decide"])
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

    def _decide(self, request, approvals, *, approve: bool, reason: str) -> None:
        principal = Principal.of_user(request.user)
        for approval in approvals:
            if not self.has_decide_permission(request, approval):
                self.message_user(
                    request,
                    f"Approval of {approval.tool_key}: you are not an approver of {approval.tenant}.",
                    messages.ERROR,
                )
                continue
            try:
                approval_decide(
                    tenant=approval.tenant,
                    approval=approval,
                    approve=approve,
                    reason=reason,
                    decider=principal,
                    actor=console_actor(request),
                )
            except ApiError as exc:
                self.message_user(request, f"Approval of {approval.tool_key}: {exc.message}", messages.ERROR)
                continue
            verb = "approved" if approve else "rejected"
            # A sentence that starts with a word: the console capitalises a message's first letter.
            self.message_user(
                request, f"Call of {approval.tool_key} {verb} ({approval.public_id}).", messages.SUCCESS
            )


def _with_email(actor: dict) -> str:
    email = actor.get("email")
    return f"{person_label(actor)} <{email}>" if email else person_label(actor)


def _connection(approval: Approval) -> str:
    connection = approval.connection
    if connection is None:
        return "— (deleted)"
    return f"{connection.name} ({connection.domain}/{connection.connector}, {connection.public_id})"


def _expiry(approval: Approval):
    moment = to_the_second(approval.expires_at)
    if approval.is_expired_at(timezone.now()):
        return warning(f"{moment} (expired)")
    if approval.status != Approval.Status.PENDING:
        return moment
    return f"{moment} ({timeuntil(approval.expires_at, depth=2)} left)"
