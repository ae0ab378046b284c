"""Kept-alive outbound sessions (`outbound_session(keep_alive=key)`): sessions of one key reuse its
open connections; nothing else is shared, and the guard still decides every request."""

import os
import threading
import time
import uuid

import pytest

from core import outbound as http
from core.outbound import OutboundRefused, outbound_session
from tests.fakes.server import FakeVendor, Reply, route


class Echo(FakeVendor):
    @route("GET", "/thing")
    def thing(self, request):
        return Reply(200, {"ok": True})

    @route("GET", "/login")
    def login(self, request):
        return Reply(200, {"ok": True}, {"Set-Cookie": "session=tenant-a-session; Path=/"})


@pytest.fixture
def key() -> str:
    return f"test:{uuid.uuid4()}"


def get(fake: FakeVendor, key: str | None, path: str = "/thing", **headers):
    with outbound_session(keep_alive=key) as session:
        session.headers.update(headers)
        return session.get(fake.url + path)


def connections_used(fake: FakeVendor) -> int:
    return len({request.peer for request in fake.received})


def test_sessions_with_the_same_key_reuse_one_connection(private_ok, key):
    with Echo() as fake:
        for _ in range(5):
            assert get(fake, key).status_code == 200
        assert len(fake.received) == 5 and connections_used(fake) == 1


def test_sessions_without_a_key_open_a_connection_each(private_ok):
    with Echo() as fake:
        for _ in range(3):
            get(fake, None)
        assert connections_used(fake) == 3


def test_sessions_with_different_keys_never_share_a_connection(private_ok, key):
    with Echo() as fake:
        get(fake, key)
        get(fake, f"{key}-other")
        get(fake, key)
        assert connections_used(fake) == 2


def test_a_session_sends_only_its_own_headers_and_cookies_on_a_shared_connection(private_ok, key):
    with Echo() as fake:
        get(fake, key, "/login", **{"x-api-key": "key-of-a"})
        get(fake, key, **{"x-api-key": "key-of-b"})
        first, second = fake.received
        assert connections_used(fake) == 1
        assert second.headers.get("x-api-key") == "key-of-b"
        assert "Cookie" not in second.headers and "tenant-a" not in str(second.headers)
        assert first.headers.get("x-api-key") == "key-of-a"


def test_the_guard_refuses_a_pooled_host_once_private_addresses_are_no_longer_allowed(settings, key):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    with Echo() as fake:
        get(fake, key)
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
        with pytest.raises(OutboundRefused):
            get(fake, key)
        assert len(fake.received) == 1


def test_a_connection_idle_too_long_is_replaced_before_it_is_reused(private_ok, key, monkeypatch):
    with Echo() as fake:
        get(fake, key)
        monkeypatch.setattr(http, "KEEP_ALIVE_IDLE_SECONDS", 0.0)
        get(fake, key)
        assert connections_used(fake) == 2


class ClosesIdleConnections(Echo):
    def start(self):
        super().start()
        self._server.RequestHandlerClass.timeout = 0.2  # drops a connection idle this long
        return self


def test_a_connection_the_server_closed_is_replaced(private_ok, key):
    with ClosesIdleConnections() as fake:
        get(fake, key)
        time.sleep(0.6)
        assert get(fake, key).status_code == 200
        assert connections_used(fake) == 2


def test_threads_share_a_key_safely(private_ok, key):
    failures: list[BaseException] = []

    def work():
        try:
            for _ in range(5):
                assert get(fake, key).json() == {"ok": True}
        except BaseException as exc:
            failures.append(exc)

    with Echo() as fake:
        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == [] and len(fake.received) == 40
        assert connections_used(fake) <= 8


def test_a_forked_child_starts_without_its_parents_connections(private_ok, key):
    with Echo() as fake:
        get(fake, key)
        pid = os.fork()
        if pid == 0:  # the child: exit at once, reporting whether it inherited any pool
            os._exit(len(http._kept_alive._adapters))
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert get(fake, key).status_code == 200 and connections_used(fake) == 1


def test_the_pools_kept_per_process_are_bounded(private_ok, monkeypatch):
    monkeypatch.setattr(http, "KEEP_ALIVE_KEYS", 3)
    with Echo() as fake:
        keys = [f"bounded:{uuid.uuid4()}" for _ in range(5)]
        for name in keys:
            get(fake, name)
        assert [name for name in keys if name in http._kept_alive._adapters] == keys[-3:]
