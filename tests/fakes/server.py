"""A real HTTP(S) server on loopback for faking vendor platforms.

A fake subclasses `FakeVendor`, declares routes with `@route(method, pattern)` (a regex on the path),
and returns `Reply`s. The server records every request it received (`.received`), can add latency,
and serves HTTPS with a self-signed certificate for 127.0.0.1/localhost (`tls=True`; point
`OUTBOUND_CA_BUNDLE` or `verify=` at `.ca_file`).
"""

from __future__ import annotations

import json
import re
import signal
import socket
import ssl
import struct
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit


@dataclass
class Received:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    peer: tuple[str, int] | None = None  # the client's (address, port): one TCP connection each
    target: str = ""  # the request line's target as sent, query included

    def json(self):
        return json.loads(self.body or b"null")

    def form(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(self.body.decode()).items()}


@dataclass
class Reply:
    status: int = 200
    body: object = None  # dict/list -> JSON; str/bytes -> as is
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        if isinstance(self.body, dict | list):
            headers.setdefault("Content-Type", "application/json")
            return json.dumps(self.body).encode(), headers
        if isinstance(self.body, str):
            return self.body.encode(), headers
        return self.body or b"", headers


class ResetConnection(Exception):
    """Raised by a route: the server drops the connection at once (a TCP reset), answering nothing."""


def route(method: str, pattern: str):
    def mark(function):
        function._route = (method.upper(), re.compile(f"^{pattern}$"))
        return function

    return mark


class FakeVendor:
    """Base of every fake. Subclasses add routes; `start()`/`stop()` or use as a context manager."""

    def __init__(self, *, tls: bool = False, latency: float = 0.0) -> None:
        self.tls = tls
        self.latency = latency
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._routes = [
            (*getattr(self, name)._route, getattr(self, name))
            for name in dir(self)
            if callable(getattr(self, name, None)) and hasattr(getattr(self, name), "_route")
        ]
        self._server: ThreadingHTTPServer | None = None
        self.ca_file: str | None = None
        self._queued: list[list] = []  # [compiled path regex, Reply, remaining]

    def queue_reply(self, reply: Reply, *, path: str = ".*", times: int = 1) -> None:
        """The next `times` requests whose path matches `path` get `reply` instead of the route's
        answer (throttling, outages, denials on demand)."""
        with self._lock:
            self._queued.append([re.compile(path), reply, times])

    def _take_queued(self, request: Received) -> Reply | None:
        with self._lock:
            for entry in self._queued:
                if entry[0].search(request.path) and entry[2] > 0:
                    entry[2] -= 1
                    return entry[1]
        return None

    # ---- lifecycle
    def start(self, port: int = 0) -> FakeVendor:
        """Serve on `port` of 127.0.0.1 (0: any free one, see `.url`)."""
        self._server = _Server(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        if self.tls:
            context, self.ca_file = _self_signed_context()
            # The handshake runs in each connection's handler thread, as on a real server: done at
            # accept() it would serialise every client's handshake in the one accept loop.
            self._server.socket = context.wrap_socket(
                self._server.socket, server_side=True, do_handshake_on_connect=False
            )
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}"

    def requests_to(self, path_regex: str) -> list[Received]:
        pattern = re.compile(path_regex)
        with self._lock:
            return [r for r in self.received if pattern.search(r.path)]

    # ---- dispatch
    def handle(self, request: Received) -> Reply:
        queued = self._take_queued(request)
        if queued is not None:
            return queued
        for method, pattern, function in self._routes:
            match = pattern.match(request.path)
            if match and method == request.method:
                return function(request, **match.groupdict())
        return Reply(404, {"error": {"code": "itemNotFound", "message": f"No route {request.path}"}})


def serve_until_stopped(*fakes: FakeVendor) -> None:
    """Keep started fakes serving until Ctrl-C or SIGTERM, then stop them (the demo servers in
    bin/)."""
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        while not stopped.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    for fake in fakes:
        fake.stop()


class _Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: a burst of new connections (a listing fanning out
    # over a dozen threads or more) overflows it, and each dropped SYN costs its client a one-second
    # retransmit. A real platform's backlog is deep.
    request_queue_size = 128


def _handler_for(fake: FakeVendor):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in separate writes; with Nagle on, the body waits for the
        # client's delayed ACK (~40 ms a response), which would swamp any latency knob.
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

    def dispatch(self):
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        request = Received(
            self.command,
            parts.path,
            parse_qs(parts.query),
            dict(self.headers),
            self.rfile.read(length),
            peer=self.client_address[:2],
            target=self.path,
        )
        with fake._lock:
            fake.received.append(request)
        if fake.latency:
            time.sleep(fake.latency)
        try:
            reply = fake.handle(request)
        except ResetConnection:
            # Linger on with a zero timeout: closing the socket sends a reset instead of a FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        body, headers = reply.encoded()
        self.send_response(reply.status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    for verb in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        setattr(Handler, f"do_{verb}", dispatch)
    return Handler


_CERT_CACHE: tuple[str, str] | None = None


def _self_signed_context() -> tuple[ssl.SSLContext, str]:
    """A certificate for 127.0.0.1 and localhost, made once per test run."""
    global _CERT_CACHE
    if _CERT_CACHE is None:
        _CERT_CACHE = _make_certificate()
    cert_file, key_file = _CERT_CACHE
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context, cert_file


def _make_certificate() -> tuple[str, str]:
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from tests.fakes.certificates import self_signed

    key = ec.generate_private_key(ec.SECP256R1())
    loopback = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = self_signed(
        key,
        "localhost",
        extensions=[
            (x509.SubjectAlternativeName(loopback), False),
            (x509.BasicConstraints(ca=True, path_length=None), True),
        ],
    )
    folder = Path(tempfile.mkdtemp(prefix="fake-tls-"))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return str(folder / "cert.pem"), str(folder / "key.pem")
