"""The one outbound HTTP client factory (DESIGN section 11). Every vendor call goes through it:

- timeouts always (connect, read), and on request one deadline for a whole call, its retries and
  redirect hops included (`deadline=`);
- retries with backoff that honour `Retry-After` on 429/503, for idempotent requests only, bounded
  in count and in total time;
- the guard: a URL must be http(s), and its host must resolve only to public addresses. The guard
  runs before the request (so a refusal is decided before any connection), again for every redirect
  hop, and once more on the connected socket's peer address (so DNS rebinding cannot slip past).
  `OUTBOUND_ALLOW_PRIVATE_NETWORKS` relaxes only the address rule (tests and local fakes);
- an optional extra CA bundle (`OUTBOUND_CA_BUNDLE`), added to the default trust store;
- kept-alive connections on request (`keep_alive=<key>`): sessions given the same key in one process
  share one guarded connection pool, so consecutive calls of a tool-hub connection skip the TCP
  (and TLS) handshake. Only the transport is shared; headers, auth and cookies stay per session;
- one verifying SSL context per CA bundle, shared by every HTTPS pool of the process.
"""

from __future__ import annotations

import email.utils
import hashlib
import ipaddress
import logging
import os
import random
import socket
import ssl
import threading
import time
from collections import OrderedDict
from functools import cache
from pathlib import Path

import certifi
import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import LocationParseError
from urllib3.util import Timeout, Url, create_urllib3_context, parse_url

from core.api.errors import RequestInvalid, value_error

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = (5.0, 30.0)
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({429, 503})
MAX_REDIRECTS = 5
# Kept-alive pools: a pooled connection idle longer than this is closed instead of reused. Many
# servers drop idle connections after 5 s, and a request sent just as the server closes fails with
# no answer at all; a fresh connection costs one handshake.
KEEP_ALIVE_IDLE_SECONDS = 4.0
KEEP_ALIVE_KEYS = 256  # pools kept per process (least recently used beyond this are closed)
KEEP_ALIVE_CONNECTIONS = 10  # idle connections kept per key and host
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class OutboundRefused(Exception):
    """The guard refused a URL. `reason` is safe to show to the caller (it never carries the URL's
    credentials)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Cloud metadata services and the link-local ranges they sit in: refused under every setting, so no
# switch can hand an instance's credentials to a caller (169.254.169.254 serves AWS, Azure and Google
# Cloud; 169.254.170.2 container credentials; fd00:ec2::254 AWS over IPv6; 100.100.100.200 Alibaba).
METADATA_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in ("169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "100.100.100.200/32")
)


def url_parts(url: str) -> Url:
    """The one reading of a URL, urllib3's (the one the client connects with), and the one rule every
    URL field of the service follows, when it is stored and when it is called: http or https, a
    host, no credentials in it (they belong in the vault), no control characters and no backslash
    (which other readers take for a path or for the end of a user name)."""
    if not isinstance(url, str) or "\\" in url or not url.isprintable():
        raise OutboundRefused("The URL may not hold control characters or backslashes.")
    if not url[:8].lower().startswith(("http://", "https://")):
        raise OutboundRefused("Only http and https URLs are allowed.")
    try:
        parts = parse_url(url)
    except LocationParseError as exc:
        raise OutboundRefused("The URL is malformed.") from exc
    if parts.scheme not in ("http", "https"):
        raise OutboundRefused("Only http and https URLs are allowed.")
    if not parts.host:
        raise OutboundRefused("The URL has no host.")
    if parts.auth:
        raise OutboundRefused("The URL may not carry a user name or password: keep them in the vault.")
    return parts


def _networks_allowed() -> tuple:
    return tuple(ipaddress.ip_network(n, strict=False) for n in settings.OUTBOUND_ALLOWED_NETWORKS)


def address_refusal(address: str) -> str | None:
    """Why an address may not be called (None: it may). Public addresses may; cloud metadata and
    link-local ones never; loopback and private ones only inside `OUTBOUND_ALLOWED_NETWORKS`, or all
    of them with `OUTBOUND_ALLOW_PRIVATE_NETWORKS`."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv6Address) and ip.sixtofour is not None:
        ip = ip.sixtofour
    if isinstance(ip, ipaddress.IPv6Address) and ip in _NAT64:
        # The well-known NAT64 prefix embeds an IPv4 address that a NAT64 gateway would reach.
        ip = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if any(ip in network for network in METADATA_NETWORKS):
        return "The URL points to a cloud metadata or link-local address."
    if ip.is_global and not ip.is_multicast and not ip.is_reserved:
        return None
    if any(ip.version == network.version and ip in network for network in _networks_allowed()):
        return None
    if settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS and (ip.is_private or ip.is_loopback):
        return None
    return "The URL points to a private, loopback or reserved address."


def guard_url(url: str, *, unresolvable_ok: bool = False) -> None:
    """Raise OutboundRefused unless `url` may be called. With `unresolvable_ok`, a host name that
    does not resolve (yet) passes: used when a URL is stored for later, not called now."""
    parts = url_parts(url)
    host = parts.host.strip("[]")
    try:
        infos = socket.getaddrinfo(
            host, parts.port or (443 if parts.scheme == "https" else 80), type=socket.SOCK_STREAM
        )
    except (socket.gaierror, UnicodeError) as exc:
        if unresolvable_ok and not _looks_numeric(host):
            return
        raise OutboundRefused("The URL's host does not resolve.") from exc
    for info in infos:
        refusal = address_refusal(info[4][0])
        if refusal:
            raise OutboundRefused(refusal)


def refusal_error(field: str | tuple, refusal: OutboundRefused) -> RequestInvalid:
    """The guard's refusal of a URL that a request body carried in `field`, as that field's
    validation error (DESIGN section 14: vault 422 naming the field, /v2 `value_error.url.host`)."""
    return value_error(field, f"The URL is not allowed: {refusal.reason}", v2_type="value_error.url.host")


def guard_field(field: str | tuple, url: str) -> None:
    """A URL stored now and called later (a token endpoint, a connection's base URL) must be one the
    guard would call; a host that does not resolve from here yet passes, and is checked on every call."""
    if not url:
        return
    try:
        guard_url(url, unresolvable_ok=True)
    except OutboundRefused as exc:
        raise refusal_error(field, exc) from None


def _looks_numeric(host: str) -> bool:
    return host.replace(".", "").replace(":", "").isalnum() and any(c.isdigit() for c in host[:1])


class _PeerCheck:
    """Mixin for urllib3 connections: refuse a connected socket whose peer is not public, and let
    the pool drop a connection that has been idle too long (`KEEP_ALIVE_IDLE_SECONDS`)."""

    _answered_at: float | None = None

    def connect(self):
        super().connect()
        peer = self.sock.getpeername()[0] if self.sock is not None else None
        refusal = "The connection reached no address." if peer is None else address_refusal(peer)
        if refusal:
            self.sock.close()
            raise OutboundRefused(refusal)

    def getresponse(self):
        response = super().getresponse()
        self._answered_at = time.monotonic()
        return response

    @property
    def is_connected(self) -> bool:
        # urllib3 asks this before reusing a pooled connection; False makes it close and reconnect.
        if self._answered_at is not None and time.monotonic() - self._answered_at > KEEP_ALIVE_IDLE_SECONDS:
            return False
        return super().is_connected


class _GuardedHTTPConnection(_PeerCheck, HTTPConnection):
    pass


class _GuardedHTTPSConnection(_PeerCheck, HTTPSConnection):
    pass


class _GuardedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


class _GuardedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _GuardedHTTPPool, "https": _GuardedHTTPSPool}

    # requests hands urllib3 the CA bundle's path, and urllib3 parses the whole bundle again for
    # every new TLS connection (17-20 ms of CPU here, docs/performance.md). Each bundle is loaded
    # once per process into one verifying SSL context instead, which every HTTPS pool shares.
    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        host, pool = super().build_connection_pool_key_attributes(request, verify, cert)
        if host["scheme"] == "https" and verify is not False and "ca_cert_dir" not in pool:
            pool["ssl_context"] = _verifying_context(pool.pop("ca_certs", None) or certifi.where())
        return host, pool

    def cert_verify(self, conn, url, verify, cert):
        super().cert_verify(conn, url, verify, cert)
        if url.lower().startswith("https") and verify is not False and conn.ca_cert_dir is None:
            conn.ca_certs = None  # the pool's SSL context holds the bundle already


@cache
def _verifying_context(bundle: str) -> ssl.SSLContext:
    """A certificate- and host-verifying context trusting `bundle` (as requests builds its own)."""
    context = create_urllib3_context()
    context.load_verify_locations(bundle)
    return context


class _KeptAlive:
    """The process's kept-alive adapters, one per key. urllib3's pools are thread-safe, so the
    threads of a process share them; a forked child starts with none (`os.register_at_fork`): it
    must never write to sockets its parent also holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._adapters: OrderedDict[str, _GuardedAdapter] = OrderedDict()

    def adapter(self, key: str) -> _GuardedAdapter:
        evicted = []
        with self._lock:
            adapter = self._adapters.pop(key, None)
            if adapter is None:
                adapter = _GuardedAdapter(pool_connections=4, pool_maxsize=KEEP_ALIVE_CONNECTIONS)
            self._adapters[key] = adapter
            while len(self._adapters) > KEEP_ALIVE_KEYS:
                evicted.append(self._adapters.popitem(last=False)[1])
        for old in evicted:
            old.close()  # a connection still in use is closed when it is given back
        return adapter

    def forget(self) -> None:
        """In a forked child: drop the parent's pools (and a lock another thread may have held)."""
        self._lock = threading.Lock()
        self._adapters = OrderedDict()


_kept_alive = _KeptAlive()
os.register_at_fork(after_in_child=_kept_alive.forget)


class OutboundSession(requests.Session):
    """A requests Session with the guard, default timeouts and bounded, Retry-After-aware retries.

    `request(..., idempotent=True)` lets a POST be retried (a token request, a search).
    `keep_alive`: a key naming one tenant's connection to a vendor (never a key shared by tenants);
    sessions with the same key reuse that key's open connections. Such a session leaves its pool
    open when it is closed."""

    def __init__(
        self,
        *,
        timeout=DEFAULT_TIMEOUT,
        retries: int = 3,
        retry_budget: float = 30.0,
        retry_posts: bool = False,
        keep_alive: str | None = None,
    ) -> None:
        super().__init__()
        # For a session whose POSTs are all safe to repeat (token grants made by a library such as
        # msal, which cannot pass `idempotent=True` itself).
        self.retry_posts = retry_posts
        self.default_timeout = timeout
        self.retries = retries
        self.retry_budget = retry_budget
        self.max_redirects = MAX_REDIRECTS
        self.trust_env = False  # no proxy or netrc from the environment
        self.verify = _ca_bundle()
        self.kept_alive = keep_alive is not None
        self.deadline: float | None = None  # the `time.monotonic()` moment the current call must end by
        if self.kept_alive:
            adapter = _kept_alive.adapter(keep_alive)
        else:
            adapter = _GuardedAdapter(pool_connections=20, pool_maxsize=20)
        self.mount("http://", adapter)
        self.mount("https://", adapter)

    def close(self) -> None:
        if not self.kept_alive:
            super().close()

    def request(
        self, method, url, *args, idempotent: bool | None = None, deadline: float | None = None, **kwargs
    ):
        """`deadline` (a `time.monotonic()` moment) bounds the whole call: the timeouts of every
        attempt and every redirect hop are cut to the time left, and no retry waits past it."""
        kwargs.setdefault("timeout", self.default_timeout)
        if idempotent is None:
            idempotent = method.upper() in IDEMPOTENT_METHODS or (
                self.retry_posts and method.upper() == "POST"
            )
        budget_end = time.monotonic() + self.retry_budget
        if deadline is not None:
            budget_end = min(budget_end, deadline)
        self.deadline = deadline  # read by `send`, which every hop goes through
        try:
            return self._attempts(method, url, args, kwargs, idempotent=idempotent, budget_end=budget_end)
        finally:
            self.deadline = None

    def _attempts(self, method, url, args, kwargs, *, idempotent: bool, budget_end: float):
        attempt = 0
        while True:
            response = super().request(method, url, *args, **kwargs)
            wait = self.retry_wait(response, attempt, budget_end) if idempotent else None
            if wait is None:
                return response
            logger.info(
                "Retrying %s %s after %s (waiting %.2fs)", method, _safe(url), response.status_code, wait
            )
            response.close()
            time.sleep(wait)
            attempt += 1

    def send(self, request, **kwargs):
        guard_url(request.url)  # the first request and every redirect hop
        if self.deadline is not None:
            kwargs["timeout"] = _time_left(kwargs.get("timeout"), self.deadline)
        return super().send(request, **kwargs)

    def retry_wait(self, response, attempt: int, deadline: float) -> float | None:
        """Seconds to wait before retrying an idempotent request that got `response` after
        `attempt` retries, or None to give up: only 429/503, at most `retries` times, honouring
        `Retry-After` (else a jittered backoff), never past `deadline` (a `time.monotonic()`)."""
        if response.status_code not in RETRY_STATUSES or attempt >= self.retries:
            return None
        wait = retry_after_seconds(response.headers.get("Retry-After"))
        if wait is None:
            wait = min(8.0, 0.25 * (2**attempt)) * (0.5 + random.random())
        if time.monotonic() + wait > deadline:
            return None
        return wait


def _time_left(timeout, deadline: float) -> Timeout:
    """`timeout` (seconds, or connect and read seconds) cut to what is left before `deadline`;
    connecting and waiting for the answer together get no more than that (urllib3's `total`)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise requests.Timeout("The time allowed for the call ran out.")
    if isinstance(timeout, Timeout):  # a redirect hop: requests hands on what the first hop got
        connect, read = timeout.connect_timeout, timeout.read_timeout
    else:
        connect, read = timeout if isinstance(timeout, tuple) else (timeout, timeout)
    return Timeout(
        connect=left if connect is None else min(connect, left),
        read=left if read is None else min(read, left),
        total=left,
    )


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After as seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def outbound_session(**options) -> OutboundSession:
    return OutboundSession(**options)


def _ca_bundle() -> str | bool:
    extra = settings.OUTBOUND_CA_BUNDLE
    if not extra:
        return True
    return _combined_bundle(str(extra))


@cache
def _combined_bundle(extra: str) -> str:
    """certifi's roots plus the extra bundle, written once per distinct content. The file name
    carries a digest of the content so that processes trusting different extras (parallel test
    runs, each with its own self-signed fake) never overwrite each other's bundle."""
    content = Path(certifi.where()).read_text() + "\n" + Path(extra).read_text()
    digest = hashlib.sha256(content.encode()).hexdigest()[:16]
    combined = Path(settings.VAR_DIR) / f"outbound-ca-bundle-{digest}.pem"
    if not combined.exists():
        partial = combined.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(content)
        partial.replace(combined)  # atomic: a reader never sees half a bundle
    return str(combined)


def _safe(url: str) -> str:
    """A URL for a log line: scheme, host and path only (no credentials, no query)."""
    try:
        parts = parse_url(url)
    except LocationParseError:
        return "<a malformed URL>"
    return f"{parts.scheme}://{parts.host}{parts.path or ''}"
