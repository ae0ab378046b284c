"""Django's PostgreSQL backend with a cheaper health check.

With `CONN_HEALTH_CHECKS` (config/settings.py) Django checks a kept connection before each request
uses it, by sending `SELECT 1` and waiting for the answer: one round trip per request, about a
twentieth of a credential read's time on the machine of docs/performance.md. Between requests the
connection is idle and the server sends nothing on it, unless it is closing it (a restart, an
administrator's `pg_terminate_backend`, an idle timeout): then it sends its reason and closes, and
the socket becomes readable. So an idle connection with nothing to read is usable; one with
something to read, or not idle, is checked as Django checks it.

`cursor_of(cursor_class)`: `cursor()`, with a cursor of that class (config.db's preparing one) made
by Django's own steps, instead of the default cursor made, closed and replaced."""

from __future__ import annotations

from django.db.backends.postgresql import base
from django.utils.asyncio import async_unsafe
from psycopg.pq import TransactionStatus

from config.redis_own import idle_socket_speaks


class DatabaseWrapper(base.DatabaseWrapper):
    _cursor_class = None  # the class of the cursor `create_cursor` is making, if not the default

    @async_unsafe
    def cursor_of(self, cursor_class):
        self._cursor_class = cursor_class
        try:
            return self._cursor()
        finally:
            self._cursor_class = None

    def create_cursor(self, name=None):
        if name is not None or self._cursor_class is None:
            return super().create_cursor(name)
        # Django makes it with `connection.cursor()`, which makes one of the connection's factory.
        default, self.connection.cursor_factory = self.connection.cursor_factory, self._cursor_class
        try:
            return super().create_cursor(name)
        finally:
            self.connection.cursor_factory = default

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        idle = connection.info.transaction_status == TransactionStatus.IDLE
        if idle and not idle_socket_speaks(connection.fileno()):
            return True
        return super().is_usable()
