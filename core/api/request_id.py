"""Request ids: echoed when the client sent a sane one, generated otherwise; on every response."""

from __future__ import annotations

import re
import time
import uuid
from contextvars import ContextVar

from core.api import metrics

_current: ContextVar[str | None] = ContextVar("request_id", default=None)
_ACCEPTABLE = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def current_request_id() -> str | None:
    return _current.get()


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex}"


class RequestIdMiddleware:
    """Outermost middleware: every response, including JSON 404/500s, leaves with X-Request-ID."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        sent = request.headers.get("X-Request-ID", "")
        request_id = sent if _ACCEPTABLE.match(sent) else new_request_id()
        request.request_id = request_id
        # Set, not reset afterwards: Django logs "Not Found"/"Internal Server Error" after the
        # middleware chain returns, and those lines should carry the id too. The next request sets its own.
        _current.set(request_id)
        started = time.perf_counter()
        response = self.get_response(request)
        metrics.observe(response.status_code, time.perf_counter() - started)
        response["X-Request-ID"] = request_id
        return response
