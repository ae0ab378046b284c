"""The direct exchange of a plain vendor call (integrations.http, `_GuardedAdapter.send_plainly`).

For a plain call, requests' adapter, urllib3's request and response layers, http.client and the
e-mail header parser took about half a millisecond of Python per call, more than the loopback fake
took to answer it (docs/performance.md). Here the request is written as urllib3 and http.client
write it, on a connection of the same urllib3 pool (so connecting, TLS, the guard on the peer and the
idle limit are theirs), and the answer is read directly: status line, headers, a body framed by
Content-Length, chunks or the connection's end. A body with a Content-Encoding is decoded by
urllib3's own decoders. What comes back is the `requests.Response` requests would have built.

Errors are requests' own: a malformed answer is a `ConnectionError` (a `ChunkedEncodingError` when
only its body is cut short), a timeout a `ConnectTimeout` or `ReadTimeout`, a TLS failure an
`SSLError`. `tests/integrations/test_outbound_plain.py` holds both paths to the same bytes on the
wire and the same responses, for ordinary answers and for unusual ones.
"""

from __future__ import annotations

import contextlib
import io
import re
import ssl
from email.message import Message
from http.client import HTTPMessage

import requests
from requests.cookies import extract_cookies_to_jar
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3 import HTTPHeaderDict, HTTPResponse
from urllib3.exceptions import ConnectTimeoutError, DecodeError, HTTPError, NewConnectionError
from urllib3.exceptions import SSLError as Urllib3SSLError

_METHOD = re.compile(r"[A-Z]+\Z")
_HEADER_NAME = re.compile(r"[!-9;-~]+\Z")  # printable ASCII, no colon, no space
_LINE_LIMIT = 65536  # http.client's limits for a status or header line, and for the header count
_HEADER_LIMIT = 100
_NO_BODY_STATUSES = frozenset({204, 304})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Malformed(Exception):
    """The answer is not HTTP/1.x that can be read."""


class Truncated(Exception):
    """The answer's body ended before its framing said it would."""


def request_head(prepared, origin: str) -> bytes | None:
    """The request line and headers as urllib3 and http.client write them for `prepared` (a plain
    request to `origin`, `scheme://host[:port]`), or None when they would add a header of their own
    (no User-Agent or Accept-Encoding, no framing of a body) or refuse one, or the caller set Host."""
    headers = prepared.headers
    if (
        not _METHOD.match(prepared.method)
        or "user-agent" not in headers
        or "accept-encoding" not in headers
        or "host" in headers
        or "transfer-encoding" in headers
        or (prepared.body is not None and "content-length" not in headers)
    ):
        return None
    scheme, _, netloc = origin.partition("://")
    host, _, port = netloc.partition(":")
    if port and int(port) != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{int(port)}"
    target = prepared.url[len(origin) :]
    try:
        lines = [f"{prepared.method} {target} HTTP/1.1".encode("ascii"), b"Host: " + host.encode("ascii")]
        lines += [name.encode("ascii") + b": " + value.encode("latin-1") for name, value in headers.items()]
    except UnicodeEncodeError:
        return None  # http.client would raise it: let its path do so
    return b"\r\n".join(lines) + b"\r\n\r\n"


def request_body(prepared) -> bytes:
    body = prepared.body
    if body is None:
        return b""
    return body.encode("utf-8") if isinstance(body, str) else body


def exchange_on(pool, prepared, head: bytes, limits: tuple) -> tuple[Answer, bytes]:
    """Send the request on a connection of urllib3's `pool` and read its answer and raw body. The
    connection goes back to the pool, left open only if it may carry another request. Exceptions
    urllib3 would not have caught (the guard's refusal of the peer, say) pass through as they are."""
    try:
        connection = pool._get_conn()
    except HTTPError as exc:  # the pool was closed meanwhile
        raise requests_error(exc, prepared, connected=False) from exc
    connected = reusable = False
    try:
        if connection.sock is None:  # a new connection, or one closed after idling too long
            connection.timeout = limits[0]
            connection.connect()  # urllib3's: TLS, and the guard on the peer (integrations.http)
        connected = True
        connection.sock.settimeout(limits[1])
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            # The server may have answered and closed already: its answer is read (as urllib3 does).
            connection.sock.sendall(head + request_body(prepared))
        answer, body, reusable = read_answer(Incoming(connection.sock), prepared.method)
        connection.mark_answered()
    except (OSError, HTTPError, Malformed, Truncated) as exc:
        raise requests_error(exc, prepared, connected=connected) from exc
    finally:
        if not reusable:
            connection.close()
        pool._put_conn(connection)
    return answer, body


def timeouts(timeout) -> tuple[float | None, float | None] | None:
    """(connect, read) seconds as requests reads `timeout`, or None for a form left to requests."""
    if isinstance(timeout, tuple) and len(timeout) == 2:
        connect, read = timeout
    else:
        connect = read = timeout
    if all(value is None or isinstance(value, int | float) for value in (connect, read)):
        return connect, read
    return None


class Answer:
    """What was read, in the shape requests and its cookie handling read from urllib3's response
    (`status`, `reason`, `_original_response.msg`); its body is already read whole."""

    def __init__(self, version: str, status: int, reason: str, fields: list[tuple[str, str]]) -> None:
        self.version, self.status, self.reason, self.fields = version, status, reason, fields
        self._original_response = self
        # By lower-case name: the first spelling seen and every value, in order (urllib3's headers).
        self.named: dict[str, tuple[str, list[str]]] = {}
        for field, value in fields:
            self.named.setdefault(field.lower(), (field, []))[1].append(value)

    @property
    def msg(self) -> Message:
        message = HTTPMessage()
        for name, value in self.fields:
            message[name] = value
        return message

    def values(self, name: str) -> list[str]:
        return self.named.get(name, ("", []))[1]

    def release_conn(self) -> None:
        """Nothing to give back: the connection went back to its pool when the body was read."""

    def close(self) -> None:
        """As above."""


class Incoming:
    """The bytes a socket receives, read in large pieces and taken by line or by count. What is
    taken is sliced off at an offset; a body arriving in many pieces is gathered and joined once,
    never copied again per piece."""

    def __init__(self, sock) -> None:
        self.sock = sock
        self.buffer = b""
        self.start = 0

    def _receive(self) -> bytes:
        piece = self.sock.recv(65536)
        if not piece:
            raise EOFError
        return piece

    def unread(self) -> int:
        return len(self.buffer) - self.start

    def _gather(self, count: int | None) -> None:
        """Receive until `count` bytes are unread (None: until the connection's end)."""
        pieces, have = [self.buffer[self.start :]], self.unread()
        try:
            while count is None or have < count:
                pieces.append(self._receive())
                have += len(pieces[-1])
        finally:
            self.buffer, self.start = b"".join(pieces), 0

    def line(self) -> bytes:
        while (end := self.buffer.find(b"\n", self.start)) < 0:
            if self.unread() > _LINE_LIMIT:
                raise Malformed("A line of the answer is too long.")
            self._gather(self.unread() + 1)
        return self.take(end + 1 - self.start)

    def take(self, count: int) -> bytes:
        if self.unread() < count:
            self._gather(count)
        taken = self.buffer[self.start : self.start + count]
        self.start += count
        return taken

    def rest(self) -> bytes:
        with contextlib.suppress(EOFError):  # the end of the connection is the end of the body
            self._gather(None)
        return self.take(self.unread())


def read_answer(incoming: Incoming, method: str) -> tuple[Answer, bytes, bool]:
    """The answer to one request (interim 1xx answers skipped), its body as sent (not yet decoded),
    and whether the connection may carry another request."""
    try:
        answer = _read_head(incoming)
        while 100 <= answer.status < 200:
            answer = _read_head(incoming)
    except EOFError:
        raise Malformed("The connection closed without a complete answer.") from None
    try:
        body, framed = _read_body(incoming, answer, method)
    except EOFError:
        raise Truncated("The connection closed before the whole body was received.") from None
    connection = ",".join(answer.values("connection")).lower()
    reusable = (
        framed
        and answer.version == "HTTP/1.1"
        and "close" not in (token.strip() for token in connection.split(","))
        and not incoming.unread()
    )
    return answer, body, reusable


def _read_head(incoming: Incoming) -> Answer:
    parts = incoming.line().decode("iso-8859-1").split(None, 2)
    if len(parts) < 2 or parts[0] not in ("HTTP/1.1", "HTTP/1.0"):
        raise Malformed("The answer's status line is not HTTP/1.x.")
    status = parts[1]
    if len(status) != 3 or not status.isdigit():
        raise Malformed("The answer's status is not three digits.")
    fields: list[tuple[str, str]] = []
    while (line := incoming.line()) not in (b"\r\n", b"\n"):
        if len(fields) >= _HEADER_LIMIT:
            raise Malformed(f"The answer has more than {_HEADER_LIMIT} headers.")
        text = line.decode("iso-8859-1").rstrip("\r\n")
        if text[:1] in (" ", "\t") and fields:  # an obsolete folded line: one space, as RFC 9112 says
            name, value = fields.pop()
            fields.append((name, value + " " + text.strip(" \t")))
            continue
        name, colon, value = text.partition(":")
        if not colon or not _HEADER_NAME.match(name):
            raise Malformed("A header line of the answer is malformed.")
        fields.append((name, value.lstrip(" \t")))
    return Answer(parts[0], int(status), parts[2].strip() if len(parts) > 2 else "", fields)


def _read_body(incoming: Incoming, answer: Answer, method: str) -> tuple[bytes, bool]:
    """The body and whether its end was framed (by length or chunks) rather than by the close."""
    if method == "HEAD" or answer.status in _NO_BODY_STATUSES:
        return b"", True
    encodings = answer.values("transfer-encoding")
    if len(encodings) == 1 and encodings[0].lower() == "chunked":  # what http.client takes as chunked
        return _read_chunks(incoming), True
    lengths = {value.strip() for value in ",".join(answer.values("content-length")).split(",") if value}
    if not lengths:
        return incoming.rest(), False
    if len(lengths) > 1 or not next(iter(lengths)).isdigit():
        raise Malformed("The answer's Content-Length is not one length.")
    return incoming.take(int(lengths.pop())), True


def _read_chunks(incoming: Incoming) -> bytes:
    chunks = []
    while True:
        size = incoming.line().split(b";", 1)[0].strip()
        try:
            count = int(size, 16)
        except ValueError:
            raise Truncated("A chunk of the answer's body has no size.") from None
        if count == 0:
            while incoming.line() not in (b"\r\n", b"\n"):  # trailer fields, not kept (as urllib3)
                pass
            return b"".join(chunks)
        chunks.append(incoming.take(count))
        incoming.line()  # the chunk's CRLF


def decoded(answer: Answer, body: bytes) -> bytes:
    """The body with its Content-Encoding undone by urllib3, as requests receives it."""
    encoding = ",".join(answer.values("content-encoding")).strip().lower()
    if not body or encoding in ("", "identity"):
        return body
    headers = HTTPHeaderDict([("Content-Encoding", encoding)])
    try:
        return HTTPResponse(body=io.BytesIO(body), headers=headers, status=answer.status).data
    except DecodeError as exc:
        raise requests.exceptions.ContentDecodingError(exc) from exc


def response_of(answer: Answer, body: bytes, prepared, adapter) -> requests.Response:
    """The `requests.Response` requests' adapter builds from urllib3's response."""
    response = requests.Response()
    response.status_code = answer.status
    # urllib3's header dict, as requests copies it: repeats joined, the first spelling kept.
    response.headers = CaseInsensitiveDict(
        {name: ", ".join(values) for name, values in answer.named.values()}
    )
    response.encoding = get_encoding_from_headers(response.headers)
    response.raw = answer
    response.reason = answer.reason
    response.url = prepared.url
    response.request = prepared
    response.connection = adapter
    response._content = decoded(answer, body)
    response._content_consumed = True
    if "set-cookie" in answer.named or "set-cookie2" in answer.named:
        extract_cookies_to_jar(response.cookies, prepared, answer)
    return response


def requests_error(exc: Exception, prepared, *, connected: bool) -> Exception:
    """The exception requests' adapter raises for what urllib3 raised, or would have, for `exc`."""
    if isinstance(exc, ssl.SSLError | ssl.CertificateError | Urllib3SSLError):
        return requests.exceptions.SSLError(exc, request=prepared)
    if isinstance(exc, ConnectTimeoutError) and not isinstance(exc, NewConnectionError):
        return requests.ConnectTimeout(exc, request=prepared)
    if connected and isinstance(exc, TimeoutError):
        return requests.ReadTimeout(exc, request=prepared)
    if isinstance(exc, Truncated):
        return requests.exceptions.ChunkedEncodingError(exc, request=prepared)
    return requests.ConnectionError(exc, request=prepared)
