"""What the /v2 ingestion endpoints of every platform share: the answer to an upload or Sync Now,
a run as the status endpoints show it, the status view, and the answer to a delete."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from core.access import KNOWLEDGE_VIEW, KNOWLEDGE_WRITE
from core.api.envelopes import v2_response
from core.api.fields import StrictIntegerField
from core.api.schema import (
    V2DetailSerializer,
    V2ValidationErrorSerializer,
    id_pattern,
    page_parameters,
    text_parameter,
    v2_envelope,
)
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantAPIView
from core.audit import actor_of
from ingestion.apis.params import id_query, int_query, text_query
from ingestion.apis.shapes import DocumentsDeletedOutput, IngestInput, RunStartedOutput, SyncRunOutput
from ingestion.models import SYNC_CONFIGURATION_PREFIX, SYNC_RUN_PREFIX, SyncRun
from ingestion.selectors import sync_run_page
from ingestion.services.configurations import UploadRequest, sync_now, upload
from ingestion.services.sources import knowledge_documents_delete_where, knowledge_source_delete
from knowledge.selectors import vectordb_tenant_check

MAX_LIMIT = 100
DEFAULT_LIMIT = 50
STARTED = "Ingestion started"
COUNTERS = ("discovered", "processed", "succeeded", "skipped", "failed", "chunks_written", "vectors_removed")


def run_started(run: SyncRun, message: str = STARTED):
    data = {
        "job_id": run.job_id,
        "sync_run_id": run.public_id,
        "sync_configuration_id": run.configuration.public_id,
        "status": run.status,
    }
    return v2_response(data, message=message, status=202)


def run_record(run: SyncRun) -> dict:
    return {
        "sync_run_id": run.public_id,
        "sync_configuration_id": f"{SYNC_CONFIGURATION_PREFIX}{run.configuration_id}",
        "job_id": run.job_id,
        "platform_type": run.configuration.platform,
        "kind": run.kind,
        "status": run.status,
        "incremental": run.incremental,
        "window_start": iso_ms(run.window_start),
        "window_end": iso_ms(run.window_end),
        **{name: getattr(run, name) for name in COUNTERS},
        "error": run.error,
        "queued_at": iso_ms(run.queued_at),
        "started_at": iso_ms(run.started_at),
        "finished_at": iso_ms(run.finished_at),
    }


STARTED_RESPONSES = {
    202: v2_envelope("SyncRunStartedEnvelope", RunStartedOutput(), with_message=True),
    404: OpenApiResponse(V2DetailSerializer, "Unknown configuration."),
    409: OpenApiResponse(V2DetailSerializer, "A run of the configuration is already queued or running."),
    503: OpenApiResponse(V2DetailSerializer, description="The job queue is unavailable; nothing was queued."),
}


class UploadView(TenantAPIView):
    """An upload: parse the body, check its tenant, keep the configuration and queue its run."""

    body: type[serializers.Serializer]

    def post(self, request):
        data = validated(self.body, request.data)
        vectordb_tenant_check(tenant=self.tenant, tenant_id=data["vectordb_config"]["tenant_id"])
        run = upload(
            tenant=self.tenant,
            upload=self.upload_of(data),
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return run_started(run)

    def upload_of(self, data: dict) -> UploadRequest:
        raise NotImplementedError


def sync_fields(data: dict) -> dict:
    """The UploadRequest fields that every platform's body gives alike."""
    sync = data["sync_config"]
    return {
        "platform_domain": data["vectordb_config"]["platform_domain"],
        "use_ocr": sync["use_ocr"],
        "processor_mode": sync["processor_mode"],
        "incremental": sync["incremental"],
        "last_sync": sync["last_sync"],
        "sync_configuration_id": sync["sync_configuration_id"],
        "job_id": data["job_id"] or None,
    }


STATUS_PARAMETERS = [
    OpenApiParameter("job_id", {"type": "string", "maxLength": 255}, description="The upload's `job_id`."),
    text_parameter("sync_run_id", "`run-<uuid>`.", pattern=id_pattern(SYNC_RUN_PREFIX)),
    text_parameter(
        "sync_configuration_id", "`scfg-<uuid>`: its runs.", pattern=id_pattern(SYNC_CONFIGURATION_PREFIX)
    ),
    *page_parameters(max_limit=MAX_LIMIT, default=str(DEFAULT_LIMIT)),
]


STATUS_RESPONSES = {
    200: v2_envelope(
        "SyncRunsEnvelope",
        inline_serializer(
            name="SyncRuns", fields={"runs": SyncRunOutput(many=True), "total": StrictIntegerField()}
        ),
    ),
    422: OpenApiResponse(V2ValidationErrorSerializer, description="A query parameter failed validation."),
}


def status_schema(operation_id: str, platform: str):
    return extend_schema(
        operation_id=operation_id,
        summary="Ingestion runs and their progress",
        parameters=STATUS_PARAMETERS,
        responses=STATUS_RESPONSES,
        tags=["ingestion"],
        description=f"The tenant's {platform} runs, newest first, narrowed by the ids given (an id "
        "that matches nothing gives an empty list).",
    )


# "Sync Now" of a platform's configuration (`POST /v2/<platform>/ingest`): a run of it queued now,
# incremental unless the body says otherwise; 404 unknown, 422 one of another platform, 409 while a
# run of it is queued or running. (A comment: drf-spectacular would show a docstring.)
class IngestView(TenantAPIView):
    access = KNOWLEDGE_WRITE
    platform: str

    def post(self, request):
        data = validated(IngestInput, request.data)
        run = sync_now(
            tenant=self.tenant,
            configuration_id=data["sync_configuration_id"],
            platform=self.platform,
            incremental=data["incremental"],
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return run_started(run)


def ingest_schema(operation_id: str):
    return extend_schema(
        operation_id=operation_id,
        summary="Run a sync configuration now",
        request=IngestInput,
        responses=STARTED_RESPONSES,
        tags=["ingestion"],
        description="Sync Now: queues a run of the configuration (incremental unless `incremental` "
        "is false). 409 while one of its runs is queued or running; 422 for a configuration of "
        "another platform (the message names its endpoint).",
    )


class StatusView(TenantAPIView):
    access = KNOWLEDGE_VIEW
    platform: str

    def get(self, request):
        runs, total = sync_run_page(
            tenant=self.tenant,
            platform=self.platform,
            limit=int_query(request, "limit", low=1, high=MAX_LIMIT) or DEFAULT_LIMIT,
            offset=int_query(request, "offset", low=0, high=10**9) or 0,
            job_id=text_query(request, "job_id"),
            run_id=id_query(request, "sync_run_id", SYNC_RUN_PREFIX),
            configuration_id=id_query(request, "sync_configuration_id", SYNC_CONFIGURATION_PREFIX),
        )
        return v2_response({"runs": [run_record(run) for run in runs], "total": total})


def deleted_response(deleted: dict):
    noun = "document" if deleted["documents_deleted"] == 1 else "documents"
    return v2_response(deleted, message=f"Deleted {deleted['documents_deleted']} {noun}.")


class DeleteView(TenantAPIView):
    """A platform's delete: the tenant's documents at or under the body's `source_url`, or (with
    `field` set) every document of the platform whose metadata `key` is one of the body's `field`
    values (a wiki `space`, `knowledge_bases`)."""

    access = KNOWLEDGE_WRITE
    body: type[serializers.Serializer]
    platform: str = ""
    field: str = ""
    key: str = ""

    def remove(self, request):
        data = validated(self.body, request.data)
        vectordb_tenant_check(tenant=self.tenant, tenant_id=data["vectordb_config"]["tenant_id"])
        who = {"actor": actor_of(request), "request_id": request.request_id}
        if not self.field or data.get("source_url"):
            return deleted_response(
                knowledge_source_delete(tenant=self.tenant, source_url=data["source_url"], **who)
            )
        given = data[self.field]
        values = [given] if isinstance(given, str) else list(dict.fromkeys(given))
        deleted = knowledge_documents_delete_where(
            tenant=self.tenant, platform_type=self.platform, key=self.key, values=values, **who
        )
        return deleted_response({**deleted, self.field: given if isinstance(given, str) else values})


DOCUMENTS_DELETED = v2_envelope("DocumentsDeletedEnvelope", DocumentsDeletedOutput(), with_message=True)
DELETE_RESPONSES = {
    404: OpenApiResponse(V2DetailSerializer, description="Nothing of the tenant is indexed there."),
    422: OpenApiResponse(V2ValidationErrorSerializer, description="A field failed validation."),
}
