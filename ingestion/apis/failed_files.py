"""POST /v2/cloudstore/failed-files (api-spec part 4)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from core.access import KNOWLEDGE_READ
from core.api.envelopes import v2_response
from core.api.fields import StrictCharField, StrictChoiceField, StrictIntegerField
from core.api.schema import V2DetailSerializer, page_parameters, v2_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantAPIView
from ingestion.apis.params import int_query
from ingestion.records import PLATFORM_TYPES, FailedFile
from ingestion.selectors import failed_file_list
from knowledge.apis import VectordbConfigSerializer
from knowledge.selectors import vectordb_tenant_check

MAX_LIMIT = 100


class FailedFilesListInput(serializers.Serializer):
    vectordb_config = VectordbConfigSerializer()
    platform_type = StrictChoiceField(choices=PLATFORM_TYPES)

    class Meta:
        ref_name = "FailedFilesListInput"


class FailedFileOutput(serializers.Serializer):
    file_id = StrictCharField()
    file_name = StrictCharField()
    source_url = StrictCharField()
    error_type = StrictCharField()
    error_message = StrictCharField()
    failed_at = StrictCharField(help_text="ISO 8601 UTC with milliseconds.")
    retry_count = StrictIntegerField(help_text="Ingestion attempts of the file so far.")

    class Meta:
        ref_name = "FailedFileRecord"


class FailedFilesData(serializers.Serializer):
    failed_files = FailedFileOutput(many=True)
    total = StrictIntegerField(help_text="All matching records, not only this page.")
    platform_type = StrictCharField()

    class Meta:
        ref_name = "FailedFilesData"


class FailedFilesListApi(TenantAPIView):
    access = KNOWLEDGE_READ

    @extend_schema(
        operation_id="cloudstore_failed_files_list",
        summary="List the tenant's failed ingestion files",
        request=FailedFilesListInput,
        parameters=[
            *page_parameters(max_limit=MAX_LIMIT, default="all"),
        ],
        responses={
            200: v2_envelope("FailedFilesEnvelope", FailedFilesData(), with_message=True),
            503: OpenApiResponse(V2DetailSerializer, description="The failed-file store is unavailable."),
        },
        tags=["ingestion"],
    )
    def post(self, request):
        data = validated(FailedFilesListInput, request.data)
        vectordb_tenant_check(tenant=self.tenant, tenant_id=data["vectordb_config"]["tenant_id"])
        limit, offset = _page_params(request)
        platform_type = data["platform_type"]
        page = failed_file_list(tenant=self.tenant, platform_type=platform_type, limit=limit, offset=offset)
        body = {
            "failed_files": [_record_output(record) for record in page.items],
            "total": page.total,
            "platform_type": platform_type,
        }
        return v2_response(body, message=f"Found {page.total} failed files for platform {platform_type}.")


def _record_output(record: FailedFile) -> dict:
    return {
        "file_id": record.file_id,
        "file_name": record.file_name,
        "source_url": record.source_url,
        "error_type": record.error_type,
        "error_message": record.error_message,
        "failed_at": iso_ms(record.failed_at),
        "retry_count": record.retry_count,
    }


def _page_params(request) -> tuple[int | None, int]:
    """The optional limit/offset extension; bad values are /v2 query errors (422, loc ["query", name])."""
    limit = int_query(request, "limit", low=1, high=MAX_LIMIT)
    offset = int_query(request, "offset", low=0, high=10**9)
    return limit, offset or 0
