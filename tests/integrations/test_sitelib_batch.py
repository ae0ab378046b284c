"""The sitelib client's JSON batches (integrations/sitelib/batch.py) against the fake platform's
`$batch`: every read answered as if sent alone, failures mapped exactly as the single call's."""

from __future__ import annotations

import time
from contextlib import contextmanager

import pytest
import requests

from integrations.errors import VendorError, VendorThrottled, VendorUnavailable
from integrations.sitelib.client import SitelibClient
from integrations.sitelib.models import SitelibCredentials
from tests.fakes.graph import FakeGraph
from tests.fakes.server import Reply

TOKEN = "graph-token"
BATCH = r"/v1\.0/\$batch$"


pytestmark = pytest.mark.usefixtures("private_ok")


@pytest.fixture
def graph():
    with FakeGraph(tokens={TOKEN}) as fake:
        yield fake


def client_for(graph: FakeGraph, **session_options) -> SitelibClient:
    return SitelibClient(
        graph_url=graph.api_url,
        login_url="https://login.invalid",
        credentials=SitelibCredentials(cloud_tid="contoso.onmicrosoft.com", client_id="app"),
        access_token=TOKEN,
        session_options=session_options or None,
    )


def sites_with_drives(graph: FakeGraph, count: int, drives: int = 1) -> list:
    sites = [graph.add_site(f"/sites/s{n}", f"S{n}") for n in range(count)]
    for site in sites:
        for d in range(drives):
            graph.add_drive(site, f"{site.display_name} library {d}")
    return sites


def batch_sizes(graph: FakeGraph) -> list[int]:
    return [len(r.json()["requests"]) for r in graph.requests_to(BATCH)]


def test_many_reads_go_in_batches_of_at_most_20_and_answer_in_the_callers_order(graph):
    sites = sites_with_drives(graph, 45)
    with client_for(graph) as client:
        drives = client.drives_of([s.id for s in sites])
    assert [[d.name for d in found] for found in drives] == [[f"S{n} library 0"] for n in range(45)]
    assert sorted(batch_sizes(graph)) == [5, 20, 20]


def test_the_fake_platform_refuses_a_batch_of_more_than_20(graph):
    body = {"requests": [{"id": str(n), "method": "GET", "url": "/sites?search=*"} for n in range(21)]}
    answer = requests.post(
        graph.api_url + "/$batch", json=body, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5
    )
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "BadRequest"


def test_a_batched_read_answers_what_the_same_read_sent_alone_answers(graph):
    site = sites_with_drives(graph, 1, drives=3)[0]
    with client_for(graph) as client:
        alone = client.drives(site.id)
        (batched,) = client.drives_of([site.id])
    assert batched == alone and len(alone) == 3


def _error(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


@contextmanager
def platform_answering(reply: Reply):
    """A fake with one site whose drives answer `reply`, every time."""
    with FakeGraph(tokens={TOKEN}) as fake:
        site = sites_with_drives(fake, 1)[0]
        fake.queue_reply(reply, path=r"/drives$", times=100)
        yield fake, site


@pytest.mark.parametrize(
    "reply",
    [
        Reply(401, _error("InvalidAuthenticationToken", "Access token validation failure.")),
        Reply(403, _error("accessDenied", "Access denied")),
        Reply(404, _error("itemNotFound", "Site not found")),
        Reply(400, _error("invalidRequest", "Invalid request")),
        Reply(429, _error("TooManyRequests", "Too many requests"), {"Retry-After": "0"}),
        Reply(503, _error("serviceNotAvailable", "Busy"), {"Retry-After": "0"}),
        Reply(503, _error("serviceNotAvailable", "Busy")),
        Reply(500, _error("generalException", "General exception")),
        Reply(502, "Bad gateway"),
    ],
    ids=lambda reply: f"{reply.status}{'-retry-after' if reply.headers else ''}",
)
def test_a_failing_sub_request_fails_exactly_as_the_same_read_sent_alone(reply):
    outcomes = []
    for read in (lambda c, site: c.drives(site.id), lambda c, site: c.drives_of([site.id])):
        with platform_answering(reply) as (fake, site), client_for(fake, retries=2) as client:
            with pytest.raises(VendorError) as raised:
                read(client, site)
            error = raised.value
            attempts = len(fake.requests_to(r"/drives$"))
            outcomes.append(
                (type(error), error.status, error.vendor_code, error.message, error.retry_after, attempts)
            )
            batched = len(fake.requests_to(BATCH))
    alone, in_batch = outcomes
    assert in_batch == alone
    assert batched >= 1  # the second read really went through $batch


def test_a_throttled_sub_request_is_retried_alone_after_its_retry_after(graph):
    sites = sites_with_drives(graph, 3)
    graph.queue_reply(
        Reply(429, _error("TooManyRequests", "Slow down"), {"Retry-After": "1"}),
        path=rf"/sites/{sites[1].id}/drives$",
    )
    started = time.monotonic()
    with client_for(graph) as client:
        drives = client.drives_of([s.id for s in sites])
    assert time.monotonic() - started >= 1.0
    assert [len(found) for found in drives] == [1, 1, 1]
    assert [len(graph.requests_to(rf"/sites/{s.id}/drives$")) for s in sites] == [1, 2, 1]
    assert batch_sizes(graph) == [3, 1]


def test_a_sub_request_throttled_past_the_retry_count_is_throttled(graph):
    site = sites_with_drives(graph, 1)[0]
    graph.queue_reply(
        Reply(429, _error("TooManyRequests", "Slow down"), {"Retry-After": "0"}), path=r"/drives$", times=100
    )
    with client_for(graph, retries=2) as client, pytest.raises(VendorThrottled):
        client.drives_of([site.id])
    assert len(graph.requests_to(r"/drives$")) == 3


def test_next_links_are_followed_in_further_batches(graph):
    graph.page_size = 2
    sites = sites_with_drives(graph, 3, drives=5)
    with client_for(graph) as client:
        drives = client.drives_of([s.id for s in sites])
    assert [len(found) for found in drives] == [5, 5, 5]
    assert batch_sizes(graph) == [3, 3, 3]
    assert sum("$skiptoken" in r.query for r in graph.requests_to(r"/drives$")) == 6


def test_a_next_link_outside_the_api_root_is_read_with_a_single_call(graph):
    site = sites_with_drives(graph, 1, drives=2)[0]
    elsewhere = graph.api_url.replace("127.0.0.1", "localhost") + f"/sites/{site.id}/drives?$skiptoken=1"
    first = {"id": "b!first", "name": "First", "driveType": "documentLibrary"}
    graph.queue_reply(Reply(200, {"value": [first], "@odata.nextLink": elsewhere}), path=r"/drives$")
    with client_for(graph) as client:
        (drives,) = client.drives_of([site.id])
    assert [d.name for d in drives] == ["First", site.drives[1].name]
    assert batch_sizes(graph) == [1]


def test_a_throttled_batch_is_retried_whole(graph):
    sites = sites_with_drives(graph, 2)
    graph.queue_reply(Reply(429, _error("TooManyRequests", "Slow down"), {"Retry-After": "0"}), path=BATCH)
    with client_for(graph) as client:
        drives = client.drives_of([s.id for s in sites])
    assert [len(found) for found in drives] == [1, 1]
    assert len(graph.requests_to(BATCH)) == 2


def test_a_batch_answer_missing_a_response_is_unavailable(graph):
    sites = sites_with_drives(graph, 2)
    graph.queue_reply(Reply(200, {"responses": []}), path=BATCH)
    with client_for(graph) as client, pytest.raises(VendorUnavailable):
        client.drives_of([s.id for s in sites])
