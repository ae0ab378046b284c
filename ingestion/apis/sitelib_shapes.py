"""The bodies of the /v2/sitelib ingestion endpoints: what they take and what they answer."""

from __future__ import annotations

from django.utils.dateparse import parse_datetime
from rest_framework import serializers

from config.api.ids import prefixed_uuid
from ingestion.models import SYNC_CONFIGURATION_PREFIX, SyncRun
from knowledge.apis import ContentRestrictionSerializer, HttpUrlField, VectordbConfigSerializer

MAX_ITEMS = 500


class BlankIsNoneField(serializers.CharField):
    """A string field where `""` (which the contract allows) means "not given"."""

    def __init__(self, **kwargs):
        super().__init__(max_length=64, allow_blank=True, **kwargs)

    def run_validation(self, data=serializers.empty):
        value = super().run_validation(data)  # a blank string stops there, before to_internal_value
        return None if value in ("", None) else self.parse(value)

    def parse(self, value: str):
        return value


class SyncConfigurationIdField(BlankIsNoneField):
    """`scfg-<uuid>` (or the bare UUID)."""

    def parse(self, value: str):
        found = prefixed_uuid(value, SYNC_CONFIGURATION_PREFIX)
        if found is None:
            message = "value is not a valid sync configuration id"
            raise serializers.ValidationError(message, code="type_error.uuid")
        return found


class IsoDateTimeField(BlankIsNoneField):
    """An ISO 8601 date-time."""

    def parse(self, value: str):
        try:
            moment = parse_datetime(value)
        except ValueError:
            moment = None
        if moment is None:
            raise serializers.ValidationError("invalid datetime format", code="value_error.datetime")
        return moment


class SyncConfigInput(serializers.Serializer):
    sync_configuration_id = SyncConfigurationIdField(required=False, default=None)
    incremental = serializers.BooleanField(help_text="true: only items changed since `last_sync`.")
    last_sync = IsoDateTimeField(required=False, default=None, help_text="Overrides the stored `last_sync`.")
    processor_mode = serializers.ChoiceField(choices=["auto", "manual"])
    use_ocr = serializers.BooleanField()

    class Meta:
        ref_name = "SyncConfig"


class SyncConfigDeleteInput(SyncConfigInput):
    use_ocr = serializers.BooleanField(required=False)

    class Meta:
        ref_name = "SyncConfigOfDelete"


def _list(child=None, **kwargs) -> serializers.ListField:
    child = child or serializers.CharField(max_length=2048)
    return serializers.ListField(child=child, required=False, max_length=MAX_ITEMS, **kwargs)


class SitelibUploadInput(serializers.Serializer):
    sitelib_auth = serializers.BooleanField()
    integrationId = serializers.CharField(  # the contract's spelling
        max_length=255,
        required=False,
        help_text="The vault credential holding the app registration; default `sitelib-<platform_domain>`.",
    )
    content_restriction = ContentRestrictionSerializer(required=False)
    blacklisted = serializers.BooleanField(required=False, default=False)
    source_restriction = serializers.BooleanField(required=False, default=False)
    vectordb_config = VectordbConfigSerializer()
    sync_config = SyncConfigInput()
    job_id = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")
    site_urls = _list(HttpUrlField())
    sub_sites = _list()
    drives = _list(help_text="Library names or drive ids.")
    folders = _list(help_text="Server-relative folder paths (or names, ids); `*` for every root folder.")
    pages = _list()

    class Meta:
        ref_name = "SitelibUploadInput"


class SitelibIngestInput(serializers.Serializer):
    sync_configuration_id = SyncConfigurationIdField()
    incremental = serializers.BooleanField(required=False, default=True)

    class Meta:
        ref_name = "SitelibIngestInput"

    def validate_sync_configuration_id(self, value):
        if value is None:
            raise serializers.ValidationError("field required", code="required")
        return value


class RunStartedOutput(serializers.Serializer):
    job_id = serializers.CharField()
    sync_run_id = serializers.CharField()
    sync_configuration_id = serializers.CharField()
    status = serializers.CharField()

    class Meta:
        ref_name = "SyncRunStarted"


class SyncRunOutput(serializers.Serializer):
    sync_run_id = serializers.CharField()
    sync_configuration_id = serializers.CharField()
    job_id = serializers.CharField()
    platform_type = serializers.CharField()
    kind = serializers.ChoiceField(choices=SyncRun.Kind.values)
    status = serializers.ChoiceField(choices=SyncRun.Status.values)
    incremental = serializers.BooleanField()
    window_start = serializers.CharField(allow_null=True)
    window_end = serializers.CharField(allow_null=True)
    discovered = serializers.IntegerField()
    processed = serializers.IntegerField()
    succeeded = serializers.IntegerField()
    skipped = serializers.IntegerField(help_text="Unchanged since the last run, or excluded by a rule.")
    failed = serializers.IntegerField(help_text="Each has a failed-file record (cloudstore/failed-files).")
    chunks_written = serializers.IntegerField()
    vectors_removed = serializers.IntegerField()
    error = serializers.CharField(help_text="Why the run as a whole failed or stopped; empty otherwise.")
    queued_at = serializers.CharField()
    started_at = serializers.CharField(allow_null=True)
    finished_at = serializers.CharField(allow_null=True)

    class Meta:
        ref_name = "SyncRunRecord"


class SitelibDeleteInput(serializers.Serializer):
    source_url = HttpUrlField(
        help_text="A document's URL, or a folder's, drive's or site's: everything under it."
    )
    vectordb_config = VectordbConfigSerializer()
    sync_config = SyncConfigDeleteInput()

    class Meta:
        ref_name = "SitelibDeleteInput"


class SourceDeletedOutput(serializers.Serializer):
    source_url = serializers.CharField()
    documents_deleted = serializers.IntegerField()
    vectors_removed = serializers.IntegerField()
    deleted_at = serializers.CharField()

    class Meta:
        ref_name = "SourceDeleted"
