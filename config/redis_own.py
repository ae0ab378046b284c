"""What remains here is used only by config/postgres (its connection health check); it goes when
that backend does."""

from __future__ import annotations

import select


def idle_socket_speaks(sock) -> bool:
    """Whether an idle connection's socket (or descriptor) has something to read, or is gone: on a
    connection whose server only answers, that means the server has closed it or is closing it. One
    `poll`, not `select()`, which refuses a descriptor past 1024."""
    if sock is None:
        return True
    try:
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, ValueError):  # the socket is gone
        return True
