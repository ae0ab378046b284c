"""A loopback server that answers each request with exactly the bytes it is given: for answers an
ordinary HTTP server does not send (chunks, a compressed body, interim answers, a cut-off body).

`answer(raw, close=False)` queues one answer; `close=True` closes the connection after it. A request
with no answer queued gets none (the connection stays open and silent). `connections` counts the TCP
connections accepted, `closed` those the server has closed, `requests` the request heads received."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class RawVendor:
    def __init__(self) -> None:
        self.connections = 0
        self.closed = 0
        self.requests: list[bytes] = []
        self._answers: list[tuple[bytes, bool]] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._stopped = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    def answer(self, raw: bytes, *, close: bool = False) -> None:
        with self._lock:
            self._answers.append((raw, close))

    def wait_closed(self, count: int, *, seconds: float = 5.0) -> None:
        """Until the server has closed `count` connections (it closes each a moment after answering)."""
        deadline = time.monotonic() + seconds
        while self.closed < count and time.monotonic() < deadline:
            time.sleep(0.005)

    def __enter__(self) -> RawVendor:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopped = True
        # Closing alone would leave the accept loop blocked, and the port accepting: shut it first.
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()

    def _accept(self) -> None:
        while not self._stopped:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            self._answer_all(client)
        finally:
            client.close()
            with self._lock:
                self.closed += 1

    def _answer_all(self, client: socket.socket) -> None:
        pending = b""
        while True:
            while b"\r\n\r\n" not in pending:
                piece = client.recv(65536)
                if not piece:
                    return
                pending += piece
            head, _, pending = pending.partition(b"\r\n\r\n")
            length = _content_length(head)
            while len(pending) < length:
                pending += client.recv(65536)
            pending = pending[length:]
            with self._lock:
                self.requests.append(head)
                if not self._answers:
                    continue
                raw, close = self._answers.pop(0)
            client.sendall(raw)
            if close:
                return


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0
