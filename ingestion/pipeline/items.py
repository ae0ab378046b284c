"""Each item of a run through fetch, extract, chunk, embed and store, in order of discovery.

Fetching and reading an item (network, the extraction child, the tokenizer) runs in a few
threads ahead of the one that embeds and stores: while the model embeds one batch, the next files
are already on their way. Everything that touches the database stays on the run's own thread.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from django.conf import settings

from ingestion.pipeline.chunk import text_chunk
from ingestion.pipeline.context import RunContext
from ingestion.pipeline.embed import chunks_embed
from ingestion.pipeline.extract import ExtractionFailed, text_extract
from ingestion.pipeline.failures import ItemFailed, ItemGone
from ingestion.pipeline.fetch import item_check, item_fetch
from ingestion.pipeline.sources import Source, SourceItem
from ingestion.pipeline.store import (
    Prepared,
    blocked_store,
    document_store,
    failure_store,
    removal_store,
    skip_store,
    unchanged_document,
)
from knowledge.models import Document

READ_AHEAD = 3  # threads downloading and reading the next files
BLOCKED = "blocked"


@dataclass
class Read:
    text_hash: str
    chunks: list[str]


def items_ingest(*, ctx: RunContext, items: Iterable[SourceItem]) -> bool:
    """Returns whether a stop was requested (files read but not yet stored are left for the next
    run then)."""
    waiting: list[Prepared] = []
    queue: deque[tuple[SourceItem, object]] = deque()
    upcoming = iter(items)
    with ThreadPoolExecutor(max_workers=READ_AHEAD, thread_name_prefix="ingest-read") as pool:
        while True:
            while len(queue) < 2 * READ_AHEAD and (item := next(upcoming, None)) is not None:
                queue.append((item, _triage(ctx, pool, item)))
            if not queue:
                break
            item, ticket = queue.popleft()
            if _settle(ctx, item, ticket, waiting):
                pool.shutdown(wait=True, cancel_futures=True)
                return True
            if sum(len(p.chunks) for p in waiting) >= settings.INGEST_EMBED_BATCH:
                stop, waiting = _embed_and_store(ctx, waiting), []
                if stop:
                    pool.shutdown(wait=True, cancel_futures=True)
                    return True
    return _embed_and_store(ctx, waiting) if waiting else False


def _triage(ctx: RunContext, pool: ThreadPoolExecutor, item: SourceItem) -> object:
    """What the metadata decides on this thread (blocked, a failure, or unchanged: its indexed
    document), else the item's reading started in the pool."""
    if ctx.blocked(item):
        return BLOCKED
    try:
        item_check(item=item, use_ocr=ctx.use_ocr)
    except ItemFailed as failure:
        return failure
    document = unchanged_document(ctx=ctx, item=item)
    if document is not None:
        return document
    return pool.submit(_read, ctx.source, item, ctx.use_ocr)


def _read(source: Source, item: SourceItem, use_ocr: bool) -> Read:
    """Fetch, extract, hash and chunk (in a pool thread: no database here)."""
    content = item_fetch(source=source, item=item)
    try:
        text = text_extract(
            content=content.data,
            file_name=content.file_name,
            mime_type=content.mime_type or None,
            use_ocr=use_ocr,
        )
    except ExtractionFailed as exc:
        raise ItemFailed(exc.error_type, exc.message) from None
    return Read(text_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(), chunks=text_chunk(text))


def _settle(ctx: RunContext, item: SourceItem, ticket: object, waiting: list[Prepared]) -> bool:
    """Record what became of the item, or put it among those waiting for embeddings. Returns
    whether a stop was requested."""
    if isinstance(ticket, Future):
        try:
            ticket = ticket.result()
        except ItemFailed as failure:
            ticket = failure
        except ItemGone:
            return bool(removal_store(ctx=ctx, item=item))
    if ticket == BLOCKED:
        return blocked_store(ctx=ctx, item=item)
    if isinstance(ticket, ItemFailed):
        return failure_store(ctx=ctx, item=item, failure=ticket)
    if isinstance(ticket, Read):  # read: unchanged when its text is the indexed document's
        ticket = unchanged_document(ctx=ctx, item=item, text_hash=ticket.text_hash) or ticket
    if isinstance(ticket, Document):
        return skip_store(ctx=ctx, item=item, document=ticket)
    waiting.append(Prepared(item=item, text_hash=ticket.text_hash, chunks=ticket.chunks))
    return False


def _embed_and_store(ctx: RunContext, waiting: list[Prepared]) -> bool:
    stop = False
    vectors = chunks_embed(embedder=ctx.embedder, documents=[p.chunks for p in waiting])
    for prepared, result in zip(waiting, vectors, strict=True):
        if isinstance(result, ItemFailed):
            stop = failure_store(ctx=ctx, item=prepared.item, failure=result) or stop
        else:
            stop = _store(ctx, prepared, result) or stop
    return stop


def _store(ctx: RunContext, prepared: Prepared, vectors) -> bool:
    try:
        return document_store(ctx=ctx, prepared=prepared, vectors=vectors)
    except ValueError as exc:  # the vector store refused the vectors or the document's fields
        failure = ItemFailed("VECTOR_EMBEDDING_FAILED", f"The vector store refused the document: {exc}")
        return failure_store(ctx=ctx, item=prepared.item, failure=failure)
