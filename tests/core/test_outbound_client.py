"""The outbound client: timeouts, Retry-After-aware retries for idempotent calls, redirects, cookies,
the guard and the TLS bundle."""

import socket
import time
from pathlib import Path

import pytest
import requests

from core import outbound as http
from core.outbound import OutboundRefused, guard_url, outbound_session, retry_after_seconds
from tests.fakes.server import FakeVendor, Reply, route


class Flaky(FakeVendor):
    def __init__(self, failures: int, status: int = 429, retry_after: str = "0", **kw):
        super().__init__(**kw)
        self.failures = failures
        self.status = status
        self.retry_after = retry_after

    @route("GET", "/thing")
    def thing(self, request):
        if len(self.received) <= self.failures:
            return Reply(self.status, {"error": "slow down"}, {"Retry-After": self.retry_after})
        return Reply(200, {"ok": True})

    @route("POST", "/thing")
    def create(self, request):
        return Reply(429, {"error": "slow down"}, {"Retry-After": "0"})

    @route("GET", "/bounce")
    def bounce(self, request):
        return Reply(302, "", {"Location": "http://127.0.0.1:1/secret"})

    @route("GET", "/moved")
    def moved(self, request):
        return Reply(302, "", {"Location": "/thing?from=moved"})

    @route("GET", "/login")
    def login(self, request):
        return Reply(200, {"ok": True}, {"Set-Cookie": "session=abc; Path=/"})


def test_it_retries_a_throttled_get_honouring_retry_after(private_ok):
    with Flaky(failures=2, retry_after="1") as fake:
        started = time.monotonic()
        response = outbound_session().get(fake.url + "/thing")
    assert response.status_code == 200 and len(fake.received) == 3
    assert time.monotonic() - started >= 2.0


def test_it_gives_up_after_the_retry_count(private_ok):
    with Flaky(failures=10, status=503) as fake:
        response = outbound_session(retries=2).get(fake.url + "/thing")
    assert response.status_code == 503 and len(fake.received) == 3


def test_it_does_not_wait_past_its_time_budget(private_ok):
    with Flaky(failures=1, retry_after="60") as fake:
        response = outbound_session(retry_budget=5).get(fake.url + "/thing")
    assert response.status_code == 429 and len(fake.received) == 1


def test_it_never_retries_a_post_unless_told_it_is_idempotent(private_ok):
    with Flaky(failures=0) as fake:
        outbound_session().post(fake.url + "/thing")
        assert len(fake.received) == 1
        outbound_session(retries=2).post(fake.url + "/thing", idempotent=True)
        assert len(fake.received) == 4


def test_a_vendor_that_does_not_answer_in_time_is_a_read_timeout(private_ok):
    with Flaky(failures=0, latency=0.5) as fake, pytest.raises(requests.ReadTimeout):
        outbound_session().get(fake.url + "/thing", timeout=(2, 0.1))


def test_a_deadline_covers_every_redirect_hop(private_ok):
    with Flaky(failures=0, latency=0.7) as fake, outbound_session() as session:
        assert session.get(fake.url + "/moved").status_code == 200  # 1.4 s in two hops
        with pytest.raises(requests.Timeout):
            session.get(fake.url + "/moved", deadline=time.monotonic() + 1.0)
        assert [r.path for r in fake.received][2:] == ["/moved", "/thing"]


def test_no_retry_waits_past_the_deadline(private_ok):
    with Flaky(failures=1, retry_after="2") as fake, outbound_session() as session:
        response = session.get(fake.url + "/thing", deadline=time.monotonic() + 1.0)
    assert response.status_code == 429 and len(fake.received) == 1


def test_a_refused_connection_is_a_connection_error(private_ok):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # bound, never listening: connecting to it is refused
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/thing"
        with outbound_session() as session, pytest.raises(requests.ConnectionError):
            session.get(url)


def test_a_redirect_is_followed_and_kept_in_the_history(private_ok):
    with Flaky(failures=0) as fake, outbound_session() as session:
        response = session.get(fake.url + "/moved")
        assert response.json() == {"ok": True} and response.url == fake.url + "/thing?from=moved"
        assert [r.status_code for r in response.history] == [302]
        unfollowed = session.get(fake.url + "/moved", allow_redirects=False)
        assert unfollowed.status_code == 302 and unfollowed.next.url == fake.url + "/thing?from=moved"
        assert [r.path for r in fake.received] == ["/moved", "/thing", "/moved"]


def test_a_cookie_the_vendor_sets_is_sent_back_by_the_same_session(private_ok):
    with Flaky(failures=0) as fake, outbound_session() as session:
        session.get(fake.url + "/login")
        session.get(fake.url + "/thing")
        assert fake.received[1].headers.get("Cookie") == "session=abc"


def test_a_header_with_a_line_break_is_refused_before_sending(private_ok):
    with Flaky(failures=0) as fake, outbound_session() as session:
        with pytest.raises(ValueError, match="return character"):
            session.get(fake.url + "/thing", headers={"X-Evil": "a\r\nInjected: yes"})
        assert fake.received == []


def test_retry_after_accepts_seconds_and_http_dates():
    assert retry_after_seconds("7") == 7.0
    assert 0 <= retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert retry_after_seconds("soon") is None


def test_with_the_guard_on_loopback_is_refused_before_connecting():
    with Flaky(failures=0) as fake:
        with pytest.raises(OutboundRefused):
            outbound_session().get(fake.url + "/thing")
        assert fake.received == []


def test_a_redirect_to_loopback_is_refused(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    with Flaky(failures=0) as fake:
        session = outbound_session()
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
        with pytest.raises(OutboundRefused):
            session.get(fake.url.replace("127.0.0.1", "localhost") + "/bounce")


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "gopher://x", "http://", "http://[::1", "http://0.0.0.0/"]
)
def test_malformed_and_non_http_urls_are_refused(url):
    with pytest.raises(OutboundRefused):
        guard_url(url)


def test_an_unresolvable_name_passes_only_when_stored_for_later():
    guard_url("https://login.vendor.invalid/token", unresolvable_ok=True)
    with pytest.raises(OutboundRefused):
        guard_url("https://login.vendor.invalid/token")


def test_the_fake_serves_https_with_its_own_certificate(private_ok):
    with Flaky(failures=0, tls=True) as fake:
        response = outbound_session().get(fake.url + "/thing", verify=fake.ca_file)
    assert response.json() == {"ok": True}


def test_an_https_vendor_with_a_certificate_nobody_trusts_is_refused(private_ok, settings):
    settings.OUTBOUND_CA_BUNDLE = ""
    with Flaky(failures=0, tls=True) as fake, pytest.raises(requests.exceptions.SSLError):
        outbound_session().get(fake.url + "/thing")


def test_new_tls_connections_verify_with_the_bundle_loaded_once(private_ok, settings):
    with Flaky(failures=0, tls=True) as fake:
        settings.OUTBOUND_CA_BUNDLE = fake.ca_file
        assert outbound_session().get(fake.url + "/thing").json() == {"ok": True}
        bundle = Path(http._ca_bundle())
        trusted = bundle.read_text()
        try:
            # A bundle parsed again for each connection would now fail; the loaded one still verifies.
            bundle.write_text("not a certificate\n")
            for _ in range(3):
                with outbound_session() as session:  # a session of its own: a new TLS connection
                    assert session.get(fake.url + "/thing").json() == {"ok": True}
        finally:
            bundle.write_text(trusted)
        assert len({r.peer for r in fake.received}) == 4
