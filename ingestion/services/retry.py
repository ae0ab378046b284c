"""Retrying failed files (`POST /v2/cloudstore/retry-failed`, DESIGN section 15): the named files of
a platform (or all of its failed files) go back through the pipeline in a retry run of the
configuration whose run recorded the failure. A success removes the file's failure record; a
renewed failure adds one to its `retry_count`.

A file is skipped (counted, not queued) when the tenant has no failure record of it within
retention, when no configuration of the tenant recorded its failure (a record reported from
elsewhere), or while a run of its configuration is queued or running.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.models import Tenant
from ingestion.models import SyncRun, SyncRunItem
from ingestion.selectors import failed_file_list
from ingestion.services.runs import RunAlreadyActive, sync_run_queue

BATCH = 500  # file ids per query (well under every database's limit of parameters)


@dataclass
class RetryQueued:
    runs: list[SyncRun] = field(default_factory=list)
    queued: int = 0
    skipped: int = 0


def failed_files_retry(
    *, tenant: Tenant, platform: str, file_ids: list[str] | None, actor: dict, request_id: str | None
) -> RetryQueued:
    failing = {
        record.file_id: record.content_type
        for record in failed_file_list(tenant=tenant, platform_type=platform).items
    }
    asked = list(dict.fromkeys(file_ids)) if file_ids is not None else list(failing)
    result = RetryQueued(skipped=sum(1 for file_id in asked if file_id not in failing))
    owners = _owners(tenant, platform, [file_id for file_id in asked if file_id in failing])
    result.skipped += sum(1 for file_id in asked if file_id in failing and file_id not in owners)
    by_configuration: dict = {}
    for file_id, configuration in owners.items():
        by_configuration.setdefault(configuration, {})[file_id] = failing[file_id]
    for configuration, items in by_configuration.items():
        try:
            run = sync_run_queue(
                configuration=configuration,
                kind=SyncRun.Kind.RETRY,
                incremental=False,
                actor=actor,
                request_id=request_id,
                retry_items=items,
            )
        except RunAlreadyActive:
            result.skipped += len(items)
            continue
        result.runs.append(run)
        result.queued += len(items)
    return result


def _owners(tenant: Tenant, platform: str, file_ids: list[str]) -> dict:
    """file id -> the configuration whose latest run of it recorded a failure."""
    owners: dict = {}
    for start in range(0, len(file_ids), BATCH):
        rows = (
            SyncRunItem.objects.filter(
                run__tenant=tenant,
                run__configuration__platform=platform,
                outcome=SyncRunItem.Outcome.FAILED,
                item_key__in=file_ids[start : start + BATCH],
            )
            .select_related("run__configuration__tenant")
            .order_by("-finished_at")
        )
        for item in rows:
            owners.setdefault(item.item_key, item.run.configuration)
    return owners
