"""The bodies of the /v2 ingestion endpoints (document sites, wiki, IT-service platform, retry):
what they take and what they answer."""

from __future__ import annotations

from django.utils.dateparse import parse_datetime
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    UntrimmedText,
    UrlField,
)
from core.api.ids import prefixed_uuid
from core.api.schema import id_pattern, one_of
from ingestion.models import SYNC_CONFIGURATION_PREFIX, Platform, SyncRun
from knowledge.apis import (
    ContentRestrictionSerializer,
    ItsmInstanceField,
    VectordbConfigSerializer,
)

MAX_ITEMS = 500


@extend_schema_field({"type": "string", "maxLength": 64})
class BlankIsNoneField(StrictCharField):
    """A string field where `""` (which the contract allows) means "not given"."""

    def __init__(self, **kwargs):
        super().__init__(max_length=64, allow_blank=True, **kwargs)

    def run_validation(self, data=serializers.empty):
        value = super().run_validation(data)  # a blank string stops there, before to_internal_value
        return None if value in ("", None) else self.parse(value)

    def parse(self, value: str):
        return value


@extend_schema_field({"type": "string", "pattern": id_pattern(SYNC_CONFIGURATION_PREFIX)})  # or "" (blank)
class SyncConfigurationIdField(BlankIsNoneField):
    """`scfg-<uuid>` (or the bare UUID)."""

    def parse(self, value: str):
        found = prefixed_uuid(value, SYNC_CONFIGURATION_PREFIX)
        if found is None:
            message = "value is not a valid sync configuration id"
            raise serializers.ValidationError(message, code="type_error.uuid")
        return found


@extend_schema_field(
    {
        "anyOf": [
            {"type": "string", "maxLength": 0},
            {"type": "string", "format": "date-time", "maxLength": 64},
        ]
    }
)
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
    incremental = StrictBooleanField(help_text="true: only items changed since `last_sync`.")
    last_sync = IsoDateTimeField(required=False, default=None, help_text="Overrides the stored `last_sync`.")
    processor_mode = StrictChoiceField(choices=["auto", "manual"])
    use_ocr = StrictBooleanField()

    class Meta:
        ref_name = "SyncConfig"


class SyncConfigDeleteInput(SyncConfigInput):
    use_ocr = StrictBooleanField(required=False)

    class Meta:
        ref_name = "SyncConfigOfDelete"


def _list(child=None, **kwargs) -> serializers.ListField:
    child = child or StrictCharField(max_length=2048)
    return serializers.ListField(child=child, required=False, max_length=MAX_ITEMS, **kwargs)


class SitelibUploadInput(serializers.Serializer):
    sitelib_auth = StrictBooleanField()
    integrationId = StrictCharField(  # the contract's spelling
        max_length=255,
        required=False,
        help_text="The vault credential holding the app registration; default `sitelib-<platform_domain>`.",
    )
    content_restriction = ContentRestrictionSerializer(required=False)
    blacklisted = StrictBooleanField(required=False, default=False)
    source_restriction = StrictBooleanField(required=False, default=False)
    vectordb_config = VectordbConfigSerializer()
    sync_config = SyncConfigInput()
    job_id = StrictCharField(max_length=255, required=False, allow_blank=True, default="")
    site_urls = _list(UrlField())
    sub_sites = _list()
    drives = _list(help_text="Library names or drive ids.")
    folders = _list(help_text="Server-relative folder paths (or names, ids); `*` for every root folder.")
    pages = _list()

    class Meta:
        ref_name = "SitelibUploadInput"


class ConfigurationIdField(SyncConfigurationIdField):
    """A configuration's id that must be given: `""` is a missing field, so the schema has no blank."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.allow_blank = False

    def run_validation(self, data=serializers.empty):
        return None if data == "" else super().run_validation(data)


class IngestInput(serializers.Serializer):
    sync_configuration_id = ConfigurationIdField()
    incremental = StrictBooleanField(required=False, default=True)

    class Meta:
        ref_name = "IngestInput"

    def validate_sync_configuration_id(self, value):
        if value is None:
            raise serializers.ValidationError("field required", code="required")
        return value


class RunStartedOutput(serializers.Serializer):
    job_id = StrictCharField()
    sync_run_id = StrictCharField()
    sync_configuration_id = StrictCharField()
    status = StrictCharField()

    class Meta:
        ref_name = "SyncRunStarted"


class SyncRunOutput(serializers.Serializer):
    sync_run_id = StrictCharField()
    sync_configuration_id = StrictCharField()
    job_id = StrictCharField()
    platform_type = StrictCharField()
    kind = StrictChoiceField(choices=SyncRun.Kind.values)
    status = StrictChoiceField(choices=SyncRun.Status.values)
    incremental = StrictBooleanField()
    window_start = StrictCharField(allow_null=True)
    window_end = StrictCharField(allow_null=True)
    discovered = StrictIntegerField()
    processed = StrictIntegerField()
    succeeded = StrictIntegerField()
    skipped = StrictIntegerField(help_text="Unchanged since the last run, or excluded by a rule.")
    failed = StrictIntegerField(help_text="Each has a failed-file record (cloudstore/failed-files).")
    chunks_written = StrictIntegerField()
    vectors_removed = StrictIntegerField()
    error = StrictCharField(help_text="Why the run as a whole failed or stopped; empty otherwise.")
    queued_at = StrictCharField()
    started_at = StrictCharField(allow_null=True)
    finished_at = StrictCharField(allow_null=True)

    class Meta:
        ref_name = "SyncRunRecord"


class SitelibDeleteInput(serializers.Serializer):
    source_url = UrlField(
        help_text="A document's URL, or a folder's, drive's or site's: everything under it."
    )
    vectordb_config = VectordbConfigSerializer()
    sync_config = SyncConfigDeleteInput()

    class Meta:
        ref_name = "SitelibDeleteInput"


class SourceDeletedOutput(serializers.Serializer):
    source_url = StrictCharField()
    documents_deleted = StrictIntegerField()
    vectors_removed = StrictIntegerField()
    deleted_at = StrictCharField()

    class Meta:
        ref_name = "SourceDeleted"


def _secret(max_length: int = 4096, **kwargs) -> serializers.CharField:
    return UntrimmedText(max_length=max_length, **kwargs)


class WikiAuthorizationInput(serializers.Serializer):
    instance_url = UrlField(help_text="The wiki's REST API root, e.g. https://<site>/wiki.")
    web_url_instance = UrlField(help_text="The wiki's web address: documents link under it.")
    username = StrictCharField(max_length=255, help_text="User name or e-mail.")
    api_token = _secret(help_text="Kept in the vault for the configuration; never shown again.")

    class Meta:
        ref_name = "WikiAuthorization"


class WikiUploadInput(serializers.Serializer):
    authorization = WikiAuthorizationInput()
    content_restriction = ContentRestrictionSerializer(required=False)
    vectordb_config = VectordbConfigSerializer()
    sync_config = SyncConfigInput()
    space = StrictCharField(max_length=255, help_text="One space key (from the space listing).")
    job_id = StrictCharField(max_length=255, required=False, allow_blank=True, default="")

    class Meta:
        ref_name = "WikiUploadInput"


class ItsmAuthorizationInput(serializers.Serializer):
    username = StrictCharField(max_length=255)
    password = _secret()
    client_id = StrictCharField(
        max_length=255, allow_blank=True, help_text='The OAuth app; "" (with no secret): HTTP Basic.'
    )
    client_secret = _secret(allow_blank=True)
    refresh_token = _secret(16384, required=False, allow_blank=True, default="")
    itsmplatform_domain = ItsmInstanceField()

    class Meta:
        ref_name = "ItsmAuthorization"

    def validate(self, attrs):
        if bool(attrs["client_id"]) != bool(attrs["client_secret"]):
            raise serializers.ValidationError(
                {"client_secret": "give client_id and client_secret together, or neither (HTTP Basic)"},
                code="value_error",
            )
        return attrs


def _field_name(value: str) -> str:
    if not value.replace("_", "").isalnum():
        raise serializers.ValidationError(
            "a field name is letters, digits and _", code="value_error.str.regex"
        )
    return value


class ItsmUploadInput(serializers.Serializer):
    authorization = ItsmAuthorizationInput()
    vectordb_config = VectordbConfigSerializer()
    content_restriction = ContentRestrictionSerializer(required=False)
    sync_config = SyncConfigInput()
    knowledge_bases = _list(
        serializers.RegexField(r"^[0-9A-Za-z]{1,64}$", max_length=64), help_text="KB sys_ids; none: every KB."
    )
    article_query_names = _list(
        StrictCharField(max_length=80, validators=[_field_name]),
        help_text="Article fields to fetch and index besides the title and text.",
    )
    job_id = StrictCharField(max_length=255, required=False, allow_blank=True, default="")

    class Meta:
        ref_name = "ItsmUploadInput"


@one_of(
    {"required": ["source_url"], "not": {"required": ["space"]}},
    {"required": ["space"], "not": {"required": ["source_url"]}},
)
class WikiDeleteInput(serializers.Serializer):
    source_url = UrlField(required=False, help_text="A page's or attachment's URL, or a prefix of several.")
    space = StrictCharField(max_length=255, required=False, help_text="Every document of this space.")
    vectordb_config = VectordbConfigSerializer()
    sync_config = SyncConfigDeleteInput(required=False)

    class Meta:
        ref_name = "WikiDeleteInput"

    def validate(self, attrs):
        return _one_of(attrs, "source_url", "space")


@one_of(  # an empty list of knowledge bases is none
    {"required": ["source_url"], "properties": {"knowledge_bases": {"maxItems": 0}}},
    {
        "required": ["knowledge_bases"],
        "properties": {"knowledge_bases": {"minItems": 1}},
        "not": {"required": ["source_url"]},
    },
)
class ItsmDeleteInput(serializers.Serializer):
    source_url = UrlField(required=False, help_text="An article's or attachment's URL, or a prefix.")
    knowledge_bases = _list(
        serializers.RegexField(r"^[0-9A-Za-z]{1,64}$", max_length=64),
        help_text="Every document of these knowledge bases (sys_ids).",
    )
    vectordb_config = VectordbConfigSerializer()
    sync_config = SyncConfigDeleteInput(required=False)

    class Meta:
        ref_name = "ItsmDeleteInput"

    def validate(self, attrs):
        return _one_of(attrs, "source_url", "knowledge_bases")


def _one_of(attrs: dict, first: str, second: str) -> dict:
    given = [name for name in (first, second) if attrs.get(name)]
    if len(given) != 1:
        raise serializers.ValidationError(
            {first: f"give {first} or {second} (one of them)"}, code="value_error.missing"
        )
    return attrs


class DocumentsDeletedOutput(SourceDeletedOutput):
    source_url = StrictCharField(allow_null=True)
    space = StrictCharField(required=False)
    knowledge_bases = serializers.ListField(child=StrictCharField(), required=False)

    class Meta:
        ref_name = "DocumentsDeleted"


class RetryFailedInput(serializers.Serializer):
    vectordb_config = VectordbConfigSerializer()
    platform_type = StrictChoiceField(choices=Platform.values)
    file_ids = serializers.ListField(
        child=StrictCharField(max_length=1024),
        required=False,
        allow_empty=False,
        min_length=1,
        max_length=100,
        help_text="At most 100 `file_id`s of failed-file records; none: every failed file of the platform.",
    )

    class Meta:
        ref_name = "RetryFailedInput"


class RetryQueuedOutput(serializers.Serializer):
    sync_run_id = StrictCharField(allow_null=True, help_text="The retry run (the first, when several).")
    sync_run_ids = serializers.ListField(
        child=StrictCharField(), help_text="One retry run per configuration whose files are retried."
    )
    queued = StrictIntegerField(help_text="Files queued for another attempt.")
    skipped = StrictIntegerField(
        help_text="Files not queued: no failure record, no configuration of the tenant recorded it, "
        "or a run of its configuration is already queued or running."
    )

    class Meta:
        ref_name = "RetryQueued"
