"""The audit archive (the auditLogArchive job) and the verification of chains that reach into it.

Entries older than AUDIT_ARCHIVE_AFTER_DAYS leave the AuditEntry table in runs of consecutive
entries of one chain: each run is written to a gzip file of JSON lines under AUDIT_ARCHIVE_DIR
(`<chain>/<first seq>.jsonl.gz`, the same bytes for the same entries), then recorded in AuditArchive
(range, count, SHA-256, path) and deleted from the table in one transaction. A chain always loses a
prefix, so it continues from its last archive: `audit_chain_verify_archived` checks each archive's
checksum and every entry's link, in the files and then in the table, up to the chain's head.

A run interrupted after writing a file leaves a file that the next run writes again; a run that
finds its range already recorded (a concurrent run) leaves it alone. Entries hold no secret (the
audit writer refuses them), so neither do the files.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import tempfile
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from core.audit import GENESIS, audit_chain_verify, audit_links_check, audit_record, system_actor
from core.models import AuditEntry
from ops.models import AuditArchive

logger = logging.getLogger(__name__)

BATCH = 10_000  # entries per file: bounds a run's memory and its deleting transaction
_FIELDS = ["id", "chain", "seq", "tenant_id", "action", "category", "actor", "actor_id", "resource"]
_FIELDS += ["resource_type", "details", "status", "request_id", "timestamp", "prev_hash", "hash"]


def audit_archive(*, now: datetime | None = None, run_id: uuid.UUID | None = None) -> int:
    """Archive every chain's entries older than the retention; returns how many entries moved."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.AUDIT_ARCHIVE_AFTER_DAYS)
    # Per chain, the last entry older than the cutoff: everything up to it goes (a prefix).
    ends = AuditEntry.objects.filter(timestamp__lt=cutoff).values("chain").annotate(end=Max("seq"))
    moved, files = 0, 0
    for row in ends.order_by("chain"):
        for archive in _archive_chain(row["chain"], row["end"], run_id):
            moved, files = moved + archive.entries, files + 1
    if files:
        audit_record(
            tenant=None,
            action="AUDIT_LOG_ARCHIVED",
            category="jobs",
            actor=system_actor("auditLogArchive"),
            resource={"type": "audit_archive", "id": str(run_id or ""), "name": "auditLogArchive"},
            details={"files": files, "entries": moved, "before": cutoff.isoformat()},
        )
    return moved


def _archive_chain(chain: str, end: int, run_id) -> Iterable[AuditArchive]:
    while True:
        batch = list(AuditEntry.objects.filter(chain=chain, seq__lte=end).order_by("seq")[:BATCH])
        if not batch:
            return
        archive = _archive_batch(batch, run_id)
        if archive is None:
            return  # another run is archiving this chain
        yield archive


def _archive_batch(batch: list[AuditEntry], run_id) -> AuditArchive | None:
    first, last = batch[0], batch[-1]
    relative = f"{first.chain}/{first.seq:012d}.jsonl.gz"
    data = gzip.compress(b"".join(_line(entry) for entry in batch), mtime=0)
    _write(archive_dir() / relative, data)
    try:
        with transaction.atomic():
            archive = AuditArchive.objects.create(
                chain=first.chain,
                tenant_id=first.tenant_id,
                first_seq=first.seq,
                last_seq=last.seq,
                prev_hash=first.prev_hash,
                last_hash=last.hash,
                entries=len(batch),
                first_timestamp=min(e.timestamp for e in batch),
                last_timestamp=max(e.timestamp for e in batch),
                path=relative,
                sha256=hashlib.sha256(data).hexdigest(),
                size_bytes=len(data),
                job_run_id=run_id,
            )
            rows = AuditEntry.objects.filter(chain=first.chain, seq__gte=first.seq, seq__lte=last.seq)
            if rows.delete_archived() != len(batch):
                raise IntegrityError("the entries changed while they were being archived")
    except IntegrityError:
        logger.warning("Audit chain %s from #%d is being archived by another run", first.chain, first.seq)
        return None
    return archive


def archive_dir() -> Path:
    return Path(settings.AUDIT_ARCHIVE_DIR)


def _line(entry: AuditEntry) -> bytes:
    values = {name: getattr(entry, name) for name in _FIELDS}
    values["id"], values["timestamp"] = str(entry.id), entry.timestamp.isoformat()
    values["tenant_id"] = str(entry.tenant_id) if entry.tenant_id else None
    return json.dumps(values, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def _write(path: Path, data: bytes) -> None:
    """Write the whole file or nothing under its name (a temporary file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".part-", delete=False) as part:
        part.write(data)
        part.flush()
        os.fsync(part.fileno())
    os.replace(part.name, path)


def archive_entries(archive: AuditArchive) -> list[AuditEntry]:
    """The entries of one archive file, checked against its recorded checksum (ValueError if the
    file is missing or differs)."""
    try:
        data = (archive_dir() / archive.path).read_bytes()
    except OSError as exc:
        raise ValueError(f"archive {archive.path} cannot be read ({type(exc).__name__})") from exc
    if hashlib.sha256(data).hexdigest() != archive.sha256:
        raise ValueError(f"archive {archive.path} does not match its recorded checksum")
    entries = []
    for line in gzip.decompress(data).splitlines():
        values = json.loads(line)
        values["timestamp"] = datetime.fromisoformat(values["timestamp"])
        entries.append(AuditEntry(**values))
    return entries


def audit_chain_verify_archived(chain: str) -> list[str]:
    """Problems found in one chain, its archived entries included: an archive file missing or
    altered, edited entries, missing entries, a truncated end. A chain with no archive is checked
    exactly as `core.audit.audit_chain_verify` checks it."""
    problems: list[str] = []
    previous, expected = GENESIS, 1
    for archive in AuditArchive.objects.filter(chain=chain).order_by("first_seq"):
        try:
            entries = archive_entries(archive)
        except ValueError as exc:
            problems.append(str(exc))
            previous, expected = archive.last_hash, archive.last_seq + 1  # check the rest anyway
            continue
        previous, expected = audit_links_check(entries, previous, expected, problems)
    return problems + audit_chain_verify(chain, after=(previous, expected))
