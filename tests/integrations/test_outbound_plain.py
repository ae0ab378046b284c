"""The outbound client's plain path (`OutboundSession._prepare_plainly`, `integrations.exchange`): a
plain vendor call is prepared without requests' general machinery and exchanged directly on a pooled
connection; it must put on the wire exactly what requests' own path puts there and come back as the
same response, and any other call takes requests' path."""

import gzip
import socket
import zlib

import pytest
import requests
import urllib3

from integrations import exchange
from integrations.http import OutboundSession, outbound_session
from tests.fakes.raw import RawVendor
from tests.fakes.server import FakeVendor, Reply, route


class Recorder(FakeVendor):
    @route("GET", "/items")
    def items(self, request):
        return Reply(200, {"ok": True})

    @route("POST", "/items")
    def create(self, request):
        return Reply(201, {"created": True})

    @route("DELETE", "/items/7")
    def delete(self, request):
        return Reply(204, "")

    @route("GET", "/moved")
    def moved(self, request):
        return Reply(302, "", {"Location": "/items?from=moved"})

    @route("GET", "/login")
    def login(self, request):
        return Reply(200, {"ok": True}, {"Set-Cookie": "session=abc; Path=/"})


@pytest.fixture
def plain_calls(monkeypatch) -> list[str]:
    """The URLs sent through the plain path."""
    sent = []
    original = OutboundSession._send_plainly

    def spy(self, prepared, **options):
        sent.append(prepared.url)
        return original(self, prepared, **options)

    monkeypatch.setattr(OutboundSession, "_send_plainly", spy)
    return sent


@pytest.fixture
def exchanged(monkeypatch) -> list[str]:
    """The URLs exchanged directly (`integrations.exchange`), not through requests' adapter."""
    sent = []
    original = exchange.exchange_on

    def spy(pool, prepared, head, limits):
        sent.append(prepared.url)
        return original(pool, prepared, head, limits)

    monkeypatch.setattr(exchange, "exchange_on", spy)
    return sent


def answer_of(response: requests.Response) -> tuple:
    """What a caller can read of a response (the Date header aside: a second may pass)."""
    return (
        response.status_code,
        response.reason,
        response.url,
        {name: value for name, value in response.headers.items() if name.lower() != "date"},
        response.content,
        response.encoding,
        response.cookies.get_dict(),
        [r.status_code for r in response.history],
    )


def requests_path(monkeypatch) -> None:
    monkeypatch.setattr(OutboundSession, "_prepare_plainly", lambda self, method, url, options: None)


def wire(fake: FakeVendor) -> list[tuple]:
    """What reached the vendor, connection details aside."""
    return [(r.method, r.target, {k.lower(): v for k, v in r.headers.items()}, r.body) for r in fake.received]


CALLS = [
    pytest.param(
        "GET",
        "/items",
        {
            "params": {"page[size]": 50, "q": "a b/c&d", "name": "Zoë", "tag": ["x", "y"], "skip": None},
            "headers": {"X-Trace": "t-1"},
        },
        id="get-with-params-and-headers",
    ),
    pytest.param(
        "GET", "/items?fixed=1", {"params": {"more": True, "ratio": 0.5}}, id="get-adding-to-a-query"
    ),
    pytest.param(
        "POST",
        "/items",
        {"json": {"name": "Zoë", "nested": {"n": [1, 2.5, None]}}, "headers": {"x-api-key": None}},
        id="post-json-removing-a-session-header",
    ),
    pytest.param("POST", "/items", {"data": {"grant_type": "password", "scope": "a b"}}, id="post-form"),
    pytest.param(
        "POST",
        "/items",
        {"json": {"a": 1}, "headers": {"Content-Type": "application/vnd.api+json"}},
        id="post-own-type",
    ),
    pytest.param("DELETE", "/items/7", {}, id="delete-without-a-body"),
    pytest.param("GET", "/moved", {}, id="redirect-followed"),
    pytest.param("GET", "/moved", {"allow_redirects": False}, id="redirect-not-followed"),
]


@pytest.mark.parametrize(("method", "path", "options"), CALLS)
def test_a_plain_call_sends_the_same_request_as_requests_own_path(
    private_ok, plain_calls, exchanged, monkeypatch, method, path, options
):
    answers = []
    with Recorder() as fake:
        for plain in (True, False):
            if not plain:
                requests_path(monkeypatch)
            with outbound_session() as session:
                session.headers.update({"x-api-key": "vendor-key", "Accept": "application/json"})
                answers.append(answer_of(session.request(method, fake.url + path, **options)))
        first, second = wire(fake)[: len(fake.received) // 2], wire(fake)[len(fake.received) // 2 :]
    assert first == second
    assert answers[0] == answers[1]
    assert len(plain_calls) == 1  # the first round took the plain path, the second requests' own
    assert len(exchanged) == 1  # a redirect's next hop goes through requests' adapter


def test_the_plain_path_is_taken_for_a_vendor_clients_call(private_ok, plain_calls):
    with Recorder() as fake, outbound_session(keep_alive="plain-test") as session:
        assert session.get(fake.url + "/items", params={"page[size]": 1}).json() == {"ok": True}
    assert plain_calls == [fake.url + "/items?page%5Bsize%5D=1"]


@pytest.mark.parametrize(
    ("path", "options"),
    [
        pytest.param("/items/Zoë", {}, id="a-path-requests-would-quote"),
        pytest.param("/items#part", {}, id="a-fragment"),
        pytest.param("/items", {"params": {"q": {"a": 1}}}, id="a-param-that-is-not-a-scalar"),
        pytest.param("/items", {"cookies": {"c": "1"}}, id="call-cookies"),
        pytest.param("/items", {"data": "raw text"}, id="a-text-body"),
        pytest.param("/items", {"json": {"x": float("nan")}}, id="json-requests-refuses"),
    ],
)
def test_any_other_call_takes_requests_own_path(private_ok, path, options):
    with Recorder() as fake, outbound_session() as session:
        assert session._prepare_plainly("GET", fake.url + path, options) is None


def test_a_cookie_the_vendor_sets_is_sent_back_through_requests_path(private_ok, plain_calls):
    with Recorder() as fake, outbound_session() as session:
        session.get(fake.url + "/login")
        session.get(fake.url + "/items")
        assert session.cookies.get("session") == "abc"
        assert fake.received[1].headers.get("Cookie") == "session=abc"
    assert plain_calls == [fake.url + "/login"]  # the second call had a cookie to send


def test_a_header_with_a_line_break_is_refused_before_sending(private_ok):
    with Recorder() as fake, outbound_session() as session:
        with pytest.raises(ValueError, match="return character"):
            session.get(fake.url + "/items", headers={"X-Evil": "a\r\nInjected: yes"})
        assert fake.received == []


OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
GZIPPED = gzip.compress(b'{"packed": true}')
DEFLATED = zlib.compress(b"deflated words " * 20)
LARGE = bytes(range(256)) * 8192  # 2 MiB: many receives
UNUSUAL = [
    pytest.param(
        "GET",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        b"5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n",
        False,
        id="chunks-with-an-extension-and-a-trailer",
    ),
    pytest.param(
        "GET",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(GZIPPED), GZIPPED),
        False,
        id="a-gzipped-body",
    ),
    pytest.param(
        "GET",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(DEFLATED), DEFLATED),
        False,
        id="a-deflated-body-in-chunks",
    ),
    pytest.param(
        "POST",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        False,
        id="an-interim-answer-first",
    ),
    pytest.param(
        "GET",
        b"HTTP/1.1 200 OK\r\nX-Thing: a\r\nx-thing: b\r\nSet-Cookie: a=1; Path=/\r\n"
        b"Set-Cookie: b=2; Path=/\r\nContent-Length: 0\r\n\r\n",
        False,
        id="repeated-headers-and-cookies",
    ),
    pytest.param("DELETE", b"HTTP/1.1 204 No Content\r\nX-Gone: yes\r\n\r\n", False, id="no-content"),
    pytest.param("HEAD", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", False, id="head-has-no-body"),
    pytest.param(
        "GET", b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", False, id="not-found"
    ),
    pytest.param(
        "GET",
        b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{"a": 1}',
        True,
        id="http-1.0-to-the-close",
    ),
    pytest.param(
        "GET", b"HTTP/1.1 200 OK\r\nServer: x\r\n\r\nuntil the close", True, id="http-1.1-to-the-close"
    ),
    pytest.param("GET", b"HTTP/1.1 200 Fine\nContent-Length: 2\n\nok", False, id="bare-line-feeds"),
    pytest.param(
        "GET",
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(LARGE), LARGE),
        False,
        id="a-large-body-in-many-pieces",
    ),
    pytest.param(
        "GET",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (LARGE[:70000], LARGE[70000:]))
        + b"0\r\n\r\n",
        False,
        id="large-chunks",
    ),
    pytest.param("GET", b"HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", False, id="no-reason-phrase"),
]


@pytest.mark.parametrize(("method", "raw", "close"), UNUSUAL)
def test_an_unusual_answer_reads_the_same_as_through_requests_own_path(
    private_ok, exchanged, monkeypatch, method, raw, close
):
    answers = []
    with RawVendor() as vendor:
        for plain in (True, False):
            if not plain:
                requests_path(monkeypatch)
            vendor.answer(raw, close=close)
            with outbound_session() as session:
                answers.append(answer_of(session.request(method, vendor.url + "/items")))
    assert answers[0] == answers[1]
    assert len(exchanged) == 1


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        pytest.param(b"", requests.ConnectionError, id="closed-without-an-answer"),
        pytest.param(b"SPDY/3 200 OK\r\n\r\n", requests.ConnectionError, id="not-http"),
        pytest.param(b"HTTP/1.1 2000 OK\r\n\r\n", requests.ConnectionError, id="a-four-digit-status"),
        pytest.param(
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
            requests.exceptions.ChunkedEncodingError,
            id="a-body-cut-short",
        ),
        pytest.param(
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope",
            requests.exceptions.ContentDecodingError,
            id="a-body-that-does-not-decode",
        ),
    ],
)
def test_a_broken_answer_raises_what_requests_own_path_raises(private_ok, monkeypatch, raw, error):
    with RawVendor() as vendor:
        for plain in (True, False):
            if not plain:
                requests_path(monkeypatch)
            vendor.answer(raw, close=True)
            with outbound_session() as session, pytest.raises(error):
                session.get(vendor.url + "/items")


def test_differing_content_lengths_are_refused(private_ok):
    with RawVendor() as vendor, outbound_session() as session:
        vendor.answer(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!", close=True)
        with pytest.raises(requests.ConnectionError, match="Content-Length"):
            session.get(vendor.url + "/items")


def test_a_folded_header_line_is_joined_with_one_space(private_ok):
    with RawVendor() as vendor, outbound_session() as session:
        vendor.answer(b"HTTP/1.1 200 OK\r\nX-Long: first\r\n\t second\r\nContent-Length: 0\r\n\r\n")
        assert session.get(vendor.url + "/items").headers["X-Long"] == "first second"


def test_a_vendor_that_does_not_answer_in_time_is_a_read_timeout(private_ok, exchanged):
    with RawVendor() as vendor, outbound_session() as session, pytest.raises(requests.ReadTimeout):
        session.get(vendor.url + "/items", timeout=(2, 0.2))
    assert len(exchanged) == 1


def test_a_refused_connection_is_a_connection_error(private_ok):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # bound, never listening: connecting to it is refused
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/items"
        with outbound_session() as session, pytest.raises(requests.ConnectionError):
            session.get(url)


def test_a_kept_alive_session_carries_its_calls_on_one_connection(private_ok, exchanged):
    with RawVendor() as vendor:
        for _ in range(3):
            vendor.answer(OK)
        with outbound_session(keep_alive="raw-one-connection") as session:
            assert [session.get(vendor.url + "/items").content for _ in range(3)] == [b"ok"] * 3
        assert vendor.connections == 1
    assert len(exchanged) == 3


@pytest.mark.parametrize(
    ("raw", "close"),
    [
        pytest.param(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", True, id="said"),
        pytest.param(OK, True, id="unsaid"),
    ],
)
def test_after_the_vendor_closes_a_connection_the_next_call_opens_another(private_ok, raw, close):
    with RawVendor() as vendor:
        vendor.answer(raw, close=close)
        vendor.answer(OK)
        with outbound_session(keep_alive=f"raw-reopen-{id(raw)}") as session:
            assert session.get(vendor.url + "/items").content == b"ok"
            vendor.wait_closed(1)
            assert session.get(vendor.url + "/items").content == b"ok"
        assert vendor.connections == 2


class _Capture:
    """A connected socket's stand-in that keeps what is sent."""

    def __init__(self) -> None:
        self.sent = b""

    def sendall(self, data: bytes) -> None:
        self.sent += bytes(data)

    def settimeout(self, seconds) -> None:
        pass


@pytest.mark.parametrize(
    "url",
    [
        "http://vendor.example/items?q=1",
        "http://vendor.example:80/items",
        "http://vendor.example:8080/items",
        "https://vendor.example:443/items",
        "https://vendor.example:8443/a/b",
    ],
)
@pytest.mark.parametrize(
    "options", [{}, {"data": {"grant_type": "client_credentials"}}, {"json": {"a": [1]}}]
)
def test_the_request_is_written_as_urllib3_writes_it(private_ok, url, options):
    with outbound_session() as session:
        prepared = session._prepare_plainly("POST" if options else "GET", url, options)
    parts = urllib3.util.parse_url(url)
    https = parts.scheme == "https"
    connection_class = urllib3.connection.HTTPSConnection if https else urllib3.connection.HTTPConnection
    connection = connection_class(parts.host, parts.port or (443 if https else 80))
    connection.sock = _Capture()
    connection.request(prepared.method, parts.request_uri, body=prepared.body, headers=prepared.headers)
    origin = url[: url.index("/", 8)]
    assert exchange.request_head(prepared, origin) + exchange.request_body(prepared) == connection.sock.sent
