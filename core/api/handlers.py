"""JSON answers for what never reaches DRF: unknown paths, Django-level 400/403, crashes."""

from __future__ import annotations

import logging
import sys

from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from core.api.envelopes import error_body, error_status
from core.api.errors import ApiError, Forbidden, ResourceNotFound, ServiceUnavailable, is_outage
from core.api.families import family_for_path

logger = logging.getLogger("core.api")


def _json(request, error: ApiError) -> JsonResponse:
    family = family_for_path(request.path)
    response = JsonResponse(error_body(error, family), status=error_status(error, family))
    for name, value in error.headers.items():
        response[name] = value
    return response


@csrf_exempt  # changes nothing: a POST without a CSRF cookie gets this 404, not Django's HTML 403
def not_found(request, exception=None, **kwargs):
    return _json(request, ResourceNotFound(f"No route matches {request.method} {request.path}."))


def bad_request(request, exception=None):
    return _json(request, ApiError("Bad request.", code="BAD_REQUEST"))


def permission_denied(request, exception=None):
    return _json(request, Forbidden("You do not have permission for this operation."))


def server_error(request):
    if is_outage(sys.exc_info()[1]):  # raised outside a view (middleware), same answer as inside one
        return _json(request, outage_error())
    return _json(request, ApiError("Internal server error.", code="INTERNAL_ERROR", status=500))


def outage_error() -> ServiceUnavailable:
    return ServiceUnavailable(
        "The database is unavailable; nothing was changed. Try again shortly.", headers={"Retry-After": "5"}
    )


class JsonErrorMiddleware:
    """Answers JSON for a crash even with DEBUG on (Django would render its HTML debug page)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, Http404 | PermissionDenied | SuspiciousOperation | BadRequest):
            return None  # Django answers these through the handlers above
        if request.path.startswith("/admin/"):
            return None
        if is_outage(exception):
            logger.warning(
                "Database unavailable on %s %s: %s", request.method, request.path, type(exception).__name__
            )
            return _json(request, outage_error())
        logger.error("Unhandled error on %s %s", request.method, request.path, exc_info=exception)
        return server_error(request)
