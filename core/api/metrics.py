"""In-process request counters for the admin health report.

Kept in memory of the answering worker process (no cache or database write per request); the
admin health endpoint reports them as seen by the worker that answers.
"""

from __future__ import annotations

import threading
import time
from collections import deque

_WINDOW_SECONDS = 60
_lock = threading.Lock()
_samples: deque[tuple[float, float, bool]] = deque(maxlen=100_000)


def observe(status: int, seconds: float) -> None:
    with _lock:
        _samples.append((time.monotonic(), seconds, status >= 500))


def snapshot() -> dict:
    cutoff = time.monotonic() - _WINDOW_SECONDS
    with _lock:
        while _samples and _samples[0][0] < cutoff:
            _samples.popleft()
        recent = list(_samples)
    count = len(recent)
    average_ms = (sum(s[1] for s in recent) / count * 1000) if count else 0.0
    errors = sum(1 for s in recent if s[2])
    return {
        "requestsPerMinute": count,
        "averageResponseTime": f"{average_ms:.0f}ms",
        "errorRate": f"{(errors / count * 100) if count else 0:.2f}%",
    }
