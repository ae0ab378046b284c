"""One attempt at a sync run (the Celery task calls this): claim the run, discover, then each item
through the stages (fetch, extract, chunk, embed, store), a stop request honoured at the next
item, and the run's status decided at the end. Per-item failures never stop a run.

A retry run (`retry-failed`) discovers as a full run does and takes only the items it was asked to
retry; an asked-for item that discovery no longer finds is gone, and its failure record with it.

A permissions run (DESIGN section 19) discovers as a full run does and gives each indexed item the
readers discovery found, downloading and embedding nothing; it adds and removes no documents.
"""

from __future__ import annotations

import logging

from core.outbound import OutboundRefused
from ingestion.models import SyncRun
from ingestion.pipeline.context import RunContext
from ingestion.pipeline.failures import RunFailed
from ingestion.pipeline.items import items_ingest
from ingestion.pipeline.sources import Discovery, SourceItem, source_open
from ingestion.pipeline.store import document_removal_store, readers_store, removal_store
from ingestion.services.runs import (
    LeaseLost,
    sync_run_claim,
    sync_run_discovered,
    sync_run_finish,
    sync_run_handled,
)
from integrations.errors import VendorError
from knowledge.embeddings import embedder
from knowledge.selectors import SourceRules, document_find, documents_of_configuration, source_rules_get

logger = logging.getLogger(__name__)

STOPPED = "Stopped by an operator."
NOT_COMMITTED_RETRY_S = 0.5
PERMISSIONS_BATCH = 100  # a permissions pass's items given their readers in one transaction


def sync_run_execute(*, run_id: str) -> float | None:
    """Run (or resume) the run; returns after how many seconds to try again when it cannot be
    taken now (not committed yet, or held by a live attempt), else None."""
    claim = sync_run_claim(run_id=run_id)
    if claim.missing:
        return NOT_COMMITTED_RETRY_S
    if claim.run is None:
        return claim.retry_in
    try:
        _execute(claim.run, claim.holder)
    except LeaseLost:
        logger.warning("Run %s was taken over by another attempt; this one stops", claim.run.public_id)
    return None


def _execute(run: SyncRun, holder: str) -> None:
    try:
        source = source_open(run.configuration)
        try:
            _run_with(_context(run, holder, source))
        finally:
            source.close()
    except RunFailed as exc:
        sync_run_finish(run=run, holder=holder, status=SyncRun.Status.FAILED, error=str(exc))
    except LeaseLost:
        raise
    except Exception:
        logger.exception("Run %s failed", run.public_id)
        sync_run_finish(
            run=run,
            holder=holder,
            status=SyncRun.Status.FAILED,
            error="The run stopped on an internal error; it was logged.",
        )


def _run_with(ctx: RunContext) -> None:
    run, holder = ctx.run, ctx.holder
    found = _discover(ctx)
    handled = sync_run_handled(run=run)
    if run.kind == SyncRun.Kind.RETRY:
        stop = _retry(ctx, found, handled)
    elif run.kind == SyncRun.Kind.PERMISSIONS:
        stop = _permissions(ctx, found, handled)
    else:
        stop = sync_run_discovered(run=run, holder=holder, count=len(found.items))
        if not stop:
            stop = _removals(ctx, [item for item in found.deleted if item.key not in handled])
        if not stop:
            stop = items_ingest(ctx=ctx, items=[item for item in found.items if item.key not in handled])
        if not stop:
            stop = _remove_unseen(ctx, found, handled)
    if stop:
        sync_run_finish(run=run, holder=holder, status=SyncRun.Status.STOPPED, error=STOPPED)
    else:
        sync_run_finish(run=run, holder=holder, delta_tokens=found.delta_tokens)


def _context(run: SyncRun, holder: str, source) -> RunContext:
    configuration = run.configuration
    restriction = configuration.content_restriction or {}
    audience = list(restriction.get("audience") or []) or ["all"]
    return RunContext(
        run=run,
        holder=holder,
        configuration=configuration,
        tenant=configuration.tenant,
        source=source,
        embedder=embedder(),
        audience=audience,
        use_ocr=configuration.use_ocr,
        rules=_block_list(configuration.tenant, audience)
        if restriction.get("blacklisted")
        else SourceRules(),
    )


def _block_list(tenant, audience: list[str]) -> SourceRules:
    return source_rules_get(tenant=tenant, audience=audience, blacklisted=True, source_restriction=False)


def _discover(ctx: RunContext) -> Discovery:
    run, configuration = ctx.run, ctx.configuration
    incremental = run.incremental and run.kind not in (SyncRun.Kind.RETRY, SyncRun.Kind.PERMISSIONS)
    try:
        return ctx.source.discover(
            incremental=incremental,
            since=run.window_start,
            tokens=configuration.delta_tokens if incremental else {},
        )
    except (VendorError, OutboundRefused) as exc:
        raise RunFailed(f"Discovery failed: {getattr(exc, 'message', exc)}") from None


def _removals(ctx: RunContext, deleted: list[SourceItem]) -> bool:
    """Items the change feed says were deleted leave the knowledge base; returns whether a stop
    was requested."""
    return any(removal_store(ctx=ctx, item=item) for item in deleted)


def _remove_unseen(ctx: RunContext, found: Discovery, handled: set[str]) -> bool:
    """The configuration's documents that discovery would have found but did not are gone from
    the source (or out of the scope now) and leave the knowledge base. Returns whether a stop was
    requested."""
    seen = {item.key for item in found.items} | handled
    for document in documents_of_configuration(
        tenant=ctx.tenant, sync_configuration_id=ctx.configuration.public_id
    ):
        if document.source_id in seen or not found.covers(document):
            continue
        if document_removal_store(
            ctx=ctx, key=document.source_id, content_type=document.content_type, document=document
        ):
            return True
    return False


def _permissions(ctx: RunContext, found: Discovery, handled: set[str]) -> bool:
    """The indexed items that discovery found get the readers it found for them, PERMISSIONS_BATCH
    in a transaction. Returns whether a stop was requested."""
    indexed = {
        document.source_id: document
        for document in documents_of_configuration(
            tenant=ctx.tenant, sync_configuration_id=ctx.configuration.public_id
        )
    }
    pairs = [
        (item, indexed[item.key]) for item in found.items if item.key in indexed and item.key not in handled
    ]
    if sync_run_discovered(run=ctx.run, holder=ctx.holder, count=len(pairs)):
        return True
    return any(
        readers_store(ctx=ctx, indexed=pairs[start : start + PERMISSIONS_BATCH])
        for start in range(0, len(pairs), PERMISSIONS_BATCH)
    )


def _retry(ctx: RunContext, found: Discovery, handled: set[str]) -> bool:
    """The asked-for items that discovery found go through the stages again; the others are gone
    at the source: their failure records (and any document) are removed."""
    wanted = {key: content_type for key, content_type in ctx.run.retry_items.items() if key not in handled}
    items = [item for item in found.items if item.key in wanted]
    stop = sync_run_discovered(run=ctx.run, holder=ctx.holder, count=len(items))
    if not stop:
        stop = items_ingest(ctx=ctx, items=items)
    for key in sorted(set(wanted) - {item.key for item in items}):
        if stop:
            break
        document = document_find(tenant=ctx.tenant, platform_type=ctx.platform, source_id=key)
        stop = bool(document_removal_store(ctx=ctx, key=key, content_type=wanted[key], document=document))
    return stop
