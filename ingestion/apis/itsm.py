"""/v2/itsmplatform ingestion (named-endpoints 7.4, DESIGN section 15): upload knowledge bases (and
its alias kb-upload), the runs' status (kb-status), and delete by URL or by knowledge base (and its
alias kb-delete). The upload's credentials are kept in the vault for the configuration."""

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
from ingestion.apis.shapes import ItsmDeleteInput, ItsmUploadInput
from ingestion.models import Platform
from ingestion.services.configurations import PlatformAccount, UploadRequest
from vault.models import Credential

UPLOAD_DESCRIPTION = (
    "Creates a sync configuration for the knowledge bases (none: every one the account reads) or "
    "runs the one `sync_config.sync_configuration_id` names, and queues a run: the published "
    "articles with their attachments, each article's text made of its title, `text` and the "
    "`article_query_names` fields. OAuth (refresh token, else the password grant) when the body "
    "gives a client id and secret, HTTP Basic otherwise. The credentials are kept in the vault for "
    "the configuration. Answers at once, before any call to the platform."
)


class ItsmUploadApi(UploadView):
    access = KNOWLEDGE_WRITE
    body = ItsmUploadInput

    @extend_schema(
        operation_id="itsmplatform_upload",
        summary="Ingest knowledge articles into the tenant's knowledge base",
        request=ItsmUploadInput,
        responses=STARTED_RESPONSES,
        tags=["ingestion"],
        description=UPLOAD_DESCRIPTION,
    )
    def post(self, request):
        return super().post(request)

    def upload_of(self, data: dict) -> UploadRequest:
        auth = data["authorization"]
        guard_field(("authorization", "itsmplatform_domain"), f"https://{auth['itsmplatform_domain']}")
        account = PlatformAccount(
            auth_type=Credential.AuthType.CUSTOM if auth["client_id"] else Credential.AuthType.BASIC_AUTH,
            metadata={
                "itsmplatform_domain": auth["itsmplatform_domain"],
                "username": auth["username"],
                "client_id": auth["client_id"],
            },
            secrets={
                name: auth[name] for name in ("password", "client_secret", "refresh_token") if auth[name]
            },
        )
        bases = list(dict.fromkeys(data.get("knowledge_bases") or []))
        return UploadRequest(
            platform=Platform.ITSMPLATFORM,
            scope={
                "knowledge_bases": bases,
                "article_query_names": list(dict.fromkeys(data.get("article_query_names") or [])),
            },
            content_restriction=data.get("content_restriction"),
            account=account,
            name=f"itsmplatform {auth['itsmplatform_domain']}: "
            + (f"{len(bases)} knowledge bases" if bases else "every knowledge base"),
            **sync_fields(data),
        )


class ItsmKbUploadApi(ItsmUploadApi):
    @extend_schema(
        operation_id="itsmplatform_kb_upload",
        summary="Ingest knowledge articles (alias of /v2/itsmplatform/upload)",
        request=ItsmUploadInput,
        responses=STARTED_RESPONSES,
        tags=["ingestion"],
        description=UPLOAD_DESCRIPTION,
    )
    def post(self, request):
        return super().post(request)


class ItsmStatusApi(StatusView):
    platform = Platform.ITSMPLATFORM

    @status_schema("itsmplatform_kb_status", "itsmplatform")
    def get(self, request):
        return super().get(request)


DELETE_SCHEMA = {
    "request": ItsmDeleteInput,
    "responses": {
        200: DOCUMENTS_DELETED,
        **DELETE_RESPONSES,
    },
    "tags": ["ingestion"],
    "description": "Removes the tenant's IT-service documents at `source_url` or beneath it, or every "
    "document of `knowledge_bases` (give one of the two), with their vectors. Irreversible.",
}


class ItsmDeleteApi(DeleteView):
    body = ItsmDeleteInput
    platform = Platform.ITSMPLATFORM
    field, key = "knowledge_bases", "knowledge_base"

    @extend_schema(
        operation_id="itsmplatform_delete", summary="Delete ingested knowledge articles", **DELETE_SCHEMA
    )
    def post(self, request):
        return self.remove(request)


class ItsmKbDeleteApi(ItsmDeleteApi):
    @extend_schema(
        operation_id="itsmplatform_kb_delete",
        summary="Delete ingested knowledge articles (alias of /v2/itsmplatform/delete)",
        **DELETE_SCHEMA,
    )
    def post(self, request):
        return super().post(request)


class ItsmIngestApi(IngestView):
    platform = Platform.ITSMPLATFORM

    @ingest_schema("itsmplatform_ingest")
    def post(self, request):
        return super().post(request)
