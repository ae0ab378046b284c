"""/v2 views of the knowledge base: the source listings (`listings`) and search (`search`). Here:
the parts of /v2 bodies that several endpoints share, ingestion's included."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.fields import HOST_PATTERN, StrictBooleanField, StrictCharField
from integrations.itsm import instance_host_valid

MAX_ITEMS = 500


@extend_schema_field({"type": "string", "pattern": f"^{HOST_PATTERN}$", "maxLength": 260})
class ItsmInstanceField(StrictCharField):
    """`itsmplatform_domain`: the ITSM instance's host (and port), without scheme; a leading
    `https://` and a trailing `/` are dropped."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 260)
        kwargs.setdefault("help_text", "Instance host, without scheme.")
        super().__init__(**kwargs)

    def run_validation(self, data=serializers.empty):
        value = super().run_validation(data)
        host = value.strip().removeprefix("https://").rstrip("/")
        if "://" in host:
            raise serializers.ValidationError(
                "the instance is called over https", code="value_error.url.scheme"
            )
        if not instance_host_valid(host):
            raise serializers.ValidationError("must be the instance host name", code="value_error.url.host")
        return host


def string_list(**kwargs) -> serializers.ListField:
    return serializers.ListField(
        child=StrictCharField(max_length=2048),
        required=False,
        default=list,
        max_length=MAX_ITEMS,
        **kwargs,
    )


class VectordbConfigSerializer(serializers.Serializer):
    """`vectordb_config` of every /v2 body that names the tenant's knowledge base: `tenant_id` must
    be the request's tenant (checked by the view, 403 otherwise)."""

    platform_domain = StrictCharField(max_length=255)
    tenant_id = StrictCharField(max_length=255)

    class Meta:
        ref_name = "VectordbConfig"


class ContentRestrictionSerializer(serializers.Serializer):
    audience = string_list()
    blacklisted = StrictBooleanField(required=False, default=False)
    source_restriction = StrictBooleanField(required=False, default=False)

    class Meta:
        ref_name = "SitelibContentRestriction"
