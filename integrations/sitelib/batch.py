"""Reading collections of the document-site platform: one collection page by page
(`read_collection`), and many at once in JSON batches (`POST {graph}/$batch`): `read_collections`
raises the first failure, `read_each` answers each collection's items or its own failure (an item's
permissions, where one refusal must not fail the others).

Up to 20 requests go in one batch (the platform's limit) and the batches of one call are sent
concurrently on the client's pool. The platform answers every sub-request on its own (status,
headers, body, in any order), and each is handled exactly as the same request sent alone:

- an answer >= 400 fails that read with the client's `error_for` of it (401/403 denied, 404 not found,
  429 or 503 with Retry-After throttled, other 5xx unavailable), the same `VendorError`;
- 429 and 503 are first retried, in a later batch, after their Retry-After (else the session's
  backoff), within the outbound session's retry count and time budget (`integrations/http.py`);
- every `@odata.nextLink` is followed to the end, in a further batch when the link is under the
  API root (a link anywhere else is read with single calls, through the guard).

The batch request itself goes through the guarded session like any call; it only reads, so it is
retried like one (`idempotent=True`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from requests.structures import CaseInsensitiveDict

from core.outbound import RETRY_STATUSES
from integrations.base import VendorClient
from integrations.errors import VendorError, VendorUnavailable

BATCH_LIMIT = 20


@dataclass
class _Read:
    index: int  # which of the caller's collections this request reads
    url: str  # relative to the API root, query included
    attempt: int = 0  # throttled answers so far


@dataclass
class BatchAnswer:
    """One sub-request's answer, read as the `requests.Response` of the same request sent alone
    would be (`status_code`, `headers`, `json()`), so that the client's one code reads errors,
    Retry-After and bodies."""

    status_code: int
    headers: CaseInsensitiveDict
    body: object

    def json(self) -> object:
        if self.body is None:
            raise ValueError("The answer has no body.")
        return self.body


def read_collection(client: VendorClient, path: str, params: dict | None = None) -> Iterator[dict]:
    """Every item of a collection, following `@odata.nextLink` to the end (the link carries
    the query, so `params` go on the first request only)."""
    next_url: str | None = path
    while next_url:
        body = client.get_json(next_url, params=params)
        params = None
        items = body.get("value") or []
        yield from (item for item in items if isinstance(item, dict))
        next_url = body.get("@odata.nextLink")


def read_collections(client: VendorClient, urls: list[str]) -> list[list[dict]]:
    """Every item of each collection at `urls` (relative to the API root, query included), in the
    order of `urls`; the first failure in that order is raised."""
    results = read_each(client, urls)
    for result in results:
        if isinstance(result, VendorError):
            raise result
    return results


def read_each(client: VendorClient, urls: list[str]) -> list[list[dict] | VendorError]:
    """Each collection at `urls` (as `read_collections` takes them), in the order of `urls`: its
    items, or the `VendorError` its read ended with (the others are read to the end regardless).
    A failure of a batch request itself (the platform unreachable, the batch refused) is raised."""
    results: list[list[dict] | VendorError] = [[] for _ in urls]
    chunks = [range(start, min(start + BATCH_LIMIT, len(urls))) for start in range(0, len(urls), BATCH_LIMIT)]
    client.fan_out(lambda chunk: _read_all(client, [_Read(n, urls[n]) for n in chunk], results), chunks)
    return results


def _read_all(client: VendorClient, reads: list[_Read], results: list[list[dict] | VendorError]) -> None:
    """One chunk's reads until each is complete or failed. Each read owns its `results` slot, so
    chunks on different threads never write the same list."""
    deadline = time.monotonic() + client.session.retry_budget
    while reads:
        later: list[_Read] = []
        waits: list[float] = []
        for read, response in zip(reads, _send(client, reads), strict=True):
            if response.status_code in RETRY_STATUSES:
                # The session's own retry policy (count, Retry-After, backoff, budget).
                wait = client.session.retry_wait(response, read.attempt, deadline)
                if wait is not None:
                    read.attempt += 1
                    later.append(read)
                    waits.append(wait)
                    continue
            try:
                link = _take_page(client, response, results[read.index])
                relative = _relative(client, link) if link else None
                if link and relative is None:
                    results[read.index].extend(read_collection(client, link))
            except VendorError as exc:
                results[read.index] = exc
                continue
            if relative is not None:
                later.append(_Read(read.index, relative))
        if waits:
            time.sleep(max(waits))
        reads = later


def _take_page(client: VendorClient, response: BatchAnswer, into: list[dict]) -> str | None:
    """One answered page's items into `into`; its next link. An answer >= 400 raises its error."""
    if response.status_code >= 400:
        raise client.error_for(response)
    page = client.json_of(response)
    into.extend(item for item in page.get("value") or [] if isinstance(item, dict))
    link = page.get("@odata.nextLink")
    return str(link) if link else None


def _send(client: VendorClient, reads: list[_Read]) -> list[BatchAnswer]:
    """One batch; its answers, in the order of `reads`."""
    ids = [str(n) for n in range(len(reads))]
    body = {"requests": [{"id": i, "method": "GET", "url": r.url} for i, r in zip(ids, reads, strict=True)]}
    answer = client.json_of(client.request("POST", "$batch", json=body, idempotent=True))
    listed = answer.get("responses")
    by_id = {}
    if isinstance(listed, list):
        by_id = {str(item.get("id")): item for item in listed if isinstance(item, dict)}
    if any(i not in by_id or not isinstance(by_id[i].get("status"), int) for i in ids):
        raise VendorUnavailable(
            f"The {client.platform} platform answered a batch without every response.",
            platform=client.platform,
        )
    return [_answer(by_id[i]) for i in ids]


def _answer(item: dict) -> BatchAnswer:
    headers = item.get("headers")
    headers = {str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {}
    return BatchAnswer(item["status"], CaseInsensitiveDict(headers), item.get("body"))


def _relative(client: VendorClient, link: str) -> str | None:
    """A next link as a batch request's URL (relative to the API root), or None when the link
    leads elsewhere."""
    if link.startswith(client.base_url + "/"):
        return link[len(client.base_url) :]
    return None
