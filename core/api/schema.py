"""OpenAPI: the envelopes of the three families, their error bodies, the tenant header and the
security schemes, added in one place so every view's schema tells the truth about its answers."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, extend_schema_serializer, inline_serializer
from rest_framework import serializers

from core.api.families import Family, family_for_path
from core.api.views import TenantAPIView

# Ids as core.api.ids parses them: `<prefix><uuid>` or the bare UUID (any case), and for the tool
# hub's `conn_` / `apr_` the prefix before the 32 hex digits the API shows.
UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


def id_pattern(prefix: str = "", *, hex_digits: bool = False) -> str:
    if hex_digits:
        return f"^(?:{prefix}[0-9a-fA-F]{{32}}|{UUID_PATTERN})$"
    return f"^(?:{prefix})?{UUID_PATTERN}$" if prefix else f"^{UUID_PATTERN}$"


# Path parameter -> what the server takes there (each view parses it with core.api.ids); another
# value is a 400 (/api/v1) or 422 (/v2), never a lookup.
PATH_ID_PATTERNS = {
    "approval_id": id_pattern("apr_", hex_digits=True),
    "oauth_client_id": id_pattern("client-"),
    "configuration_id": id_pattern("scfg-"),
    "connection_id": id_pattern("conn_", hex_digits=True),
    "credential_id": id_pattern("cred-"),
    "key_id": id_pattern(),
    "realm_id": id_pattern("realm-"),
    "rotation_id": id_pattern("rot-"),
    "rule_id": id_pattern("srule-"),
    "tenant_id": id_pattern(),
    "job_name": "^[A-Za-z][A-Za-z0-9]{0,63}$",
}


NO_CONTROL = "^[^\\x00-\\x1f]*$"  # no control characters (identity.apis.fields.has_control)


CLOSED = "x-closed"


def closed_input(serializer_class):
    """Mark a request serializer whose every undeclared field is refused (core.api.validation's
    `reject_unknown`): its schema gets `additionalProperties: false` (`closed_objects`)."""
    return extend_schema_serializer(extensions={CLOSED: True})(serializer_class)


ONE_OF = "x-one-of"


def one_of(*branches: dict):
    """Mark a request serializer whose fields' rules depend on one another (`validate` refuses the
    rest): its schema says `oneOf` these branches, each a JSON schema of the same object
    (`closed_objects`). The branches must exclude each other."""
    return extend_schema_serializer(extensions={ONE_OF: list(branches)})


def closed_objects(result, generator, request, public):
    """drf-spectacular post-processing hook: the objects marked by `closed_input` are closed, and
    those marked by `one_of` get their `oneOf`."""
    for schema in result.get("components", {}).get("schemas", {}).values():
        if schema.pop(CLOSED, False):
            schema["additionalProperties"] = False
        branches = schema.pop(ONE_OF, None)
        if branches:
            schema["oneOf"] = branches
    return result


NO_NUL = "^[^\\x00]*$"
# A `CharField` trims whitespace and refuses a blank value: a character that is not whitespace.
NOT_BLANK = "^[^\\x00]*[^\\x00\\s][^\\x00]*$"


def no_nul_strings(result, generator, request, public):
    """drf-spectacular post-processing hook: a request body's free text holds no NUL character (every
    Django REST framework `CharField` refuses one, and `holds_nul` in JSON values), so each string of
    a serializer's request body without a pattern, an enum or a format gets `NO_NUL`, or `NOT_BLANK`
    when it has a `minLength` (a trimmed `CharField` that refuses blank; `UntrimmedText` says
    `NO_NUL` itself). /mcp's JSON-RPC body is not a serializer's: its strings may hold anything."""
    schemas = result.get("components", {}).get("schemas", {})
    seen: set[str] = set()

    def visit(node):
        if isinstance(node, list):
            for item in node:
                visit(item)
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref", "")
        if ref.startswith("#/components/schemas/"):
            name = ref.rsplit("/", 1)[1]
            if name not in seen:
                seen.add(name)
                visit(schemas.get(name))
            return
        if node.get("type") == "string" and not {"pattern", "enum", "format"} & node.keys():
            node["pattern"] = NOT_BLANK if node.get("minLength", 0) > 0 else NO_NUL
        for key, value in node.items():
            if key not in ("example", "examples", "default", "enum"):
                visit(value)

    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict):
                for media in operation.get("requestBody", {}).get("content", {}).values():
                    if "$ref" in media.get("schema", {}):  # a serializer's (not /mcp's JSON-RPC)
                        visit(media["schema"])
    return result


def page_parameters(*, max_limit: int = 100, default: str = "50") -> list[OpenApiParameter]:
    """`limit` and `offset` as core.api.pagination reads them (bounds included)."""
    return [
        OpenApiParameter(
            "limit",
            {"type": "integer", "minimum": 1, "maximum": max_limit},
            description=f"Page size, 1..{max_limit} (default {default}).",
        ),
        OpenApiParameter(
            "offset",
            {"type": "integer", "minimum": 0, "maximum": 10**9},
            description="Items to skip (default 0).",
        ),
    ]


def text_parameter(name: str, description: str = "", *, pattern: str = "", max_length: int = 255):
    """A query filter: absent means none; given, a non-empty value (an empty one is a 400/422)."""
    schema: dict = {"type": "string", "minLength": 1, "maxLength": max_length}
    if pattern:
        schema = {"type": "string", "pattern": pattern}
    return OpenApiParameter(name, schema, description=description)


TENANT_HEADER = OpenApiParameter(
    name="x-tenantid",
    type=str,
    location=OpenApiParameter.HEADER,
    required=True,
    description="UUID of the tenant the call acts in; the principal must belong to it.",
)


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.DictField(help_text="Field name to message for validation errors.")


class ErrorEnvelopeSerializer(serializers.Serializer):
    success = serializers.BooleanField(default=False)
    error = ErrorDetailSerializer()
    timestamp = serializers.CharField()

    class Meta:
        ref_name = "ErrorEnvelope"


class ToolErrorEnvelopeSerializer(serializers.Serializer):
    success = serializers.BooleanField(default=False)
    error = ErrorDetailSerializer()
    request_id = serializers.CharField()

    class Meta:
        ref_name = "ToolErrorEnvelope"


class V2FieldErrorSerializer(serializers.Serializer):
    loc = serializers.ListField(child=serializers.JSONField())
    msg = serializers.CharField()
    type = serializers.CharField()


class V2ValidationErrorSerializer(serializers.Serializer):
    detail = V2FieldErrorSerializer(many=True)

    class Meta:
        ref_name = "HTTPValidationError"


class V2DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()

    class Meta:
        ref_name = "HTTPErrorDetail"


class PaginationSerializer(serializers.Serializer):
    """`pagination` inside a list's `data` (config/api/pagination.py)."""

    total = serializers.IntegerField()
    limit = serializers.IntegerField()
    offset = serializers.IntegerField()
    hasMore = serializers.BooleanField()

    class Meta:
        ref_name = "Pagination"


def v1_envelope(name: str, data) -> serializers.Serializer:
    """The /api/v1 success body around `data` (a serializer instance or field)."""
    return inline_serializer(
        name=name,
        fields={
            "success": serializers.BooleanField(),
            "message": serializers.CharField(),
            "data": data,
            "timestamp": serializers.CharField(),
        },
    )


def v2_envelope(name: str, data, *, with_message: bool = False) -> serializers.Serializer:
    fields = {"success": serializers.BooleanField()}
    if with_message:
        fields["message"] = serializers.CharField()
    fields |= {"data": data, "timestamp": serializers.CharField()}
    return inline_serializer(name=name, fields=fields)


def tool_envelope(name: str, data, **extra) -> serializers.Serializer:
    return inline_serializer(
        name=name,
        fields={
            "success": serializers.BooleanField(),
            "data": data,
            **extra,
            "request_id": serializers.CharField(),
        },
    )


_DESCRIPTIONS = {
    "400": "Bad request: malformed body, missing field, wrong type or invalid parameter.",
    "401": "Missing or invalid credentials.",
    "403": "The principal may not do this in this tenant.",
    "404": "No such object in this tenant.",
    "405": "Method not allowed.",
    "409": "Conflict with the current state.",
    "413": "Request body too large.",
    "414": (
        "Request line over 8190 bytes: refused by the web server before the path is read, so in the "
        "/api/v1 error envelope (code URI_TOO_LONG) whatever the path."
    ),
    "415": "Unsupported content type.",
    "422": "A value failed validation.",
    "429": "Rate limited; see Retry-After.",
    "503": "A dependency is unavailable.",
}


class ApiAutoSchema(AutoSchema):
    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        if isinstance(self.view, TenantAPIView):
            parameters.append(TENANT_HEADER)
        return parameters

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is not None:
            operation["responses"] = self._with_error_responses(operation["responses"])
            for parameter in operation.get("parameters", []):
                pattern = PATH_ID_PATTERNS.get(parameter["name"])
                if parameter["in"] == "path" and pattern:
                    parameter["schema"] = {"type": "string", "pattern": pattern}
            body = self.get_request_serializer() if self.method == "DELETE" else None
            if body is not None:
                # drf-spectacular documents no DELETE body; a view that declares one requires it.
                ref = self.resolve_serializer(body, "request").ref
                operation["requestBody"] = {
                    "content": {"application/json": {"schema": ref}},
                    "required": True,
                }
        return operation

    def get_request_serializer(self):
        if self.method == "DELETE":
            return None  # not guessed: a DELETE has the body its `extend_schema(request=...)` declares
        return super().get_request_serializer()

    def _with_error_responses(self, responses: dict) -> dict:
        """The operation's documented answers plus the error answers every operation of its kind can
        give, each in its family's shape (DESIGN section 4)."""
        responses = dict(responses)
        codes = ["400", "405", "414", "415"]
        if self.method in ("POST", "PUT", "PATCH"):
            codes += ["413", "422"]
        if isinstance(self.view, TenantAPIView):
            codes += ["401", "403", "429"]
            if "{" in self.path:
                codes.append("404")
            if self.method in ("POST", "PATCH", "PUT", "DELETE"):
                codes.append("409")  # duplicates, second deletes, a rotation already running
        elif self.method == "POST":
            codes += ["401", "429"]  # the token endpoints: bad client or user credentials, login limits
        for code in codes:
            if code not in responses:
                responses[code] = self._error_response(code)
        return dict(sorted(responses.items()))

    def _error_response(self, code: str) -> dict:
        # gunicorn refuses a 414 before the path is read: the /api/v1 envelope (config/gunicorn.py).
        family = Family.V1 if code == "414" else family_for_path(self.path)
        if family is Family.V2:
            serializer = V2ValidationErrorSerializer if code == "422" else V2DetailSerializer
            if code == "422":
                body = self.resolve_serializer(serializer, "response").ref
                other = self.resolve_serializer(V2DetailSerializer, "response").ref
                schema = {"oneOf": [body, other]}
                return {
                    "content": {"application/json": {"schema": schema}},
                    "description": _DESCRIPTIONS[code],
                }
        elif family is Family.TOOL:
            serializer = ToolErrorEnvelopeSerializer
        else:
            serializer = ErrorEnvelopeSerializer
        ref = self.resolve_serializer(serializer, "response").ref
        return {"content": {"application/json": {"schema": ref}}, "description": _DESCRIPTIONS[code]}


class UntrimmedTextSchema(OpenApiSerializerFieldExtension):
    """`core.api.fields.UntrimmedText`: its lengths, and any text without a NUL character (spaces
    alone are a value)."""

    target_class = "core.api.fields.UntrimmedText"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        field = self.target
        schema: dict = {"type": "string", "pattern": NO_NUL}
        if not field.allow_blank:
            schema["minLength"] = 1
        if field.max_length is not None:
            schema["maxLength"] = field.max_length
        return schema


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "identity.authentication.ApiKeyAuthentication"
    name = ["ApiKeyHeader", "ApiKeyBearer"]

    def get_security_requirement(self, auto_schema):
        return [{"ApiKeyHeader": []}, {"ApiKeyBearer": []}]

    def get_security_definition(self, auto_schema):
        return [
            {"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "ak_live_… / ak_test_…"},
            {
                "type": "http",
                "scheme": "bearer",
                "description": "An API key or an oat_… OAuth token as Bearer.",
            },
        ]


class JwtScheme(OpenApiAuthenticationExtension):
    target_class = "identity.authentication.JwtAuthentication"
    name = "JWT"
    priority = 1

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
