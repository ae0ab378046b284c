"""One handler renders every error raised under DRF; Django-level misses and crashes go to
`core.api.handlers`, which render through the same functions."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core.api.envelopes import error_body, error_status
from core.api.errors import (
    ApiError,
    FieldError,
    Forbidden,
    NotAuthenticated,
    RateLimited,
    RequestInvalid,
    ResourceNotFound,
)
from core.api.families import Family, family_for_path

logger = logging.getLogger(__name__)


def api_exception_handler(exc, context):
    request = context.get("request")
    family = family_for_path(request.path if request is not None else "")
    error = normalise(exc, family)
    if error is None:
        return None  # a bug: the middleware answers JSON 500 and the traceback reaches the log
    set_rollback()
    response = Response(error_body(error, family), status=error_status(error, family))
    for name, value in error.headers.items():
        response[name] = value
    return response


def normalise(exc, family: Family) -> ApiError | None:
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, Http404 | drf.NotFound):
        return ResourceNotFound("Not found.")
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        return NotAuthenticated(_text(exc.detail), headers=_www_authenticate(exc))
    if isinstance(exc, DjangoPermissionDenied | drf.PermissionDenied):
        return Forbidden(
            _text(getattr(exc, "detail", "")) or "You do not have permission for this operation."
        )
    if isinstance(exc, drf.ParseError):
        return _parse_error(exc, family)
    if isinstance(exc, drf.Throttled):
        return RateLimited(wait=int(exc.wait or 60))
    if isinstance(exc, drf.ValidationError | DjangoValidationError):
        return _loose_validation(exc)
    if isinstance(exc, drf.APIException):
        code = {405: "METHOD_NOT_ALLOWED", 406: "NOT_ACCEPTABLE", 415: "UNSUPPORTED_MEDIA_TYPE"}.get(
            exc.status_code, "BAD_REQUEST"
        )
        return ApiError(_text(exc.detail), code=code, status=exc.status_code)
    return None


def _parse_error(exc, family: Family) -> ApiError:
    """A body that is not JSON (or not UTF-8, or too deep). The tool interface answers one of its own
    codes (DESIGN section 4): 422 INVALID_INPUT with one error at the body's root."""
    message = _text(exc.detail)
    if family is Family.TOOL:
        return ApiError(
            "Malformed request body.",
            code="INVALID_INPUT",
            status=422,
            details={"errors": [{"path": "/", "keyword": "json", "message": message}]},
        )
    return RequestInvalid(
        [FieldError((), message, "value_error.jsondecode", message, shape=True)],
        message="Malformed request body.",
    )


def _loose_validation(exc) -> RequestInvalid:
    detail = exc.detail if isinstance(exc, drf.ValidationError) else exc.messages
    if isinstance(detail, dict):
        errors = [FieldError((k,), _text(v), "value_error", _text(v), shape=False) for k, v in detail.items()]
    else:
        errors = [FieldError((), _text(detail), "value_error", _text(detail), shape=False)]
    return RequestInvalid(errors)


def _text(detail) -> str:
    """DRF and simplejwt put strings, lists or dicts in `detail`: flatten to one sentence."""
    if isinstance(detail, dict):
        if "detail" in detail:
            return _text(detail["detail"])
        return "; ".join(f"{k}: {_text(v)}" for k, v in detail.items())
    if isinstance(detail, list | tuple):
        return "; ".join(_text(v) for v in detail)
    return str(detail)


def _www_authenticate(exc) -> dict[str, str]:
    header = getattr(exc, "auth_header", None)
    return {"WWW-Authenticate": header} if header else {"WWW-Authenticate": 'Bearer realm="api"'}
