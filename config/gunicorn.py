"""gunicorn's configuration, the one place that says how the web server runs:
`gunicorn -c python:config.gunicorn` (bin/serve, tests/live.py and bench start it so).

- Processes: `WEB_WORKERS` (default 2) worker processes of `WEB_THREADS` (default 4) threads. When
  the cache is process-local (no `REDIS_URL`: Django's local-memory cache), rate-limit counters
  would be per process, so the service runs one process whatever `WEB_WORKERS` says; its threads
  share one cache, and the local-memory cache is thread-safe (DESIGN section 5: limits are exact on
  every configuration).
- After the fork, once a worker has loaded the application, the embedding model starts loading in
  the background (`post_worker_init`), so the first search does not wait for it and /health says
  `degraded`, with the reason, until it is loaded.
- Its control socket (for `gunicornc`) is `gunicorn-<PORT>.ctl` under this instance's `VAR_DIR`,
  private to its user (gunicorn's default mode, 0600), never gunicorn's user-wide default
  (`~/.gunicorn/gunicorn.ctl`), which a second instance of the same user would take over.
- Requests gunicorn refuses itself, before the application sees them (a request line longer than
  `limit_request_line`, too many or too large headers, a malformed request): gunicorn's own limits
  and its status codes, answered as JSON in the /api/v1 error envelope instead of its HTML page
  (DESIGN section 4). The request line limit is gunicorn's highest, 8190 bytes (its default is 4094).
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import UTC, datetime
from ssl import SSLError

from django.conf import settings
from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers.gthread import ThreadWorker
from gunicorn.workers.sync import SyncWorker

from core.gencache import cache_is_process_local
from knowledge.embeddings import embedding_model_warm_up

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Settings read by gunicorn (every lowercase name below that gunicorn knows).
wsgi_app = "config.wsgi:application"
PORT = int(os.environ.get("PORT") or 8000)
bind = f"127.0.0.1:{PORT}"
control_socket = str(settings.VAR_DIR / f"gunicorn-{PORT}.ctl")
limit_request_line = 8190  # gunicorn's maximum; 0 would mean no limit at all


def _positive(name: str, default: int) -> int:
    value = int(os.environ.get(name) or default)
    if value < 1:
        raise ValueError(f"{name} must be at least 1, not {value}.")
    return value


def post_worker_init(worker) -> None:
    embedding_model_warm_up()


threads = _positive("WEB_THREADS", 4)
workers = 1 if cache_is_process_local() else _positive("WEB_WORKERS", 2)


# Status and code of each refusal; anything else gunicorn catches is a 400 (a malformed request),
# and an error that is not the client's (the application failed outside Django) a 500.
_REFUSALS: list[tuple[type[Exception], int, str, str]] = [
    (errors.LimitRequestLine, 414, "URI Too Long", "URI_TOO_LONG"),
    (errors.LimitRequestHeaders, 431, "Request Header Fields Too Large", "HEADERS_TOO_LARGE"),
    (errors.ExpectationFailed, 417, "Expectation Failed", "EXPECTATION_FAILED"),
    (errors.UnsupportedTransferCoding, 501, "Not Implemented", "NOT_IMPLEMENTED"),
    (errors.ForbiddenProxyRequest, 403, "Forbidden", "FORBIDDEN"),
    (SSLError, 403, "Forbidden", "FORBIDDEN"),
    (errors.ConfigurationProblem, 500, "Internal Server Error", "INTERNAL_ERROR"),
    (errors.ParseException, 400, "Bad Request", "BAD_REQUEST"),
]
_MESSAGES = {
    "URI_TOO_LONG": f"The request line is longer than {limit_request_line} bytes; send long "
    "parameters in a request body.",
    "HEADERS_TOO_LARGE": "The request's headers are too many or too large.",
    "INTERNAL_ERROR": "Internal server error.",
}


def refusal(exc: BaseException) -> tuple[int, str, str, str]:
    """(status, reason phrase, code, message) of the answer to an error gunicorn caught."""
    for kind, status, reason, code in _REFUSALS:
        if isinstance(exc, kind):
            return status, reason, code, _MESSAGES.get(code, f"Bad request: {exc}")
    return 500, "Internal Server Error", "INTERNAL_ERROR", _MESSAGES["INTERNAL_ERROR"]


def refusal_bytes(status: int, reason: str, code: str, message: str) -> bytes:
    """The whole HTTP answer, written as gunicorn writes its own error page (the connection closes)."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"
    body = json.dumps(
        {"success": False, "error": {"code": code, "message": message, "details": {}}, "timestamp": now}
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-ID: req_{uuid.uuid4().hex}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class JsonErrors:
    """Answers what gunicorn refuses in JSON. Mixed into gunicorn's own workers, whose
    `handle_error` writes an HTML page; gunicorn's logging of the refusal is kept."""

    def handle_error(self, req, client, addr, exc):
        status, reason, code, message = refusal(exc)
        ip = (addr or ("", -1))[0]
        if status == 500:
            self.log.exception("Error handling request %s", getattr(req, "uri", "(no URI read)"))
        else:
            self.log.warning("Invalid request from ip=%s: %s", ip, exc)
        try:
            util.write_nonblock(client, refusal_bytes(status, reason, code, message))
        except Exception:
            self.log.debug("Failed to send error message.")


class JsonErrorSyncWorker(JsonErrors, SyncWorker):
    pass


class JsonErrorThreadWorker(JsonErrors, ThreadWorker):
    pass


# What gunicorn itself picks: its sync worker for one thread, its threaded worker for more.
worker_class = (
    "config.gunicorn.JsonErrorThreadWorker" if threads > 1 else "config.gunicorn.JsonErrorSyncWorker"
)
