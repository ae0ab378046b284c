"""Sync runs (DESIGN section 15): queued one at a time per configuration, held by one attempt of
their task at a time, resumed when the worker holding them dies, stopped at a document boundary.

The lease: the attempt that claims a run holds it until `lease_expires_at`, renewed each time it
finishes an item (INGEST_RUN_LEASE_S). An attempt that finds the run held by a lease that has
expired takes it over; the items the dead attempt finished are recorded (`SyncRunItem`, in the same
transaction as their effect), so the new holder passes over them and nothing is done twice.
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import DateTimeField, F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.api.errors import Conflict, ServiceUnavailable
from core.audit import audit_record
from ingestion.models import SyncConfiguration, SyncRun, SyncRunItem

logger = logging.getLogger(__name__)

RUN_TASK = "ingestion.tasks.sync_run_execute"  # sent by name: the tasks module imports this one
# An incremental run starts this long before the previous window's end: a change saved while the
# previous run was listing is seen again rather than missed.
WINDOW_OVERLAP = timedelta(minutes=5)
# More than this many failures and more than this share of the items: the run failed.
FAILED_COUNT = 3
FAILED_SHARE = 0.10


class RunAlreadyActive(Conflict):
    code = "SYNC_RUN_ACTIVE"


class LeaseLost(Exception):
    """Another attempt has taken the run over (this one outlived its lease): stop, write nothing."""


def sync_run_queue(
    *,
    configuration: SyncConfiguration,
    kind: str,
    incremental: bool,
    actor: dict,
    job_id: str | None = None,
    since: datetime | None = None,
    request_id: str | None = None,
    retry_items: dict[str, str] | None = None,
) -> SyncRun:
    """Record a queued run and hand its id to the broker, in one transaction: 409 while another run
    of the configuration is queued or running (a unique constraint decides), 503 with nothing
    recorded when the broker refuses. `since` overrides the configuration's `last_sync` as the
    start of an incremental window. A retry run names its items (`retry_items`: key -> content
    type)."""
    start = since or configuration.last_sync
    now = timezone.now()
    run = SyncRun(
        configuration=configuration,
        tenant_id=configuration.tenant_id,
        job_id=job_id or f"job-{uuid.uuid4()}",
        kind=kind,
        incremental=incremental,
        window_start=start - WINDOW_OVERLAP if incremental and start else None,
        window_end=now,
        queued_at=now,
        triggered_by=actor,
        retry_items=retry_items or {},
    )
    try:
        with transaction.atomic():
            run.save(force_insert=True)
            _audit(run, "SYNC_RUN_QUEUED", actor, request_id, {"kind": kind, "incremental": incremental})
            _send(run)
    except IntegrityError:
        raise _already_active(configuration) from None
    return run


def _send(run: SyncRun) -> None:
    try:
        current_app.send_task(RUN_TASK, args=[str(run.id)], retry=False)
    except Exception as exc:
        logger.warning("Broker unavailable while queueing %s: %r", run.public_id, exc)
        raise ServiceUnavailable("The job queue is unavailable; nothing was queued.") from exc


def _already_active(configuration: SyncConfiguration) -> RunAlreadyActive:
    active = SyncRun.objects.filter(configuration=configuration, status__in=SyncRun.ACTIVE).first()
    which = f" ({active.public_id}, {active.status})" if active else ""
    return RunAlreadyActive(
        f"A run of sync configuration {configuration.public_id} is already queued or running{which}."
    )


def _audit(run: SyncRun, action: str, actor: dict, request_id: str | None, details: dict) -> None:
    audit_record(
        tenant=run.configuration.tenant,
        action=action,
        category="ingestion",
        actor=actor,
        resource={"type": "sync_run", "id": run.public_id, "name": run.configuration.name},
        details={"syncConfigurationId": run.configuration.public_id, **details},
        request_id=request_id,
    )


# ---- the attempt that runs it


@dataclass(frozen=True)
class Claim:
    """What an attempt of the run's task found: the run to work on (held by `holder`), or why not."""

    run: SyncRun | None = None
    holder: str = ""
    retry_in: float | None = None  # another attempt holds it: look again after this many seconds
    # Not committed when this attempt tried to take it (queued inside a transaction still open).
    missing: bool = False


def sync_run_claim(*, run_id) -> Claim:
    holder = uuid.uuid4().hex
    now = timezone.now()
    takeable = Q(status=SyncRun.Status.QUEUED) | Q(status=SyncRun.Status.RUNNING, lease_expires_at__lt=now)
    taken = SyncRun.objects.filter(takeable, id=run_id).update(
        status=SyncRun.Status.RUNNING,
        started_at=Coalesce(F("started_at"), Value(now, output_field=DateTimeField())),
        attempts=F("attempts") + 1,
        lease_holder=holder,
        lease_expires_at=_lease_end(now),
    )
    run = SyncRun.objects.select_related("configuration", "tenant").filter(id=run_id).first()
    if run is None:
        return Claim(missing=True)
    if taken:
        return Claim(run=run, holder=holder)
    if run.status == SyncRun.Status.QUEUED:  # committed between the UPDATE and this read
        return Claim(missing=True)
    if run.status == SyncRun.Status.RUNNING and run.lease_expires_at:
        return Claim(retry_in=max(1.0, (run.lease_expires_at - now).total_seconds() + 1))
    return Claim()  # finished or stopped: a redelivery with nothing left to do


def _lease_end(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.INGEST_RUN_LEASE_S)


@dataclass
class ItemResult:
    """One item's outcome, recorded by `sync_run_items_record`."""

    item_key: str
    name: str
    source_url: str
    outcome: str
    content_type: str = ""
    error_type: str = ""
    error_message: str = ""
    chunks_written: int = 0
    vectors_removed: int = 0


_COUNTER_OF = {
    SyncRunItem.Outcome.SUCCEEDED: "succeeded",
    SyncRunItem.Outcome.SKIPPED: "skipped",
    SyncRunItem.Outcome.FAILED: "failed",
}


def sync_run_items_record(*, run: SyncRun, holder: str, results: Sequence[ItemResult]) -> bool:
    """Count the items, record them and renew the lease, inside the caller's transaction (the one
    that writes the items' documents or failure records): one UPDATE of the run and one INSERT of
    the items, whatever their number. Raises LeaseLost when another attempt holds the run. Returns
    whether a stop was requested."""
    now = timezone.now()
    changes = {"lease_expires_at": _lease_end(now)}
    totals = Counter()
    for result in results:
        totals["chunks_written"] += result.chunks_written
        totals["vectors_removed"] += result.vectors_removed
        counter = _COUNTER_OF.get(result.outcome)
        if counter:
            totals[counter] += 1
            totals["processed"] += 1
    changes |= {name: F(name) + count for name, count in totals.items() if count}
    mine = SyncRun.objects.filter(id=run.id, lease_holder=holder, status=SyncRun.Status.RUNNING)
    if not mine.update(**changes):
        raise LeaseLost(run.public_id)
    SyncRunItem.objects.bulk_create(
        SyncRunItem(
            run=run,
            item_key=result.item_key[:512],
            name=result.name,
            source_url=result.source_url,
            outcome=result.outcome,
            content_type=result.content_type,
            error_type=result.error_type,
            error_message=result.error_message,
            chunks_written=result.chunks_written,
            finished_at=now,
        )
        for result in results
    )
    return SyncRun.objects.filter(id=run.id).values_list("stop_requested", flat=True).get()


def sync_run_handled(*, run: SyncRun) -> set[str]:
    """The item keys this run has already finished (by any attempt)."""
    return set(SyncRunItem.objects.filter(run=run).values_list("item_key", flat=True))


def sync_run_discovered(*, run: SyncRun, holder: str, count: int) -> bool:
    """Set how many items discovery found; returns whether a stop was requested."""
    mine = SyncRun.objects.filter(id=run.id, lease_holder=holder, status=SyncRun.Status.RUNNING)
    if not mine.update(discovered=count, lease_expires_at=_lease_end(timezone.now())):
        raise LeaseLost(run.public_id)
    return SyncRun.objects.filter(id=run.id).values_list("stop_requested", flat=True).get()


def run_outcome(*, failed: int, items: int) -> str:
    """DESIGN section 15: more than 3 failures and more than 10 % of the items is a failed run; any
    failure below that a partial one."""
    if failed > FAILED_COUNT and failed > FAILED_SHARE * items:
        return SyncRun.Status.FAILED
    return SyncRun.Status.PARTIAL if failed else SyncRun.Status.SUCCESS


def sync_run_finish(
    *, run: SyncRun, holder: str, status: str | None = None, error: str = "", delta_tokens: dict | None = None
) -> SyncRun:
    """End the run: `status` when given (failed, stopped), else by the threshold. A run that ends
    success or partial moves the configuration's `last_sync` to its window's end and keeps the
    drives' new delta tokens, in the same transaction."""
    with transaction.atomic():
        fresh = SyncRun.objects.select_for_update().select_related("configuration").get(id=run.id)
        if fresh.lease_holder != holder or fresh.status != SyncRun.Status.RUNNING:
            raise LeaseLost(run.public_id)
        fresh.status = status or run_outcome(failed=fresh.failed, items=fresh.processed)
        fresh.error = error[:4000]
        fresh.finished_at = timezone.now()
        fresh.lease_expires_at = None
        fresh.save(update_fields=["status", "error", "finished_at", "lease_expires_at"])
        # A permissions pass read no content: the next run's window starts where it did.
        if fresh.status in SyncRun.ENDED_WELL and fresh.kind != SyncRun.Kind.PERMISSIONS:
            _advance(fresh.configuration, fresh.window_end, delta_tokens or {})
    return fresh


def _advance(configuration: SyncConfiguration, until: datetime | None, delta_tokens: dict) -> None:
    locked = SyncConfiguration.objects.select_for_update().get(id=configuration.id)
    locked.last_sync = until
    locked.delta_tokens = {**locked.delta_tokens, **delta_tokens}
    locked.save(update_fields=["last_sync", "delta_tokens", "updated_at"])


# ---- operators


def sync_run_stop(*, run: SyncRun, actor: dict, request_id: str | None = None) -> SyncRun:
    """A queued run (or one whose worker is gone) stops now; a running one at its next document
    boundary. A finished run is left as it is."""
    with transaction.atomic():
        fresh = SyncRun.objects.select_for_update().select_related("configuration__tenant").get(id=run.id)
        if fresh.status not in SyncRun.ACTIVE:
            return fresh
        now = timezone.now()
        held = (
            fresh.status == SyncRun.Status.RUNNING and fresh.lease_expires_at and fresh.lease_expires_at > now
        )
        fresh.stop_requested = True
        if not held:
            fresh.status = SyncRun.Status.STOPPED
            fresh.finished_at = now
            fresh.error = "Stopped by an operator."
            fresh.lease_expires_at = None
        fresh.save(update_fields=["stop_requested", "status", "finished_at", "error", "lease_expires_at"])
        _audit(fresh, "SYNC_RUN_STOP_REQUESTED", actor, request_id, {"status": fresh.status})
    return fresh


def sync_runs_resume_abandoned(*, now: datetime | None = None) -> int:
    """Queue again the runs whose holder stopped renewing its lease (a worker that died and whose
    message the broker did not deliver again); the next attempt takes them over."""
    now = now or timezone.now()
    abandoned = SyncRun.objects.filter(status=SyncRun.Status.RUNNING, lease_expires_at__lt=now)
    count = 0
    for run in abandoned.only("id"):
        current_app.send_task(RUN_TASK, args=[str(run.id)], retry=False)
        count += 1
    return count


def sync_run_items_purge_expired(*, now: datetime | None = None) -> int:
    """Delete the item records of runs that finished more than FAILED_FILES_RETENTION_DAYS ago (the
    runs themselves, with their counters, stay); returns how many."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.FAILED_FILES_RETENTION_DAYS)
    deleted, _ = SyncRunItem.objects.filter(run__finished_at__lt=cutoff).delete()
    return deleted
