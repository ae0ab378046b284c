"""A connection to Redis of this process's (and thread's) own, for the calls every request makes.

redis-py's client takes a connection from its pool, checks it, sends, reads and gives it back: on a
tool call that was about three quarters of the rate limiter's Python (docs/performance.md). A
request's own calls go straight to a connection kept for this thread instead, opened with the
cache client's own settings (address, database, password, timeouts). A forked child opens its own:
it never writes to a socket its parent holds.

An idle connection the server has closed (a restart, a timeout) is found before anything is sent,
by one look at its socket (readable while idle: the server has closed or said something unasked),
and replaced. Any error on a call drops the connection: the next call opens a new one.
"""

from __future__ import annotations

import os
import select
import threading
from functools import lru_cache


class OwnConnection(threading.local):
    """One redis-py `Connection` per process and thread, from `client`'s pool settings. `replies`:
    False for a connection on which Redis sends no replies (`CLIENT REPLY OFF`)."""

    def __init__(self, *, replies: bool = True) -> None:
        self.replies = replies
        self.connection = None
        self.pid = 0
        self.pool = None  # the pool whose settings it was opened with

    def get(self, client):
        """The open connection (a new one if there is none, it is a forked parent's, the client's
        settings have changed, or the server closed it while it was idle)."""
        pool = client.connection_pool
        connection = self.current()
        if connection is not None and (self.pool is not pool or idle_socket_speaks(connection._sock)):
            self.drop()
            connection = None
        if connection is None:
            connection = pool.connection_class(**pool.connection_kwargs)
            connection.connect()
            if not self.replies:
                connection.send_command("CLIENT", "REPLY", "OFF", check_health=False)
            self.connection, self.pid, self.pool = connection, os.getpid(), pool
        return connection

    def send(self, client, *command):
        """Send `command` without reading anything back; returns the connection it went on."""
        connection = self.get(client)
        try:
            connection.send_command(*command, check_health=False)
        except Exception:
            self.drop()
            raise
        return connection

    def call(self, client, *command):
        """Send `command` and return its reply (a reply that is an error is raised)."""
        connection = self.send(client, *command)
        try:
            return connection.read_response()
        except Exception:
            self.drop()
            raise

    def current(self):
        """This process's open connection, or None (nothing opened here yet)."""
        return self.connection if self.pid == os.getpid() else None

    def drop(self) -> None:
        if self.connection is not None and self.pid == os.getpid():
            self.connection.disconnect()
        self.connection = None


def idle_socket_speaks(sock) -> bool:
    """Whether an idle connection's socket (or descriptor) has something to read, or is gone: on a
    connection whose server only answers, that means the server has closed it or is closing it. One
    `poll`, not `select()`, which refuses a descriptor past 1024. Also PostgreSQL's health check
    (config/postgres)."""
    if sock is None:
        return True
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError):  # the socket is gone
        return True


def redis_client(current):
    """The Redis client behind the cache `current` (django-redis's raw client), or None when the
    cache is not Redis (the in-process default)."""
    client = getattr(current, "client", None)
    return client.get_client(write=True) if client is not None and hasattr(client, "get_client") else None


def cache_key(current, name: str) -> str:
    """`current.make_key(name)` (the cache's prefix and version, by its key function, so that its
    `clear()` and its own reads cover the key), remembered: a request's keys repeat for an hour or
    a window, and making one took four or five Python calls through the cache's layers."""
    return _made_key(current.key_func, current.key_prefix, current.version, name)


@lru_cache(maxsize=4096)
def _made_key(key_func, prefix: str, version: int, name: str) -> str:
    return key_func(name, prefix, version)
