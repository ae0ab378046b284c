"""The outbound client's plain path (`OutboundSession._prepare_plainly`): a plain vendor call is
prepared without requests' general machinery, and must put on the wire exactly what requests' own
path puts there; any other call takes requests' path."""

import pytest

from integrations.http import OutboundSession, outbound_session
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
    private_ok, plain_calls, monkeypatch, method, path, options
):
    answers = []
    with Recorder() as fake:
        for plain in (True, False):
            if not plain:
                requests_path(monkeypatch)
            with outbound_session() as session:
                session.headers.update({"x-api-key": "vendor-key", "Accept": "application/json"})
                response = session.request(method, fake.url + path, **options)
                answers.append(
                    (
                        response.status_code,
                        response.url,
                        response.content,
                        [r.status_code for r in response.history],
                    )
                )
        first, second = wire(fake)[: len(fake.received) // 2], wire(fake)[len(fake.received) // 2 :]
    assert first == second
    assert answers[0] == answers[1]
    assert len(plain_calls) == 1  # the first round took the plain path, the second requests' own


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
