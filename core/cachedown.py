"""The one warning that the cache is down. Rate limits, usage counters and row caches carry on
without it (DESIGN section 12: correctness never depends on Redis) and say so in the log, each at
most once a minute."""

from __future__ import annotations

import logging
import time

logger = logging.getLogger(__name__)
INTERVAL_SECONDS = 60.0
_last: dict[str, float] = {}


def cache_down(what: str, consequence: str, exc: Exception) -> None:
    """Log "<what> unavailable; <consequence> (<error class>)" unless it was logged in the last
    minute. The class only: connection errors can quote URLs, and URLs can carry passwords."""
    now = time.monotonic()
    last = _last.get(what)
    if last is None or now - last > INTERVAL_SECONDS:
        _last[what] = now
        logger.warning("%s unavailable; %s (%s)", what, consequence, type(exc).__name__)
