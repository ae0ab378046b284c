"""Django's PostgreSQL backend with a cheaper health check.

With `CONN_HEALTH_CHECKS` (config/settings.py) Django checks a kept connection before each request
uses it, by sending `SELECT 1` and waiting for the answer: one round trip per request, about a
twentieth of a credential read's time on the machine of docs/performance.md. Between requests the
connection is idle and the server sends nothing on it, unless it is closing it (a restart, an
administrator's `pg_terminate_backend`, an idle timeout): then it sends its reason and closes, and
the socket becomes readable. So an idle connection with nothing to read is usable; one with
something to read, or not idle, is checked as Django checks it."""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status == TransactionStatus.IDLE:
            try:
                readable, _, _ = select.select([connection.fileno()], [], [], 0)
            except (OSError, ValueError):  # the socket is gone
                return False
            if not readable:
                return True
        return super().is_usable()
