"""/v2/sitelib ingestion (named-endpoints 7.1-7.3, DESIGN section 15): upload, status, ingest ("Sync
Now"), and the two deletes. Thin views: parse, check the body's tenant, call a service, shape."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from adminops.access import KNOWLEDGE_VIEW, KNOWLEDGE_WRITE
from adminops.audit import actor_of
from config.api.envelopes import v2_response
from config.api.schema import V2DetailSerializer, V2ValidationErrorSerializer, v2_envelope
from config.api.timestamps import iso_ms
from config.api.validation import validated
from config.api.views import TenantAPIView
from ingestion.apis.params import id_query, int_query, text_query
from ingestion.apis.sitelib_shapes import (
    RunStartedOutput,
    SitelibDeleteInput,
    SitelibIngestInput,
    SitelibUploadInput,
    SourceDeletedOutput,
    SyncRunOutput,
)
from ingestion.models import SYNC_CONFIGURATION_PREFIX, SYNC_RUN_PREFIX, Platform, SyncRun
from ingestion.selectors import sync_run_page
from ingestion.services.configurations import SCOPE_FIELDS, UploadRequest, sitelib_ingest, sitelib_upload
from ingestion.services.sources import knowledge_source_delete
from knowledge.selectors import vectordb_tenant_check

MAX_LIMIT = 100
DEFAULT_LIMIT = 50
STARTED = "Ingestion started"
COUNTERS = ("discovered", "processed", "succeeded", "skipped", "failed", "chunks_written", "vectors_removed")


def run_started(run: SyncRun):
    data = {
        "job_id": run.job_id,
        "sync_run_id": run.public_id,
        "sync_configuration_id": run.configuration.public_id,
        "status": run.status,
    }
    return v2_response(data, message=STARTED, status=202)


def run_record(run: SyncRun) -> dict:
    return {
        "sync_run_id": run.public_id,
        "sync_configuration_id": f"{SYNC_CONFIGURATION_PREFIX}{run.configuration_id}",
        "job_id": run.job_id,
        "platform_type": Platform.SITELIB,
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
    503: OpenApiResponse(V2DetailSerializer, description="The job queue is unavailable; nothing was queued."),
}


class SitelibUploadApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="sitelib_upload",
        summary="Ingest document sites into the tenant's knowledge base",
        request=SitelibUploadInput,
        responses={**STARTED_RESPONSES, 404: OpenApiResponse(V2DetailSerializer, "Unknown configuration.")},
        tags=["ingestion"],
        description="Creates a sync configuration from the body (or runs the one `sync_config."
        "sync_configuration_id` names, the body's scope replacing its own when given) and queues a "
        "run; answers at once, before any call to the platform. The app registration comes from the "
        "vault credential `integrationId` (default `sitelib-<vectordb_config.platform_domain>`).",
    )
    def post(self, request):
        data = validated(SitelibUploadInput, request.data)
        vectordb_tenant_check(tenant=self.tenant, tenant_id=data["vectordb_config"]["tenant_id"])
        run = sitelib_upload(
            tenant=self.tenant, upload=_upload(data), actor=actor_of(request), request_id=request.request_id
        )
        return run_started(run)


def _upload(data: dict) -> UploadRequest:
    sync = data["sync_config"]
    given = [name for name in SCOPE_FIELDS if name in data]
    restriction = data.get("content_restriction")
    if restriction is not None or data["blacklisted"] or data["source_restriction"]:
        restriction = dict(restriction or {"audience": []})
        # DESIGN 13.9: accepted at the top level as well as inside content_restriction.
        restriction["blacklisted"] = restriction.get("blacklisted", False) or data["blacklisted"]
        restriction["source_restriction"] = (
            restriction.get("source_restriction", False) or data["source_restriction"]
        )
    return UploadRequest(
        platform_domain=data["vectordb_config"]["platform_domain"],
        integration_id=data.get("integrationId") or None,
        scope={name: list(data.get(name) or []) for name in SCOPE_FIELDS} if given else None,
        content_restriction=restriction,
        use_ocr=sync["use_ocr"],
        processor_mode=sync["processor_mode"],
        incremental=sync["incremental"],
        last_sync=sync["last_sync"],
        sync_configuration_id=sync["sync_configuration_id"],
        job_id=data["job_id"] or None,
    )


class SitelibIngestApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="sitelib_ingest",
        summary="Run a sync configuration now",
        request=SitelibIngestInput,
        responses={**STARTED_RESPONSES, 404: OpenApiResponse(V2DetailSerializer, "Unknown configuration.")},
        tags=["ingestion"],
        description="Sync Now: queues a run of the configuration (incremental unless `incremental` "
        "is false). 409 while one of its runs is queued or running.",
    )
    def post(self, request):
        data = validated(SitelibIngestInput, request.data)
        run = sitelib_ingest(
            tenant=self.tenant,
            configuration_id=data["sync_configuration_id"],
            incremental=data["incremental"],
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return run_started(run)


class SitelibStatusApi(TenantAPIView):
    access = KNOWLEDGE_VIEW

    @extend_schema(
        operation_id="sitelib_status",
        summary="Ingestion runs and their progress",
        parameters=[
            OpenApiParameter("job_id", str, description="The upload's `job_id`."),
            OpenApiParameter("sync_run_id", str, description="`run-<uuid>`."),
            OpenApiParameter("sync_configuration_id", str, description="`scfg-<uuid>`: its runs."),
            OpenApiParameter("limit", int, description=f"1..{MAX_LIMIT} (default {DEFAULT_LIMIT})."),
            OpenApiParameter("offset", int, description="Runs to skip (default 0)."),
        ],
        responses={
            200: v2_envelope(
                "SyncRunsEnvelope",
                inline_serializer(
                    name="SyncRuns",
                    fields={"runs": SyncRunOutput(many=True), "total": serializers.IntegerField()},
                ),
            ),
            422: OpenApiResponse(
                V2ValidationErrorSerializer, description="A query parameter failed validation."
            ),
        },
        tags=["ingestion"],
        description="The tenant's sitelib runs, newest first, narrowed by the ids given (an id that "
        "matches nothing gives an empty list).",
    )
    def get(self, request):
        runs, total = sync_run_page(
            tenant=self.tenant,
            platform=Platform.SITELIB,
            limit=int_query(request, "limit", low=1, high=MAX_LIMIT) or DEFAULT_LIMIT,
            offset=int_query(request, "offset", low=0, high=10**9) or 0,
            job_id=text_query(request, "job_id"),
            run_id=id_query(request, "sync_run_id", SYNC_RUN_PREFIX),
            configuration_id=id_query(request, "sync_configuration_id", SYNC_CONFIGURATION_PREFIX),
        )
        return v2_response({"runs": [run_record(run) for run in runs], "total": total})


DELETE_SCHEMA = {
    "request": SitelibDeleteInput,
    "responses": {
        200: v2_envelope("SourceDeletedEnvelope", SourceDeletedOutput(), with_message=True),
        404: OpenApiResponse(V2DetailSerializer, description="Nothing of the tenant is indexed under it."),
        422: OpenApiResponse(V2ValidationErrorSerializer, description="A field failed validation."),
    },
    "tags": ["ingestion"],
    "description": "Removes every document of the tenant at `source_url` or beneath it (a folder, "
    "drive or site URL cascades), with its vectors. Irreversible: ingest again to restore.",
}


class SitelibDeleteApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="sitelib_delete", summary="Delete ingested documents under a URL", **DELETE_SCHEMA
    )
    def post(self, request):
        return _delete(self, request)


class SitelibSourcesApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="sitelib_sources_delete",
        summary="Delete ingested documents under a URL",
        **DELETE_SCHEMA,
    )
    def delete(self, request):
        return _delete(self, request)


def _delete(view: TenantAPIView, request):
    data = validated(SitelibDeleteInput, request.data)
    vectordb_tenant_check(tenant=view.tenant, tenant_id=data["vectordb_config"]["tenant_id"])
    deleted = knowledge_source_delete(
        tenant=view.tenant,
        source_url=data["source_url"],
        actor=actor_of(request),
        request_id=request.request_id,
    )
    noun = "document" if deleted["documents_deleted"] == 1 else "documents"
    return v2_response(deleted, message=f"Deleted {deleted['documents_deleted']} {noun}.")
