"""/api/v1/approvals: the queue (list, get) and the decisions (approve, reject)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action

from core.api.envelopes import tool_response
from core.api.fields import StrictCharField
from core.api.pagination import page_request, paginate
from core.api.schema import page_parameters, tool_envelope
from core.api.validation import validated
from core.api.views import TenantViewSet
from core.audit import actor_of
from toolhub.access import APPROVALS_DECIDE, APPROVALS_READ
from toolhub.apis import query_choice
from toolhub.apis.shapes import ApprovalList, ApprovalShape, approval_data, list_envelope
from toolhub.models import Approval
from toolhub.selectors import approval_get, approval_list
from toolhub.services.approvals import approval_decide, approval_expire_if_due


class DecisionInput(serializers.Serializer):
    reason = StrictCharField(required=False, allow_blank=True, max_length=2000, default="")

    class Meta:
        ref_name = "ApprovalDecisionInput"


class ApprovalViewSet(TenantViewSet):
    access = APPROVALS_READ
    lookup_field = "approval_id"

    @extend_schema(
        operation_id="approvals_list",
        summary="List approvals",
        parameters=[
            # An inline enum: a named one would collide with the other "status" enums.
            OpenApiParameter("status", {"type": "string", "enum": Approval.Status.values}),
            *page_parameters(),
        ],
        responses={200: list_envelope("ApprovalListEnvelope", ApprovalList)},
        tags=["approvals"],
    )
    def list(self, request):
        status = query_choice(request, "status", Approval.Status.values)
        queryset = approval_list(tenant=self.tenant, status=status, requester_key=self._own_only())
        rows, pagination = paginate(queryset, page_request(request))
        approvals = [approval_data(approval_expire_if_due(approval=a)) for a in rows]
        return tool_response({"approvals": approvals, "pagination": pagination})

    @extend_schema(
        operation_id="approvals_get",
        summary="Get an approval",
        responses={200: tool_envelope("ApprovalEnvelope", ApprovalShape)},
        tags=["approvals"],
    )
    def retrieve(self, request, approval_id: str):
        approval = approval_get(tenant=self.tenant, approval_id=approval_id, requester_key=self._own_only())
        return tool_response(approval_data(approval_expire_if_due(approval=approval)))

    @extend_schema(
        operation_id="approvals_approve",
        summary="Approve a call",
        request=DecisionInput,
        responses={200: tool_envelope("ApprovalApproveEnvelope", ApprovalShape)},
        tags=["approvals"],
    )
    @action(detail=True, methods=["post"], access=APPROVALS_DECIDE)
    def approve(self, request, approval_id: str):
        return self._decide(request, approval_id, approve=True)

    @extend_schema(
        operation_id="approvals_reject",
        summary="Reject a call",
        request=DecisionInput,
        responses={200: tool_envelope("ApprovalRejectEnvelope", ApprovalShape)},
        tags=["approvals"],
    )
    @action(detail=True, methods=["post"], access=APPROVALS_DECIDE)
    def reject(self, request, approval_id: str):
        return self._decide(request, approval_id, approve=False)

    def _own_only(self) -> str | None:
        """A machine principal follows only the approvals of its own calls."""
        return None if self.principal.is_user else self.principal.rate_key

    def _decide(self, request, approval_id: str, *, approve: bool):
        data = validated(DecisionInput, request.data)
        approval = approval_get(tenant=self.tenant, approval_id=approval_id)
        approval = approval_decide(
            tenant=self.tenant,
            approval=approval,
            approve=approve,
            reason=data["reason"],
            decider=self.principal,
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return tool_response(approval_data(approval))
