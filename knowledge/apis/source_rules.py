"""/v2/knowledge/source-rules: the tenant's block and allow lists (sites, drives) and blocked URL
prefixes, which the listings and ingestion apply (docs/knowledge.md, "Source rules"). Thin views:
parse, call a selector or service, shape."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from core.access import KNOWLEDGE_VIEW, KNOWLEDGE_WRITE
from core.api.envelopes import v2_response
from core.api.errors import RequestInvalid
from core.api.fields import URL_PATTERN, StrictCharField, StrictChoiceField, StrictIntegerField
from core.api.schema import V2DetailSerializer, V2ValidationErrorSerializer, one_of, v2_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantAPIView
from core.audit import actor_of
from knowledge.models import SourceRule
from knowledge.selectors import source_rule_list
from knowledge.services import source_rule_create, source_rule_delete

MAX_AUDIENCES = 100


# What `SourceRule.problems` refuses, by target: a site or URL rule names an http(s) URL, a URL
# prefix rule is a block rule.
@one_of(
    {"properties": {"target": {"enum": ["drive"]}}},
    {"properties": {"target": {"enum": ["site"]}, "value": {"pattern": URL_PATTERN}}},
    {
        "properties": {
            "target": {"enum": ["url"]},
            "kind": {"enum": ["block"]},
            "value": {"pattern": URL_PATTERN},
        }
    },
)
class SourceRuleInput(serializers.Serializer):
    kind = StrictChoiceField(choices=SourceRule.Kind.values, help_text="`block` or `allow`.")
    target = StrictChoiceField(
        choices=SourceRule.Target.values,
        help_text="`site` (a site URL, covering its sub-sites), `drive` (a drive id) or `url` (a URL "
        "prefix of any platform whose items ingestion skips; block rules only).",
    )
    value = StrictCharField(max_length=2048, help_text="The site URL, drive id or URL prefix.")
    audiences = serializers.ListField(
        child=StrictCharField(max_length=255),
        required=False,
        default=list,
        max_length=MAX_AUDIENCES,
        help_text="Groups the rule applies to (default: every audience).",
    )
    note = StrictCharField(max_length=500, required=False, allow_blank=True, default="")

    class Meta:
        ref_name = "SourceRuleInput"


class SourceRuleQuery(serializers.Serializer):
    kind = StrictChoiceField(choices=SourceRule.Kind.values, required=False)
    target = StrictChoiceField(choices=SourceRule.Target.values, required=False)

    class Meta:
        ref_name = "SourceRuleQuery"


class SourceRuleOutput(serializers.Serializer):
    rule_id = StrictCharField(help_text="srule-<uuid>")
    # A plain string here: the enum is described once, on the input (one component per choice set).
    kind = StrictCharField(help_text="`block` or `allow`.")
    target = StrictChoiceField(choices=SourceRule.Target.values)
    value = StrictCharField()
    audiences = serializers.ListField(child=StrictCharField())
    note = StrictCharField()
    created_at = StrictCharField(help_text="ISO 8601 UTC with milliseconds.")

    class Meta:
        ref_name = "SourceRule"


def rule_record(rule: SourceRule) -> dict:
    return {
        "rule_id": rule.public_id,
        "kind": rule.kind,
        "target": rule.target,
        "value": rule.value,
        "audiences": list(rule.audiences),
        "note": rule.note,
        "created_at": iso_ms(rule.created_at),
    }


def _filters(request) -> dict:
    """`kind` and `target` of the query string; a value outside its set is a /v2 query error."""
    try:
        return validated(SourceRuleQuery, request.query_params.dict())  # a plain dict: "" is a value
    except RequestInvalid as exc:
        raise RequestInvalid(exc.errors, where="query") from None


class SourceRulesApi(TenantAPIView):
    access = {"GET": KNOWLEDGE_VIEW, "POST": KNOWLEDGE_WRITE}

    @extend_schema(
        operation_id="knowledge_source_rules_list",
        summary="List the tenant's source rules",
        parameters=[
            OpenApiParameter("kind", str, enum=SourceRule.Kind.values, description="Only this kind."),
            OpenApiParameter("target", str, enum=SourceRule.Target.values, description="Only this target."),
        ],
        responses={
            200: v2_envelope(
                "SourceRulesEnvelope",
                inline_serializer(
                    name="SourceRules",
                    fields={"rules": SourceRuleOutput(many=True), "total": StrictIntegerField()},
                ),
            ),
            422: OpenApiResponse(V2ValidationErrorSerializer, description="A query parameter is not valid."),
        },
        tags=["knowledge"],
        description="Block and allow rules of sites and drives, and blocked URL prefixes, ordered by "
        "kind, target and value.",
    )
    def get(self, request):
        rules = [rule_record(rule) for rule in source_rule_list(tenant=self.tenant, **_filters(request))]
        return v2_response({"rules": rules, "total": len(rules)})

    @extend_schema(
        operation_id="knowledge_source_rules_create",
        summary="Add a source rule",
        request=SourceRuleInput,
        responses={
            201: v2_envelope("SourceRuleEnvelope", SourceRuleOutput()),
            409: OpenApiResponse(V2DetailSerializer, description="The tenant has this rule already."),
        },
        tags=["knowledge"],
        description="A block or allow rule of a site URL or drive id, or a blocked URL prefix (block "
        "only). Listings and ingestion apply it from their next call.",
    )
    def post(self, request):
        data = validated(SourceRuleInput, request.data)
        rule = source_rule_create(
            tenant=self.tenant, **data, actor=actor_of(request), request_id=request.request_id
        )
        return v2_response(rule_record(rule), status=201)


class SourceRuleApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="knowledge_source_rules_delete",
        summary="Remove a source rule",
        parameters=[
            OpenApiParameter(
                "rule_id", str, OpenApiParameter.PATH, description="`srule-<uuid>` (or the bare uuid)."
            )
        ],
        responses={
            200: v2_envelope(
                "SourceRuleDeletedEnvelope",
                inline_serializer(
                    name="SourceRuleDeleted",
                    fields={
                        "rule_id": StrictCharField(),
                        "deleted_at": StrictCharField(help_text="ISO 8601 UTC with milliseconds."),
                    },
                ),
            ),
            404: OpenApiResponse(V2DetailSerializer, description="No such rule in this tenant."),
        },
        tags=["knowledge"],
    )
    def delete(self, request, rule_id: str):
        deleted = source_rule_delete(
            tenant=self.tenant, rule_id=rule_id, actor=actor_of(request), request_id=request.request_id
        )
        return v2_response(deleted)
