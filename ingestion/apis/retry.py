"""POST /v2/cloudstore/retry-failed (named-endpoints 7.7, DESIGN section 15)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema

from core.access import KNOWLEDGE_WRITE
from core.api.envelopes import v2_response
from core.api.schema import V2DetailSerializer, V2ValidationErrorSerializer, v2_envelope
from core.api.validation import validated
from core.api.views import TenantAPIView
from core.audit import actor_of
from ingestion.apis.shapes import RetryFailedInput, RetryQueuedOutput
from ingestion.services.retry import failed_files_retry
from knowledge.selectors import vectordb_tenant_check


class RetryFailedApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="cloudstore_retry_failed",
        summary="Ingest failed files again",
        request=RetryFailedInput,
        responses={
            202: v2_envelope("RetryQueuedEnvelope", RetryQueuedOutput(), with_message=True),
            422: OpenApiResponse(V2ValidationErrorSerializer, description="A field failed validation."),
            503: OpenApiResponse(V2DetailSerializer, description="The job queue is unavailable."),
        },
        tags=["ingestion"],
        description="Queues a retry run for the named failed files of the platform (`file_ids` as "
        "the failed-files listing gives them; none: every failed file of the platform), one run per "
        "configuration that recorded them. A success removes a file's record; a renewed failure "
        "adds one to its `retry_count`. Unknown ids are skipped and counted.",
    )
    def post(self, request):
        data = validated(RetryFailedInput, request.data)
        vectordb_tenant_check(tenant=self.tenant, tenant_id=data["vectordb_config"]["tenant_id"])
        result = failed_files_retry(
            tenant=self.tenant,
            platform=data["platform_type"],
            file_ids=data.get("file_ids"),
            actor=actor_of(request),
            request_id=request.request_id,
        )
        runs = [run.public_id for run in result.runs]
        data = {
            "sync_run_id": runs[0] if runs else None,
            "sync_run_ids": runs,
            "queued": result.queued,
            "skipped": result.skipped,
        }
        noun = "file" if result.queued == 1 else "files"
        return v2_response(data, message=f"Queued {result.queued} {noun} for another attempt.", status=202)
