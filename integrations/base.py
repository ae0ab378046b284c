"""The base of every vendor client: one guarded outbound session per thread, vendor answers turned
into `VendorError`s. A platform's client subclasses `VendorClient`, sets `platform`, and reads the
vendor's error bodies in `vendor_error_text`; the tool hub adds methods to the same classes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar
from urllib.parse import urljoin

import requests
from urllib3.exceptions import HTTPError, ReadTimeoutError

from core.outbound import OutboundSession, outbound_session, retry_after_seconds
from integrations.errors import (
    ContentTooLarge,
    VendorDenied,
    VendorError,
    VendorNotFound,
    VendorRejected,
    VendorThrottled,
    VendorTimeout,
    VendorUnavailable,
    VendorUnreachable,
)

T = TypeVar("T")
R = TypeVar("R")

CHUNK_BYTES = 64 * 1024  # read size of a streamed download


class VendorClient:
    platform = "vendor"
    # Concurrent calls of one fan-out. The sitelib listing sends its per-site reads in JSON batches
    # of 20 (integrations/sitelib/batch.py), one batch per thread: 16 threads carry 320 reads at
    # once (see docs/performance.md). Throttling past that meets the Retry-After-aware retries.
    max_workers = 16

    def __init__(self, *, base_url: str, session_options: dict | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._session_options = session_options or {}
        # requests.Session is not documented as thread-safe, and listings fan out over a thread
        # pool: each thread gets its own session (connection reuse within a thread still holds).
        self._local = threading.local()
        self._sessions: list[OutboundSession] = []
        self._sessions_lock = threading.Lock()

    # ---- lifecycle
    @property
    def session(self) -> OutboundSession:
        session = getattr(self._local, "session", None)
        if session is None:
            session = outbound_session(**self._session_options)
            self.prepare_session(session)
            self._local.session = session
            with self._sessions_lock:
                self._sessions.append(session)
        return session

    def prepare_session(self, session: OutboundSession) -> None:
        """Hook: authentication headers and the like for a new session."""

    def close(self) -> None:
        with self._sessions_lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def fan_out(self, function: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """`function` over `items` on a bounded thread pool, results in input order; the first
        failure is raised and calls not yet started are cancelled. `function` must only do I/O
        through this client: pool threads never touch the ORM, so no DB connection leaks."""
        items = list(items)
        if len(items) <= 1:
            return [function(item) for item in items]
        pool = ThreadPoolExecutor(
            max_workers=min(self.max_workers, len(items)), thread_name_prefix=f"{self.platform}-io"
        )
        try:
            futures = [pool.submit(function, item) for item in items]
            return [future.result() for future in futures]
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    # ---- calls
    def url(self, path_or_url: str) -> str:
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return urljoin(self.base_url + "/", path_or_url.lstrip("/"))

    def request(self, method: str, path_or_url: str, **kwargs) -> requests.Response:
        """Send through the guarded session; any answer >= 400 raises a `VendorError`.
        `OutboundRefused` (the guard) passes through untouched: only the caller knows which
        input field carried the refused URL."""
        try:
            response = self.session.request(method, self.url(path_or_url), **kwargs)
        except requests.Timeout as exc:
            raise VendorTimeout(f"The {self.platform} platform did not answer in time.", **self._p) from exc
        except requests.ConnectionError as exc:
            raise VendorUnreachable(f"The {self.platform} platform could not be reached.", **self._p) from exc
        except requests.RequestException as exc:
            raise VendorUnavailable(f"The {self.platform} platform could not be reached.", **self._p) from exc
        if response.status_code >= 400:
            error = self.error_for(response)
            response.close()  # a streamed answer holds its connection until closed
            raise error
        return response

    def get_json(self, path_or_url: str, **kwargs) -> dict:
        return self.json_of(self.request("GET", path_or_url, **kwargs))

    def content_get(self, path_or_url: str, *, max_bytes: int, timeout_s: float) -> bytes:
        """A file's bytes: at most `max_bytes` (else `ContentTooLarge`, from the declared length
        before reading when the platform gives one), all of them within `timeout_s` seconds, retries
        and redirects included (else `VendorTimeout`). A dropped stream is `VendorUnreachable`."""
        deadline = time.monotonic() + timeout_s
        headers = {"Accept": "*/*"}
        with self.request("GET", path_or_url, stream=True, deadline=deadline, headers=headers) as response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise self._too_large(max_bytes)
            body = bytearray()
            try:
                for chunk in response.raw.stream(CHUNK_BYTES, decode_content=True):
                    body += chunk
                    if len(body) > max_bytes:
                        raise self._too_large(max_bytes)
                    if time.monotonic() > deadline:
                        raise VendorTimeout(
                            f"The {self.platform} platform sent the file too slowly.", **self._p
                        )
            except ReadTimeoutError as exc:
                raise VendorTimeout(
                    f"The {self.platform} platform stopped sending the file.", **self._p
                ) from exc
            except HTTPError as exc:
                raise VendorUnreachable(
                    f"The {self.platform} platform dropped the download.", **self._p
                ) from exc
        return bytes(body)

    def _too_large(self, max_bytes: int) -> ContentTooLarge:
        return ContentTooLarge(f"The file is larger than {max_bytes} bytes.", **self._p)

    def json_of(self, response: requests.Response) -> dict:
        try:
            body = response.json()
        except ValueError as exc:
            raise VendorUnavailable(
                f"The {self.platform} platform answered with something that is not JSON.",
                status=response.status_code,
                **self._p,
            ) from exc
        if not isinstance(body, dict):
            raise VendorUnavailable(f"The {self.platform} platform answered an unexpected shape.", **self._p)
        return body

    # ---- errors
    @property
    def _p(self) -> dict:
        return {"platform": self.platform}

    def error_for(self, response: requests.Response) -> VendorError:
        status = response.status_code
        code, text = self.vendor_error_text(response)
        text = text[:300] if isinstance(text, str) else None
        kwargs = {"status": status, "vendor_code": code, **self._p}
        if status in (401, 403):
            return VendorDenied(text or f"The {self.platform} platform denied access.", **kwargs)
        if status == 404:
            return VendorNotFound(text or f"The {self.platform} platform has no such object.", **kwargs)
        if status == 429 or (status == 503 and response.headers.get("Retry-After")):
            wait = retry_after_seconds(response.headers.get("Retry-After"))
            return VendorThrottled(
                f"The {self.platform} platform kept throttling the requests.", retry_after=wait, **kwargs
            )
        if status >= 500:
            return VendorUnavailable(f"The {self.platform} platform failed ({status}).", **kwargs)
        return VendorRejected(
            text or f"The {self.platform} platform rejected the request ({status}).", **kwargs
        )

    def vendor_error_text(self, response: requests.Response) -> tuple[str | None, str | None]:
        """(vendor code, message) from an error body; subclasses know their vendor's shape."""
        return None, None
