"""Pipeline stage "store": each item's effect and its record in the run, in one transaction. A
document's chunks are replaced, its failed-file record resolved and the run's counters moved
together: after a crash either all of that happened or none of it did."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db import transaction

from ingestion.models import SyncRunItem
from ingestion.pipeline.context import CONTENT_TYPE, PLATFORM, RunContext, source_id_of
from ingestion.pipeline.failures import ItemFailed
from ingestion.services import failed_file_record, failed_file_remove
from ingestion.services.runs import ItemResult, sync_run_item_record
from integrations.sitelib import DriveItem
from knowledge.selectors import document_find
from knowledge.vectors import document_delete, document_upsert


@dataclass
class Prepared:
    """An item read and cut into chunks, waiting for its embeddings."""

    item: DriveItem
    text_hash: str
    chunks: list[str]


def item_unchanged(*, ctx: RunContext, item: DriveItem, text_hash: str | None = None) -> bool:
    """The index already holds this item as it is now: same content (its text's hash, or before
    downloading the platform's content tag), place, title, audience and embedding model."""
    document = document_find(tenant=ctx.tenant, platform_type=PLATFORM, source_id=source_id_of(item))
    if document is None:
        return False
    metadata = document.metadata or {}
    if (document.source_url, document.title, list(document.audience)) != (
        item.web_url,
        item.name,
        ctx.audience,
    ):
        return False
    if metadata.get("embedding_model") != ctx.embedder.model:
        return False
    if text_hash is not None:
        return document.content_hash == text_hash
    return bool(item.ctag) and metadata.get("ctag") == item.ctag


def document_store(*, ctx: RunContext, prepared: Prepared, vectors: np.ndarray) -> bool:
    """Write the document with its new chunks. Returns whether a stop was requested."""
    item = prepared.item
    with transaction.atomic():
        _, written, removed = document_upsert(
            tenant=ctx.tenant,
            platform_type=PLATFORM,
            content_type=CONTENT_TYPE,
            source_id=source_id_of(item),
            source_url=item.web_url,
            title=item.name,
            content_hash=prepared.text_hash,
            audience=ctx.audience,
            metadata=_metadata(ctx, item),
            sync_configuration_id=ctx.configuration.public_id,
            model=ctx.embedder.model,
            chunks=list(zip(prepared.chunks, vectors, strict=True)),
        )
        failed_file_remove(tenant=ctx.tenant, content_type=CONTENT_TYPE, file_id=source_id_of(item))
        return _record(
            ctx, item, SyncRunItem.Outcome.SUCCEEDED, chunks_written=written, vectors_removed=removed
        )


def _metadata(ctx: RunContext, item: DriveItem) -> dict:
    return {
        "drive_id": item.drive_id,
        "item_id": item.id,
        "ctag": item.ctag,
        "etag": item.etag,
        "size": item.size,
        "mime_type": item.mime_type,
        "last_modified": item.last_modified.isoformat() if item.last_modified else None,
        "embedding_model": ctx.embedder.model,
        "sync_run_id": ctx.run.public_id,
    }


def skip_store(*, ctx: RunContext, item: DriveItem) -> bool:
    """An unchanged item: nothing to write; an old failure record of it no longer holds."""
    with transaction.atomic():
        failed_file_remove(tenant=ctx.tenant, content_type=CONTENT_TYPE, file_id=source_id_of(item))
        return _record(ctx, item, SyncRunItem.Outcome.SKIPPED)


def failure_store(*, ctx: RunContext, item: DriveItem, failure: ItemFailed) -> bool:
    """Write or update the item's failed-file record (`retry_count` + 1); its indexed document,
    if an earlier run stored one, stays as it was."""
    with transaction.atomic():
        failed_file_record(
            tenant=ctx.tenant,
            platform_domain=ctx.configuration.platform_domain,
            content_type=CONTENT_TYPE,
            file_id=source_id_of(item),
            file_name=item.name[:1024],
            source_url=item.web_url[:4096],
            error_type=failure.error_type,
            error_message=failure.message,
        )
        return _record(
            ctx,
            item,
            SyncRunItem.Outcome.FAILED,
            error_type=failure.error_type,
            error_message=failure.message,
        )


def removal_store(*, ctx: RunContext, item: DriveItem) -> bool | None:
    """An item deleted at the source leaves the index (with any failure record of it). None when
    the index never held it (nothing recorded)."""
    document = document_find(tenant=ctx.tenant, platform_type=PLATFORM, source_id=source_id_of(item))
    with transaction.atomic():
        failed_file_remove(tenant=ctx.tenant, content_type=CONTENT_TYPE, file_id=source_id_of(item))
        if document is None:
            return None
        removed = document_delete(tenant=ctx.tenant, document=document)
        return _record(
            ctx,
            item,
            SyncRunItem.Outcome.REMOVED,
            vectors_removed=removed,
            name=document.title,
            source_url=document.source_url,
        )


def _record(ctx: RunContext, item: DriveItem, outcome: str, **fields) -> bool:
    result = ItemResult(
        item_key=source_id_of(item),
        name=fields.pop("name", item.name),
        source_url=fields.pop("source_url", item.web_url),
        outcome=outcome,
        **fields,
    )
    return sync_run_item_record(run=ctx.run, holder=ctx.holder, result=result)
