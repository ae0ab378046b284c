"""Real checks of the service's dependencies for the health endpoints (DESIGN section 4).

The database is critical (down: `unhealthy`, 503); the cache and the broker are not (down: the
service is `degraded`, 200, and keeps answering). Other apps add checks with `health_check_register`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from core.api.timestamps import iso_ms

HEALTHY, DEGRADED, UNHEALTHY = "healthy", "degraded", "unhealthy"
_STARTED = time.monotonic()


class HealthIssue(Exception):
    """A probe's failure whose message is safe to show as it is (it says what is wrong in words,
    and never carries an address or a secret)."""


@dataclass(frozen=True)
class HealthCheck:
    name: str
    probe: Callable[[], None]  # raises when the dependency is unavailable
    critical: bool


_CHECKS: dict[str, HealthCheck] = {}
_failing_since: dict[str, object] = {}


def health_check_register(name: str, probe: Callable[[], None], *, critical: bool = False) -> None:
    _CHECKS[name] = HealthCheck(name, probe, critical)


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _cache() -> None:
    cache.set("health:probe", "1", 10)
    if cache.get("health:probe") != "1":
        raise RuntimeError("cache did not keep a value")


def _queue() -> None:
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        probe = settings.CELERY_BROKER_DIR / "queue" / ".health"
        probe.write_text("ok")
        return
    with current_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=1)


health_check_register("database", _database, critical=True)
health_check_register("cache", _cache)
health_check_register("queue", _queue)


@dataclass(frozen=True)
class HealthReport:
    status: str
    services: dict[str, str]
    issues: list[dict]

    @property
    def http_status(self) -> int:
        return 503 if self.status == UNHEALTHY else 200


def health_report() -> HealthReport:
    services: dict[str, str] = {}
    issues: list[dict] = []
    status = HEALTHY
    for check in _CHECKS.values():
        try:
            check.probe()
        except Exception as exc:
            since = _failing_since.setdefault(check.name, timezone.now())
            services[check.name] = UNHEALTHY
            issues.append({"service": check.name, "message": _describe(exc), "since": iso_ms(since)})
            status = UNHEALTHY if check.critical else (DEGRADED if status == HEALTHY else status)
        else:
            _failing_since.pop(check.name, None)
            services[check.name] = HEALTHY
    if services.get("database") == UNHEALTHY:
        connection.close()  # a fresh connection next time, once the database is back
    return HealthReport(status, services, issues)


def _describe(exc: Exception) -> str:
    if isinstance(exc, HealthIssue):
        return str(exc)
    # The exception's class only: connection errors can quote URLs, and URLs can carry passwords.
    return f"{type(exc).__name__}: unavailable"


def uptime_text() -> str:
    seconds = int(time.monotonic() - _STARTED)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    return f"{days}d {hours}h {rest // 60}m"
