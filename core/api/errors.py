"""Errors are types with stable codes. Application code raises them; one handler renders them.

Views never build error bodies: `core.api.exception_handler` turns every `ApiError` into the
shape of the request's family (the /api/v1 envelope, the /v2 FastAPI detail, the tool envelope).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import InterfaceError, OperationalError


class ApiError(Exception):
    status_code = 400
    code = "BAD_REQUEST"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: dict | None = None,
        status: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = {} if details is None else details
        self.headers = headers or {}
        if code is not None:
            self.code = code
        if status is not None:
            self.status_code = status


class NotAuthenticated(ApiError):
    status_code = 401
    code = "UNAUTHORIZED"

    def __init__(self, message: str = "Authentication credentials were not provided or are invalid.", **kw):
        super().__init__(message, **kw)


class Forbidden(ApiError):
    status_code = 403
    code = "FORBIDDEN"


class TenantRequired(ApiError):
    status_code = 400
    code = "TENANT_REQUIRED"

    def __init__(self) -> None:
        super().__init__("The x-tenantid header is required.")


class InvalidParameter(ApiError):
    status_code = 400
    code = "INVALID_PARAMETER"


class ResourceNotFound(ApiError):
    status_code = 404
    code = "NOT_FOUND"


class Conflict(ApiError):
    status_code = 409
    code = "CONFLICT"


class PayloadTooLarge(ApiError):
    status_code = 413
    code = "PAYLOAD_TOO_LARGE"


class RateLimited(ApiError):
    status_code = 429
    code = "RATE_LIMITED"

    def __init__(self, message: str = "Rate limit exceeded.", *, wait: int, details: dict | None = None):
        super().__init__(message, details=details, headers={"Retry-After": str(max(1, int(wait)))})
        self.wait = wait


class ServiceUnavailable(ApiError):
    status_code = 503
    code = "SERVICE_UNAVAILABLE"


def is_outage(exc: BaseException | None) -> bool:
    """A lost or refused database connection: the service is unavailable, not broken (503, not 500)."""
    return isinstance(exc, OperationalError | InterfaceError)


@dataclass(frozen=True)
class FieldError:
    """One field's problem, described once and rendered in each family's words.

    `shape` errors (missing field, wrong JSON type, malformed JSON) are 400 on /api/v1; value errors
    (outside its set, bad format) are 422. /v2 answers 422 for both with the pydantic-v1 type name.
    """

    loc: tuple[str | int, ...]
    message: str  # the /api/v1 message
    v2_type: str
    v2_msg: str
    shape: bool


class RequestInvalid(ApiError):
    code = "VALIDATION_ERROR"

    def __init__(self, errors: list[FieldError], *, where: str = "body", message: str | None = None):
        super().__init__(message or "Request validation failed.")
        self.errors = errors
        self.where = where
        self.status_code = 400 if any(e.shape for e in errors) else 422
        self.details = field_messages(errors)


def field_messages(errors: list[FieldError]) -> dict[str, str]:
    """Field path (dotted) -> one message; several messages for one field are joined with '; '."""
    merged: dict[str, list[str]] = {}
    for error in errors:
        key = ".".join(str(part) for part in error.loc) or "body"
        merged.setdefault(key, [])
        if error.message not in merged[key]:
            merged[key].append(error.message)
    return {key: "; ".join(messages) for key, messages in merged.items()}


def value_error(field: str | tuple, message: str, *, v2_type: str = "value_error") -> RequestInvalid:
    """A single value error on one field, decided by a service (not by a serializer)."""
    loc = (field,) if isinstance(field, str) else tuple(field)
    return RequestInvalid([FieldError(loc, message, v2_type, message, shape=False)])
