"""/v2/sync-configurations: what a tenant ingests, for the people who run it. List and read
configurations, schedule or rename them (`interval_minutes`, run by the dataSync job), "Stop Sync"
(no more scheduled runs; what was ingested stays), delete one with everything it ingested, and
read its items' readers again (a permissions pass, DESIGN section 19).

Beyond the contract (it names the console's actions, not an endpoint); docs/ingestion.md.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers

from core.access import KNOWLEDGE_VIEW, KNOWLEDGE_WRITE
from core.api.envelopes import v2_response
from core.api.fields import StrictBooleanField, StrictCharField, StrictChoiceField, StrictIntegerField
from core.api.ids import prefixed_uuid
from core.api.schema import V2DetailSerializer, V2ValidationErrorSerializer, v2_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantAPIView
from core.audit import actor_of
from ingestion.apis.params import query_error
from ingestion.apis.runs import STARTED_RESPONSES, run_started
from ingestion.models import SYNC_CONFIGURATION_PREFIX, Platform, SyncConfiguration
from ingestion.selectors import sync_configuration_get
from ingestion.services.configurations import (
    permissions_pass,
    sync_configuration_change,
    sync_configuration_delete,
    sync_configuration_stop,
)


class SyncConfigurationOutput(serializers.Serializer):
    sync_configuration_id = StrictCharField()
    platform_type = StrictChoiceField(choices=Platform.values)
    name = StrictCharField()
    platform_domain = StrictCharField()
    integration_id = StrictCharField(help_text="The vault credential its runs use (no secret here).")
    scope = serializers.DictField()
    content_restriction = serializers.DictField()
    use_ocr = StrictBooleanField()
    processor_mode = StrictCharField()
    interval_minutes = StrictIntegerField(allow_null=True)
    enabled = StrictBooleanField()
    last_sync = StrictCharField(allow_null=True)
    created_at = StrictCharField()

    class Meta:
        ref_name = "SyncConfiguration"


class SyncConfigurationChangeInput(serializers.Serializer):
    name = StrictCharField(max_length=255, required=False)
    interval_minutes = StrictIntegerField(
        min_value=5,
        max_value=60 * 24 * 31,
        allow_null=True,
        required=False,
        help_text="Run every this many minutes (5 minutes to 31 days); null: on request only.",
    )
    enabled = StrictBooleanField(required=False, help_text="false is Stop Sync; true resumes the schedule.")

    class Meta:
        ref_name = "SyncConfigurationChange"


def configuration_record(configuration: SyncConfiguration) -> dict:
    return {
        "sync_configuration_id": configuration.public_id,
        "platform_type": configuration.platform,
        "name": configuration.name,
        "platform_domain": configuration.platform_domain,
        "integration_id": configuration.integration_id,
        "scope": configuration.scope,
        "content_restriction": configuration.content_restriction,
        "use_ocr": configuration.use_ocr,
        "processor_mode": configuration.processor_mode,
        "interval_minutes": configuration.interval_minutes,
        "enabled": configuration.enabled,
        "last_sync": iso_ms(configuration.last_sync),
        "created_at": iso_ms(configuration.created_at),
    }


def _configuration(view: TenantAPIView, raw: str) -> SyncConfiguration:
    found_id = prefixed_uuid(raw, SYNC_CONFIGURATION_PREFIX)
    return sync_configuration_get(tenant=view.tenant, configuration_id=found_id)


PERMISSIONS_STARTED = "Permissions pass started"
ONE = v2_envelope("SyncConfigurationEnvelope", SyncConfigurationOutput())
NOT_FOUND = OpenApiResponse(V2DetailSerializer, "No such configuration of the tenant.")


class SyncConfigurationListApi(TenantAPIView):
    access = KNOWLEDGE_VIEW

    @extend_schema(
        operation_id="sync_configurations_list",
        summary="The tenant's sync configurations",
        parameters=[
            OpenApiParameter("platform_type", str, enum=Platform.values, description="Only this platform's.")
        ],
        responses={
            200: v2_envelope(
                "SyncConfigurationsEnvelope",
                inline_serializer(
                    name="SyncConfigurations",
                    fields={
                        "configurations": SyncConfigurationOutput(many=True),
                        "total": StrictIntegerField(),
                    },
                ),
            ),
            422: OpenApiResponse(V2ValidationErrorSerializer, "Unknown platform_type."),
        },
        tags=["ingestion"],
        description="Newest first.",
    )
    def get(self, request):
        rows = SyncConfiguration.objects.for_tenant(self.tenant).order_by("-created_at")
        platform = request.query_params.get("platform_type")
        if platform is not None:
            if platform not in Platform.values:
                raise query_error(
                    "platform_type", f"must be one of {', '.join(Platform.values)}", "type_error.enum"
                )
            rows = rows.filter(platform=platform)
        records = [configuration_record(row) for row in rows]
        return v2_response({"configurations": records, "total": len(records)})


class SyncConfigurationApi(TenantAPIView):
    access = {"GET": KNOWLEDGE_VIEW, "PATCH": KNOWLEDGE_WRITE, "DELETE": KNOWLEDGE_WRITE}

    @extend_schema(
        operation_id="sync_configuration_get",
        summary="One sync configuration",
        responses={200: ONE, 404: NOT_FOUND},
        tags=["ingestion"],
    )
    def get(self, request, configuration_id: str):
        return v2_response(configuration_record(_configuration(self, configuration_id)))

    @extend_schema(
        operation_id="sync_configuration_change",
        summary="Rename, schedule or switch a sync configuration on and off",
        request=SyncConfigurationChangeInput,
        responses={
            200: ONE,
            404: NOT_FOUND,
            422: OpenApiResponse(V2ValidationErrorSerializer, "A field failed validation."),
        },
        tags=["ingestion"],
        description="`interval_minutes` schedules incremental runs (the dataSync job runs what is "
        "due); `enabled: false` is Stop Sync (the active run stops at its next document, what was "
        "ingested stays).",
    )
    def patch(self, request, configuration_id: str):
        configuration = _configuration(self, configuration_id)
        changes = validated(SyncConfigurationChangeInput, request.data)
        configuration = sync_configuration_change(
            configuration=configuration,
            changes=changes,
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return v2_response(configuration_record(configuration))

    @extend_schema(
        operation_id="sync_configuration_delete",
        summary="Delete a sync configuration and everything it ingested",
        responses={
            200: v2_envelope(
                "SyncConfigurationDeletedEnvelope",
                inline_serializer(
                    name="SyncConfigurationDeleted",
                    fields={
                        "sync_configuration_id": StrictCharField(),
                        "documents_deleted": StrictIntegerField(),
                        "vectors_removed": StrictIntegerField(),
                        "failed_files_removed": StrictIntegerField(),
                        "credential_deleted": StrictBooleanField(
                            help_text="The vault credential the upload kept for it."
                        ),
                    },
                ),
                with_message=True,
            ),
            404: NOT_FOUND,
        },
        tags=["ingestion"],
        description="Removes the configuration, its runs, the documents and vectors it ingested, "
        "its files' failure records and the credential an upload kept for it. Irreversible.",
    )
    def delete(self, request, configuration_id: str):
        configuration = _configuration(self, configuration_id)
        public_id = configuration.public_id  # the row is gone after the delete
        removed = sync_configuration_delete(
            configuration=configuration, actor=actor_of(request), request_id=request.request_id
        )
        return v2_response(
            {"sync_configuration_id": public_id, **removed},
            message=f"Deleted the configuration and {removed['documents_deleted']} documents.",
        )


class SyncConfigurationStopApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="sync_configuration_stop",
        summary="Stop Sync: no more scheduled runs, the ingested knowledge stays",
        request=None,
        responses={200: ONE, 404: NOT_FOUND},
        tags=["ingestion"],
    )
    def post(self, request, configuration_id: str):
        configuration = sync_configuration_stop(
            configuration=_configuration(self, configuration_id),
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return v2_response(configuration_record(configuration))


class SyncConfigurationPermissionsApi(TenantAPIView):
    access = KNOWLEDGE_WRITE

    @extend_schema(
        operation_id="sync_configuration_permissions_sync",
        summary="Read again who may read the configuration's indexed items",
        request=None,
        responses=STARTED_RESPONSES,
        tags=["ingestion"],
        description="Queues a permissions pass (a run of kind `permissions`): every indexed item of "
        "the configuration gets the readers its platform gives it now, without being downloaded or "
        'embedded again (docs/knowledge.md, "Who sees what"). The permissionsSync job runs one '
        "at least every PERMISSIONS_RESYNC_MINUTES.",
    )
    def post(self, request, configuration_id: str):
        run = permissions_pass(
            tenant=self.tenant,
            configuration_id=prefixed_uuid(configuration_id, SYNC_CONFIGURATION_PREFIX),
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return run_started(run, PERMISSIONS_STARTED)
