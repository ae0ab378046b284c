"""Request bodies of the vault endpoints. Shape problems (missing field, wrong JSON type) are 400,
value problems (outside the set, bad format, too large) are 422: see core/api/validation.py."""

from __future__ import annotations

import base64
import binascii
import json

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.fields import (
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictRegexField,
    UntrimmedText,
    UrlField,
    holds_nul,
)
from core.api.schema import closed_input, one_of
from vault.models import Credential

AUTH_TYPES = Credential.AuthType.values
MAX_TOKEN = 16 * 1024
MAX_METADATA = 16 * 1024
MAX_EXPIRES_IN = 10 * 365 * 24 * 3600
# RFC 6749 scope-token: printable ASCII except space, '"' and '\'.
_SCOPE_CHARS = frozenset(chr(c) for c in range(0x21, 0x7F)) - {'"', "\\"}
TOKEN_FIELDS = ("accessToken", "refreshToken", "secrets", "expiresIn")


def _invalid(message: str, code: str = "value_invalid") -> serializers.ValidationError:
    return serializers.ValidationError(message, code=code)


def scopes_check(scopes: list[str]) -> list[str]:
    bad = [s for s in scopes if not s or not set(s) <= _SCOPE_CHARS]
    if bad:
        raise _invalid(
            f"Invalid scope format: {bad[0]!r}. "
            "A scope is printable ASCII without spaces, quotes or backslashes."
        )
    return scopes


def metadata_check(metadata: dict) -> dict:
    if len(json.dumps(metadata)) > MAX_METADATA:
        raise _invalid("metadata must be at most 16 KiB of JSON.")
    if holds_nul(metadata):
        raise _invalid("metadata must not contain NUL characters (\\u0000).")
    return metadata


def secrets_check(secrets: dict) -> dict:
    if len(secrets) > 50 or any(len(key) > 100 or not key for key in secrets):
        raise _invalid("secrets takes at most 50 entries with names of 1 to 100 characters.")
    return secrets


# RFC 6749 scope-token, as `scopes_check` reads it.
SCOPE_PATTERN = "^[!#-\\[\\]-~]+$"
BASE64_PATTERN = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


@extend_schema_field({"type": "string", "minLength": 1, "maxLength": 200, "pattern": SCOPE_PATTERN})
class _Scope(StrictCharField):
    def __init__(self, **kwargs):
        super().__init__(max_length=200, **kwargs)


def _token(**kwargs) -> serializers.CharField:
    return UntrimmedText(max_length=MAX_TOKEN, required=False, **kwargs)


def _secrets() -> serializers.DictField:
    return serializers.DictField(
        child=UntrimmedText(max_length=MAX_TOKEN, allow_blank=False),
        required=False,
        help_text="Other secrets (a client secret, fields of a custom credential): strings, encrypted.",
    )


def _url() -> UrlField:
    return UrlField(required=False, allow_blank=True)


@one_of(  # what `validate` refuses: a basic_auth accessToken is base64
    {"properties": {"authType": {"enum": ["basic_auth"]}, "accessToken": {"pattern": BASE64_PATTERN}}},
    {"properties": {"authType": {"enum": [t for t in AUTH_TYPES if t != Credential.AuthType.BASIC_AUTH]}}},
)
class CredentialStoreInput(serializers.Serializer):
    integrationId = StrictRegexField(
        r"^[A-Za-z0-9][A-Za-z0-9._:@~-]*$",
        max_length=255,
        error_messages={
            "invalid": "integrationId may hold letters, digits and . _ : @ ~ - (no spaces or slashes)."
        },
    )
    credentialName = StrictCharField(max_length=255)
    authType = StrictChoiceField(
        choices=AUTH_TYPES,
        error_messages={"invalid_choice": f"Invalid auth type. Allowed values: {', '.join(AUTH_TYPES)}."},
    )
    description = StrictCharField(max_length=2000, required=False, allow_blank=True, default="")
    expiresIn = StrictIntegerField(
        min_value=1, max_value=MAX_EXPIRES_IN, required=False, help_text="Seconds."
    )
    scopes = serializers.ListField(child=_Scope(), max_length=100, required=False)
    tokenEndpoint = _url()
    authorizationEndpoint = _url()
    metadata = serializers.DictField(required=False)
    accessToken = _token()
    refreshToken = _token()
    secrets = _secrets()

    class Meta:
        ref_name = "CredentialStoreInput"

    validate_scopes = staticmethod(scopes_check)
    validate_metadata = staticmethod(metadata_check)
    validate_secrets = staticmethod(secrets_check)

    def validate(self, attrs):
        auth_type = attrs["authType"]
        if auth_type == Credential.AuthType.BASIC_AUTH and "accessToken" in attrs:
            try:
                base64.b64decode(attrs["accessToken"], validate=True)
            except (binascii.Error, ValueError):
                raise serializers.ValidationError(
                    {"accessToken": "For basic_auth, accessToken is the base64 of 'username:password'."},
                    code="value_invalid",
                ) from None
        return attrs


@extend_schema_field({"type": "string", "enum": ["active", "inactive"]})  # inline: no named enum
class StatusText(StrictCharField):
    """A credential's status as PATCH takes it (`validate_status` words the refusal)."""


@closed_input
class CredentialUpdateInput(serializers.Serializer):
    credentialName = StrictCharField(max_length=255, required=False)
    description = StrictCharField(max_length=2000, required=False, allow_blank=True)
    scopes = serializers.ListField(child=_Scope(), max_length=100, required=False)
    metadata = serializers.DictField(required=False)
    status = StatusText(required=False, help_text="active or inactive")

    class Meta:
        ref_name = "CredentialUpdateInput"

    validate_scopes = staticmethod(scopes_check)
    validate_metadata = staticmethod(metadata_check)

    @staticmethod
    def validate_status(value: str) -> str:
        # A plain string field (not a ChoiceField): its enum would collide with other "status" enums.
        if value not in ("active", "inactive"):
            raise _invalid("Invalid status. Allowed values: active, inactive.")
        return value

    def validate(self, attrs):
        sent = [name for name in TOKEN_FIELDS if name in self.initial_data]
        if sent:
            raise serializers.ValidationError(
                {
                    name: "Tokens and secrets cannot be changed here; "
                    "use POST /api/v1/credentials/{credentialId}/rotate."
                    for name in sent
                },
                code="value_invalid",
            )
        return attrs


class CredentialRotateInput(serializers.Serializer):
    accessToken = _token()
    refreshToken = _token()
    secrets = _secrets()
    expiresIn = StrictIntegerField(
        min_value=1, max_value=MAX_EXPIRES_IN, required=False, help_text="Seconds."
    )

    class Meta:
        ref_name = "CredentialRotateInput"

    validate_secrets = staticmethod(secrets_check)


class DekRotateInput(serializers.Serializer):
    tenantId = serializers.UUIDField(error_messages={"invalid": "tenantId must be a tenant UUID."})

    class Meta:
        ref_name = "DekRotateInput"
