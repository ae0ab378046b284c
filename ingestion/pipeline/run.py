"""One attempt at a sync run (the Celery task calls this): claim the run, discover, then each item
through the stages (fetch, extract, chunk, embed, store), a stop request honoured at the next
item, and the run's status decided at the end. Per-item failures never stop a run."""

from __future__ import annotations

import logging

from ingestion.models import Platform, SyncRun
from ingestion.pipeline.context import RunContext, source_id_of
from ingestion.pipeline.discover import Discovery, discover, scope_query
from ingestion.pipeline.failures import RunFailed
from ingestion.pipeline.items import items_ingest
from ingestion.pipeline.source import sitelib_client
from ingestion.pipeline.store import removal_store
from ingestion.services.runs import (
    LeaseLost,
    sync_run_claim,
    sync_run_discovered,
    sync_run_finish,
    sync_run_handled,
)
from integrations.errors import VendorError
from integrations.http import OutboundRefused
from integrations.sitelib import DriveItem
from knowledge.embeddings import embedder
from knowledge.selectors import documents_of_configuration

logger = logging.getLogger(__name__)

STOPPED = "Stopped by an operator."
NOT_COMMITTED_RETRY_S = 0.5


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
    configuration = run.configuration
    if configuration.platform != Platform.SITELIB:
        sync_run_finish(
            run=run,
            holder=holder,
            status=SyncRun.Status.FAILED,
            error=f"Runs of {configuration.platform} configurations are not available yet.",
        )
        return
    try:
        client = sitelib_client(configuration=configuration)
        with client:
            _run_with(run, holder, client)
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


def _run_with(run: SyncRun, holder: str, client) -> None:
    ctx = _context(run, holder, client)
    found = _discover(ctx)
    handled = sync_run_handled(run=run)
    stop = sync_run_discovered(run=run, holder=holder, count=len(found.files))
    if not stop:
        stop = _removals(ctx, [item for item in found.deleted if source_id_of(item) not in handled])
    if not stop:
        stop = items_ingest(
            ctx=ctx, items=[item for item in found.files if source_id_of(item) not in handled]
        )
    if not stop and not run.incremental:
        stop = _remove_unseen(ctx, found, handled)
    if stop:
        sync_run_finish(run=run, holder=holder, status=SyncRun.Status.STOPPED, error=STOPPED)
    else:
        sync_run_finish(run=run, holder=holder, delta_tokens=found.delta_tokens)


def _context(run: SyncRun, holder: str, client) -> RunContext:
    configuration = run.configuration
    audience = (configuration.content_restriction or {}).get("audience") or []
    return RunContext(
        run=run,
        holder=holder,
        configuration=configuration,
        tenant=configuration.tenant,
        client=client,
        embedder=embedder(),
        audience=list(audience) or ["all"],
        use_ocr=configuration.use_ocr,
    )


def _discover(ctx: RunContext) -> Discovery:
    run, configuration = ctx.run, ctx.configuration
    try:
        return discover(
            client=ctx.client,
            tenant=ctx.tenant,
            query=scope_query(scope=configuration.scope, restriction=configuration.content_restriction or {}),
            tokens=configuration.delta_tokens if run.incremental else {},
            incremental=run.incremental,
            since=run.window_start,
        )
    except (VendorError, OutboundRefused) as exc:
        raise RunFailed(f"Discovery failed: {getattr(exc, 'message', exc)}") from None


def _removals(ctx: RunContext, deleted: list[DriveItem]) -> bool:
    """Items the change feed says were deleted leave the knowledge base; returns whether a stop
    was requested."""
    return any(removal_store(ctx=ctx, item=item) for item in deleted)


def _remove_unseen(ctx: RunContext, found: Discovery, handled: set[str]) -> bool:
    """A full run saw every file in scope of the drives it walked: the configuration's documents
    in those drives that it did not see are gone from the source (or out of the scope now) and
    leave the knowledge base. Returns whether a stop was requested."""
    seen = {source_id_of(item) for item in found.files} | handled
    walked = set(found.walked_drives)
    for document in documents_of_configuration(
        tenant=ctx.tenant, sync_configuration_id=ctx.configuration.public_id
    ):
        metadata = document.metadata or {}
        if document.source_id in seen or metadata.get("drive_id") not in walked:
            continue
        gone = DriveItem(
            id=str(metadata.get("item_id") or ""),
            drive_id=str(metadata["drive_id"]),
            name=document.title,
            web_url=document.source_url,
            deleted=True,
        )
        if removal_store(ctx=ctx, item=gone):
            return True
    return False
