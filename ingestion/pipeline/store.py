"""Pipeline stage "store": each item's effect and its record in the run, in one transaction. A
document's chunks are replaced, its failed-file record resolved and the run's counters moved
together: after a crash either all of that happened or none of it did.

An item's readers (DESIGN section 19) go with it: a stored document takes the item's, an unchanged
one gets them without being embedded again, and an item whose permissions could not be read is
kept with no readers (only knowledge:all callers read it) and counts as failed, `ACCESS_DENIED`,
until a later run or permissions pass reads them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import transaction

from ingestion.models import SyncRunItem
from ingestion.pipeline.context import RunContext
from ingestion.pipeline.failures import ItemFailed
from ingestion.pipeline.sources import SourceItem
from ingestion.services.failed_files import failed_file_record, failed_file_remove
from ingestion.services.runs import ItemResult, sync_run_items_record
from knowledge.models import Document
from knowledge.selectors import document_find
from knowledge.vectors.store import document_delete, document_readers_set, document_upsert


@dataclass
class Prepared:
    """An item read and cut into chunks, waiting for its embeddings."""

    item: SourceItem
    text_hash: str
    chunks: list[str]


def unchanged_document(*, ctx: RunContext, item: SourceItem, text_hash: str | None = None) -> Document | None:
    """The indexed document of this item when it already holds the item's text as it is now: same
    content (its text's hash, or before fetching the platform's version tag), place, title,
    audience and embedding model; else None. (New readers need no new embeddings: `skip_store`
    gives them to the document found here.)"""
    document = document_find(tenant=ctx.tenant, platform_type=ctx.platform, source_id=item.key)
    if document is None:
        return None
    metadata = document.metadata or {}
    if (document.source_url, document.title, list(document.audience)) != (
        item.web_url,
        item.name,
        ctx.audience,
    ):
        return None
    if metadata.get("embedding_model") != ctx.embedder.model:
        return None
    if text_hash is not None:
        unchanged = document.content_hash == text_hash
    else:
        unchanged = bool(item.version) and metadata.get("version") == item.version
    return document if unchanged else None


def document_store(*, ctx: RunContext, prepared: Prepared, vectors: np.ndarray) -> bool:
    """Write the document with its new chunks. Returns whether a stop was requested."""
    item = prepared.item
    with transaction.atomic():
        _, written, removed = document_upsert(
            tenant=ctx.tenant,
            platform_type=ctx.platform,
            content_type=item.content_type,
            source_id=item.key,
            source_url=item.web_url,
            title=item.name,
            content_hash=prepared.text_hash,
            audience=ctx.audience,
            readers=item.readers or (),
            metadata={
                **item.metadata,
                "version": item.version,
                "embedding_model": ctx.embedder.model,
                "sync_run_id": ctx.run.public_id,
            },
            sync_configuration_id=ctx.configuration.public_id,
            model=ctx.embedder.model,
            chunks=list(zip(prepared.chunks, vectors, strict=True)),
        )
        settled = _settled(
            ctx, item, SyncRunItem.Outcome.SUCCEEDED, chunks_written=written, vectors_removed=removed
        )
        return _record(ctx, [settled])


def skip_store(*, ctx: RunContext, item: SourceItem, document: Document) -> bool:
    """An unchanged item (`document`, its indexed document): nothing to embed; its readers as the
    platform gives them now, and an old failure record of it no longer holds."""
    return readers_store(ctx=ctx, indexed=[(item, document)])


def readers_store(*, ctx: RunContext, indexed: Sequence[tuple[SourceItem, Document | None]]) -> bool:
    """The indexed items' readers as the platform gives them now (a batch of a permissions pass,
    or an unchanged item of a run), in one transaction: each recorded as succeeded when its readers
    changed, skipped when not."""
    with transaction.atomic():
        results = []
        for item, document in indexed:
            changed = document is not None and document_readers_set(
                tenant=ctx.tenant, document=document, readers=item.readers or ()
            )
            outcome = SyncRunItem.Outcome.SUCCEEDED if changed else SyncRunItem.Outcome.SKIPPED
            results.append(_settled(ctx, item, outcome))
        return _record(ctx, results)


def _settled(ctx: RunContext, item: SourceItem, outcome: str, **counts) -> ItemResult:
    """The item's result, its failure record settled in the caller's transaction: `outcome` and no
    failure record, or, when its permissions could not be read, a failure `ACCESS_DENIED` (its
    document keeps no readers)."""
    if item.readers is not None:
        failed_file_remove(tenant=ctx.tenant, content_type=item.content_type, file_id=item.key)
        return _result(item, outcome, **counts)
    reason = item.readers_error or "The platform did not say who may read it."
    failure = ItemFailed("ACCESS_DENIED", f"Its permissions could not be read: {reason}")
    return _failure_recorded(ctx, item, failure, **counts)


def blocked_store(*, ctx: RunContext, item: SourceItem) -> bool:
    """An item under a blocked URL prefix is skipped, not failed; what an earlier run indexed of it
    leaves the index, with any failure record."""
    document = document_find(tenant=ctx.tenant, platform_type=ctx.platform, source_id=item.key)
    with transaction.atomic():
        failed_file_remove(tenant=ctx.tenant, content_type=item.content_type, file_id=item.key)
        removed = document_delete(tenant=ctx.tenant, document=document) if document else 0
        skipped = _result(
            item,
            SyncRunItem.Outcome.SKIPPED,
            error_message="Under a blocked URL prefix (the tenant's block list).",
            vectors_removed=removed,
        )
        return _record(ctx, [skipped])


def failure_store(*, ctx: RunContext, item: SourceItem, failure: ItemFailed) -> bool:
    """Write or update the item's failed-file record (`retry_count` + 1); its indexed document,
    if an earlier run stored one, stays as it was."""
    with transaction.atomic():
        return _record(ctx, [_failure_recorded(ctx, item, failure)])


def _failure_recorded(ctx: RunContext, item: SourceItem, failure: ItemFailed, **counts) -> ItemResult:
    failed_file_record(
        tenant=ctx.tenant,
        platform_domain=ctx.configuration.platform_domain,
        content_type=item.content_type,
        file_id=item.key,
        file_name=item.name[:1024],
        source_url=item.web_url[:4096],
        error_type=failure.error_type,
        error_message=failure.message,
    )
    return _result(
        item,
        SyncRunItem.Outcome.FAILED,
        error_type=failure.error_type,
        error_message=failure.message,
        **counts,
    )


def removal_store(*, ctx: RunContext, item: SourceItem) -> bool | None:
    """An item deleted at the source leaves the index (with any failure record of it). None when
    the index never held it (nothing recorded)."""
    document = document_find(tenant=ctx.tenant, platform_type=ctx.platform, source_id=item.key)
    return document_removal_store(ctx=ctx, key=item.key, content_type=item.content_type, document=document)


def document_removal_store(
    *, ctx: RunContext, key: str, content_type: str, document: Document | None
) -> bool | None:
    with transaction.atomic():
        failed_file_remove(tenant=ctx.tenant, content_type=content_type, file_id=key)
        if document is None:
            return None
        removed = document_delete(tenant=ctx.tenant, document=document)
        gone = SourceItem(
            key=key, name=document.title, web_url=document.source_url, content_type=content_type
        )
        return _record(ctx, [_result(gone, SyncRunItem.Outcome.REMOVED, vectors_removed=removed)])


def _result(item: SourceItem, outcome: str, **fields) -> ItemResult:
    return ItemResult(
        item_key=item.key,
        content_type=item.content_type,
        name=item.name,
        source_url=item.web_url,
        outcome=outcome,
        **fields,
    )


def _record(ctx: RunContext, results: list[ItemResult]) -> bool:
    return sync_run_items_record(run=ctx.run, holder=ctx.holder, results=results)
