"""Loopback fakes for the benchmarks, timed from inside: each answer's duration (its configured delay
included) is recorded with its path, so a benchmark can compare the endpoint's time with the
sequential sum of its upstream calls and with its slowest chain of dependent calls. No Django here:
the harness process starts these before the service."""

from __future__ import annotations

import threading
import time
from urllib.parse import unquote

from tests.fakes.graph import FakeGraph
from tests.fakes.identity import FakeIdentity
from tests.fakes.itdocs import FakeItdocs


class Timed:
    """Mixin for a fake: answers after `delay` seconds and records (path, seconds) of each answer.

    A JSON batch (a fake with `is_batch`) is not an upstream call of its own: each of its
    sub-requests is, answered after its own `delay` and recorded under its own path, as if sent
    alone. The fake runs a batch's sub-requests concurrently, so the batch answers after about one
    `delay`; `calls` and `busy` count the sub-requests too, `batches` the batch requests and
    `batched` the sub-requests they carried."""

    def __init__(self, *args, delay: float = 0.0, **kw) -> None:
        super().__init__(*args, **kw)
        self.delay = delay
        self.timings: list[tuple[str, float]] = []
        self.batches = 0
        self.batched = 0
        self._timing = threading.Lock()

    def handle(self, request):
        if getattr(self, "is_batch", None) and self.is_batch(request):
            reply = super().handle(request)  # its sub-requests come back through this method
            answered = reply.body.get("responses") if isinstance(reply.body, dict) else None
            with self._timing:
                self.batches += 1
                self.batched += len(answered or [])
            return reply
        started = time.perf_counter()
        if self.delay:
            time.sleep(self.delay)
        reply = super().handle(request)
        with self._timing:
            self.timings.append((request.path, time.perf_counter() - started))
        return reply

    @property
    def busy(self) -> float:
        with self._timing:
            return sum(seconds for _, seconds in self.timings)

    @property
    def calls(self) -> int:
        with self._timing:
            return len(self.timings)

    def reset(self) -> None:
        with self._timing:
            self.timings.clear()
            self.batches = self.batched = 0
        with self._lock:
            self.received.clear()  # a long run must not keep every request in memory


class TimedIdentity(Timed, FakeIdentity):
    pass


class TimedGraph(Timed, FakeGraph):
    pass


class QuietItdocs(FakeItdocs):
    """The itdocs fake answering at once, without keeping the requests it received (load runs)."""

    def handle(self, request):
        with self._lock:
            self.received.clear()
        return super().handle(request)


def quiet(fake):
    """A started fake whose server does not print a traceback for each connection wrk drops at the
    end of a run (BrokenPipe, ConnectionReset): they are the client leaving, not errors."""

    def handle_error(request, client_address):
        pass

    fake._server.handle_error = handle_error
    return fake


def slowest_chain(fakes, markers: dict[str, str]) -> float:
    """Seconds of the longest chain of dependent upstream calls of one listing, as if every call
    were sent alone and one after the other along the chain: every call that names no site (OpenID
    configuration, token, site search) comes first, then one site's own calls (its sub-sites, its
    drives and anything under them) in sequence; the slowest site decides. `markers` maps a site id
    or a drive id found in a path to its site. Calls sent inside a JSON batch count as the calls
    they are (`Timed` records each sub-request under its own path, never the batch itself), so
    batching changes the listing's time, never this reference."""
    common, per_site = 0.0, dict.fromkeys(markers.values(), 0.0)
    for fake in fakes:
        for path, seconds in list(fake.timings):
            path = unquote(path)
            site = next((site for marker, site in markers.items() if marker in path), None)
            if site is None:
                common += seconds
            else:
                per_site[site] += seconds
    return common + max(per_site.values(), default=0.0)
