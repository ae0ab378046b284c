"""JSON answers for what never reaches DRF: unknown paths, Django-level 400/403, crashes. The
console's pages (`/admin/`) answer a 403 or a 404 with a console page instead."""

from __future__ import annotations

import logging
import sys

from django.contrib import admin
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, JsonResponse
from django.template.response import TemplateResponse
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


def _console_page(request, status: int, title: str, explanation: str) -> TemplateResponse:
    context = admin.site.each_context(request) | {"title": title, "explanation": explanation}
    response = TemplateResponse(request, "admin/refused.html", context, status=status)
    return response.render()


@csrf_exempt  # changes nothing: a POST without a CSRF cookie gets this 404, not Django's HTML 403
def not_found(request, exception=None, **kwargs):
    if request.path.startswith("/admin/"):
        return _console_page(request, 404, "Page not found", "There is no console page at this address.")
    return _json(request, ResourceNotFound(f"No route matches {request.method} {request.path}."))


def bad_request(request, exception=None):
    return _json(request, ApiError("Bad request.", code="BAD_REQUEST"))


def permission_denied(request, exception=None):
    if request.path.startswith("/admin/"):
        return _console_page(
            request,
            403,
            "Not for your roles",
            "Your roles in your tenants do not open this page. A tenant admin of the tenant, or a "
            "platform super admin, can give you the role it needs.",
        )
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
