"""/v2/wikispace ingestion (named-endpoints 7.5-7.6, DESIGN section 15): upload one space, its
runs' status, and delete by URL or by space. The upload's credentials are kept in the vault for
the configuration; no response, run or audit entry shows them."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema

from core.access import KNOWLEDGE_WRITE
from core.outbound import guard_field
from ingestion.apis.runs import (
    DELETE_RESPONSES,
    DOCUMENTS_DELETED,
    STARTED_RESPONSES,
    DeleteView,
    IngestView,
    StatusView,
    UploadView,
    ingest_schema,
    status_schema,
    sync_fields,
)
from ingestion.apis.shapes import WikiDeleteInput, WikiUploadInput
from ingestion.models import Platform
from ingestion.services.configurations import PlatformAccount, UploadRequest
from vault.models import Credential


class WikiUploadApi(UploadView):
    access = KNOWLEDGE_WRITE
    body = WikiUploadInput

    @extend_schema(
        operation_id="wikispace_upload",
        summary="Ingest a wiki space into the tenant's knowledge base",
        request=WikiUploadInput,
        responses=STARTED_RESPONSES,
        tags=["ingestion"],
        description="Creates a sync configuration for the space (or runs the one `sync_config."
        "sync_configuration_id` names) and queues a run: the space's pages with their attachments. "
        "The credentials are kept in the vault for the configuration (replaced by a later upload "
        "of it, removed with it). Answers at once, before any call to the wiki.",
    )
    def post(self, request):
        return super().post(request)

    def upload_of(self, data: dict) -> UploadRequest:
        auth = data["authorization"]
        guard_field(("authorization", "instance_url"), auth["instance_url"])
        guard_field(("authorization", "web_url_instance"), auth["web_url_instance"])
        account = PlatformAccount(
            auth_type=Credential.AuthType.BASIC_AUTH,
            metadata={
                "instance_url": auth["instance_url"],
                "web_url_instance": auth["web_url_instance"],
                "username": auth["username"],
            },
            secrets={"api_token": auth["api_token"]},
        )
        return UploadRequest(
            platform=Platform.WIKISPACE,
            scope={"space": data["space"]},
            content_restriction=data.get("content_restriction"),
            account=account,
            name=f"wikispace {data['space']} at {auth['web_url_instance']}",
            **sync_fields(data),
        )


class WikiStatusApi(StatusView):
    platform = Platform.WIKISPACE

    @status_schema("wikispace_status", "wikispace")
    def get(self, request):
        return super().get(request)


class WikiDeleteApi(DeleteView):
    body = WikiDeleteInput
    platform = Platform.WIKISPACE
    field, key = "space", "space_key"

    @extend_schema(
        operation_id="wikispace_delete",
        summary="Delete ingested wiki pages under a URL, or a whole space",
        request=WikiDeleteInput,
        responses={
            200: DOCUMENTS_DELETED,
            **DELETE_RESPONSES,
        },
        tags=["ingestion"],
        description="Removes the tenant's wiki documents at `source_url` or beneath it, or every "
        "document of `space` (give one of the two), with their vectors. Irreversible.",
    )
    def post(self, request):
        return self.remove(request)


class WikiIngestApi(IngestView):
    platform = Platform.WIKISPACE

    @ingest_schema("wikispace_ingest")
    def post(self, request):
        return super().post(request)
