"""/v2/sitelib ingestion (named-endpoints 7.1-7.3, DESIGN section 15): upload, status, ingest ("Sync
Now"), and the two deletes. Thin views: parse, check the body's tenant, call a service, shape."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema

from core.access import KNOWLEDGE_WRITE
from core.api.schema import v2_envelope
from ingestion.apis.runs import (
    DELETE_RESPONSES,
    STARTED_RESPONSES,
    DeleteView,
    IngestView,
    StatusView,
    UploadView,
    ingest_schema,
    status_schema,
    sync_fields,
)
from ingestion.apis.shapes import (
    SitelibDeleteInput,
    SitelibUploadInput,
    SourceDeletedOutput,
)
from ingestion.models import Platform
from ingestion.services.configurations import SCOPE_FIELDS, UploadRequest


class SitelibUploadApi(UploadView):
    access = KNOWLEDGE_WRITE
    body = SitelibUploadInput

    @extend_schema(
        operation_id="sitelib_upload",
        summary="Ingest document sites into the tenant's knowledge base",
        request=SitelibUploadInput,
        responses=STARTED_RESPONSES,
        tags=["ingestion"],
        description="Creates a sync configuration from the body (or runs the one `sync_config."
        "sync_configuration_id` names, the body's scope replacing its own when given) and queues a "
        "run; answers at once, before any call to the platform. The app registration comes from the "
        "vault credential `integrationId` (default `sitelib-<vectordb_config.platform_domain>`).",
    )
    def post(self, request):
        return super().post(request)

    def upload_of(self, data: dict) -> UploadRequest:
        given = [name for name in SCOPE_FIELDS if name in data]
        restriction = data.get("content_restriction")
        if restriction is not None or data["blacklisted"] or data["source_restriction"]:
            restriction = dict(restriction or {"audience": []})
            # DESIGN 13.9: accepted at the top level as well as inside content_restriction.
            restriction["blacklisted"] = restriction.get("blacklisted", False) or data["blacklisted"]
            restriction["source_restriction"] = (
                restriction.get("source_restriction", False) or data["source_restriction"]
            )
        scope = {name: list(data.get(name) or []) for name in SCOPE_FIELDS} if given else None
        return UploadRequest(
            platform=Platform.SITELIB,
            integration_id=data.get("integrationId") or None,
            scope=scope,
            content_restriction=restriction,
            name=_name(data["vectordb_config"]["platform_domain"], scope),
            **sync_fields(data),
        )


def _name(platform_domain: str, scope: dict | None) -> str:
    sites = (scope or {}).get("site_urls") or []
    where = sites[0] if len(sites) == 1 else f"{len(sites)} sites" if sites else "every site"
    return f"sitelib {platform_domain}: {where}"


class SitelibIngestApi(IngestView):
    platform = Platform.SITELIB

    @ingest_schema("sitelib_ingest")
    def post(self, request):
        return super().post(request)


class SitelibStatusApi(StatusView):
    platform = Platform.SITELIB

    @status_schema("sitelib_status", "sitelib")
    def get(self, request):
        return super().get(request)


DELETE_SCHEMA = {
    "request": SitelibDeleteInput,
    "responses": {
        200: v2_envelope("SourceDeletedEnvelope", SourceDeletedOutput(), with_message=True),
        **DELETE_RESPONSES,
    },
    "tags": ["ingestion"],
    "description": "Removes every document of the tenant at `source_url` or beneath it (a folder, "
    "drive or site URL cascades), with its vectors. Irreversible: ingest again to restore.",
}


class SitelibDeleteApi(DeleteView):
    body = SitelibDeleteInput

    @extend_schema(
        operation_id="sitelib_delete", summary="Delete ingested documents under a URL", **DELETE_SCHEMA
    )
    def post(self, request):
        return self.remove(request)


class SitelibSourcesApi(DeleteView):
    body = SitelibDeleteInput

    @extend_schema(
        operation_id="sitelib_sources_delete",
        summary="Delete ingested documents under a URL",
        **DELETE_SCHEMA,
    )
    def delete(self, request):
        return self.remove(request)
