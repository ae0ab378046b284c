"""SSRF: every input that takes a URL or a host, tried with the guard corpus of
tests/integrations/test_guard_corpus.py (pointed at a canary listener on loopback where the form
names loopback), with OUTBOUND_ALLOW_PRIVATE_NETWORKS off. The listener counts connections: 0."""

from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit

import pytest

from tests.core.test_guard_corpus import CORPUS
from tests.knowledge.conftest import itsm_body, sitelib_body
from tests.security.reports import record
from tests.toolhub.support import make_credential

pytestmark = pytest.mark.django_db


class CanaryListener:
    """Accepts on 127.0.0.1 and [::1] at one port and counts every connection."""

    def __init__(self) -> None:
        self.connections = 0
        self.sockets = []
        v4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        v4.bind(("127.0.0.1", 0))
        self.port = v4.getsockname()[1]
        self.sockets.append(v4)
        try:
            v6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            v6.bind(("::1", self.port))
            self.sockets.append(v6)
        except OSError:
            pass
        for sock in self.sockets:
            sock.listen(64)
            sock.settimeout(0.2)
            threading.Thread(target=self._accept, args=(sock,), daemon=True).start()
        self.running = True

    def _accept(self, sock) -> None:
        while self.sockets:
            try:
                conn, _ = sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        sockets, self.sockets = self.sockets, []
        for sock in sockets:
            sock.close()


def aimed(url: str, port: int) -> str:
    """The corpus URL with the listener's port (where it has a host)."""
    parts = urlsplit(url)
    if not parts.netloc or parts.scheme not in ("http", "https"):
        return url
    userinfo, _, host = parts.netloc.rpartition("@")
    if not host.endswith("]") and ":" in host:
        host = host.rsplit(":", 1)[0]
    netloc = (userinfo + "@" if userinfo else "") + f"{host}:{port}"
    return parts._replace(netloc=netloc).geturl()


def hostport(url: str) -> str:
    return urlsplit(url).netloc.rpartition("@")[2] or url


def inputs(url: str) -> list[tuple[str, str, dict]]:
    """(field, endpoint, body) for every URL or host input."""
    cred = {
        "integrationId": "ssrf-1",
        "credentialName": "x",
        "authType": "oauth2_client_credentials",
        "clientId": "c",
        "clientSecret": "s",
    }
    return [
        ("tokenEndpoint", "/api/v1/credentials", cred | {"tokenEndpoint": url}),
        ("authorizationEndpoint", "/api/v1/credentials", cred | {"authorizationEndpoint": url}),
        (
            "instance_url",
            "/v2/wikispace/space-listing",
            {
                "instance_url": url,
                "web_url_instance": "https://wiki.example.com/wiki",
                "username": "u",
                "api_token": "t",
            },
        ),
        (
            "web_url_instance",
            "/v2/wikispace/space-listing",
            {
                "instance_url": "https://wiki.example.com/wiki",
                "web_url_instance": url,
                "username": "u",
                "api_token": "t",
            },
        ),
        ("itsmplatform_domain", "/v2/itsmplatform/kb-listing", _itsm(hostport(url))),
        ("site_urls", "/v2/sitelib/listing", sitelib_body(site_urls=[url])),
        ("cloud_tid", "/v2/sitelib/listing", _sitelib_tid(hostport(url))),
        (
            "base_url",
            "/api/v1/connections",
            {
                "name": "c",
                "domain": "itdocs",
                "connector": "itdocs",
                "base_url": url,
                "integrationId": "conn-cred",
            },
        ),
    ]


def _itsm(host: str) -> dict:
    class Fake:
        domain = host

    return itsm_body(Fake())


def _sitelib_tid(value: str) -> dict:
    body = sitelib_body()
    body["authorization"] = body["authorization"] | {"cloud_tid": value}
    return body


# authorizationEndpoint is stored for clients' browsers and never called by the service; site_urls
# and cloud_tid are names sent to the platform's API (SITELIB_*_URL), never connected to directly.
CALLED = {"tokenEndpoint", "instance_url", "web_url_instance", "itsmplatform_domain", "base_url"}


def _resolves(url: str) -> bool:
    """A connection's base URL whose name does not resolve yet may be stored: the guard checks it again
    (resolving) on every call, which the listener's count covers."""
    host = urlsplit(url).hostname
    try:
        return bool(host) and bool(socket.getaddrinfo(host, None))
    except (OSError, UnicodeError, ValueError):
        return False


def test_no_url_or_host_input_reaches_a_private_address(client_for, owner, tenant, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    settings.RATE_LIMIT_PER_KEY = settings.RATE_LIMIT_PER_TENANT = "100000/m"
    make_credential(tenant, "conn-cred", access_token="t")
    api = client_for(owner, tenant)
    listener = CanaryListener()
    tried, statuses = 0, {}
    try:
        for raw in CORPUS:
            url = aimed(raw, listener.port)
            for field, path, body in inputs(url):
                response = api.post(path, body, format="json")
                tried += 1
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                assert response.status_code != 500, (field, url, response.content[:300])
                if field in CALLED and _resolves(url):  # an address the service would call: refused up front
                    assert response.status_code in (400, 422), (field, url, response.content[:300])
    finally:
        listener.close()
    record(
        "ssrf",
        "inputs",
        {
            "urls": len(CORPUS),
            "inputs": 8,
            "requests": tried,
            "connections": listener.connections,
            "statuses": statuses,
        },
    )
    assert listener.connections == 0
    assert tried == len(CORPUS) * 8


def test_the_listener_counts_a_connection():
    listener = CanaryListener()
    try:
        socket.create_connection(("127.0.0.1", listener.port), timeout=2).close()
        for _ in range(20):
            if listener.connections:
                break
            threading.Event().wait(0.05)
    finally:
        listener.close()
    assert listener.connections == 1
