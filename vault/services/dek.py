"""DEK rotation (DESIGN section 6). Starting one makes a new data key active at once; the
`dekRotation` job then moves rows in locked batches (compare-and-set on `dek_version`). The rows
themselves record what is left, so an interrupted job resumes where it stopped; the old key is
retired only when no row uses it."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache

import psycopg
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Max
from django.utils import timezone

from adminops.audit import audit_record, system_actor
from adminops.jobs import job_enqueue
from adminops.models import Tenant
from config.api.errors import Conflict
from vault import keyring
from vault.crypto import Sealed, associated_data, reseal
from vault.models import Credential, DataKey, DekRotation
from vault.services.secrets import SECRET_FIELDS

# Rows per locked batch: one SELECT ... FOR UPDATE and one UPDATE each (docs/performance.md).
BATCH_SIZE = 1000
# Batches in flight at once on PostgreSQL, each in its own transaction on its own connection.
WORKERS = 2


class RotationInProgress(Conflict):
    code = "DEK_ROTATION_IN_PROGRESS"


def dek_rotation_start(*, tenant: Tenant, actor: dict, request_id: str | None = None) -> DekRotation:
    try:
        with transaction.atomic():
            rotation = _start(tenant, actor, request_id)
            run = job_enqueue(
                name="dekRotation",
                triggered_by=actor,
                tenant_id=tenant.id,
                params={"rotationId": str(rotation.id)},
            )
            DekRotation.objects.filter(id=rotation.id).update(job_run_id=run.id)
            rotation.job_run_id = run.id
    except IntegrityError:
        raise _in_progress(tenant) from None
    return rotation


def _in_progress(tenant: Tenant) -> RotationInProgress:
    running = DekRotation.objects.filter(tenant=tenant, status=DekRotation.Status.IN_PROGRESS).first()
    details = {"rotationId": running.public_id} if running else {}
    return RotationInProgress("A DEK rotation is already in progress for this tenant.", details=details)


def _start(tenant: Tenant, actor: dict, request_id) -> DekRotation:
    if DekRotation.objects.filter(tenant=tenant, status=DekRotation.Status.IN_PROGRESS).exists():
        raise _in_progress(tenant)
    old_version, _ = keyring.active_dek(tenant_id=tenant.id)
    new_version = (DataKey.objects.filter(tenant=tenant).aggregate(v=Max("version"))["v"] or 0) + 1
    DataKey.objects.filter(tenant=tenant, status=DataKey.Status.ACTIVE).update(status=DataKey.Status.RETIRING)
    keyring.dek_create(tenant_id=tenant.id, version=new_version)
    total = Credential.objects.filter(tenant=tenant).exclude(dek_version=new_version).count()
    rotation = DekRotation.objects.create(
        tenant=tenant, from_version=old_version, to_version=new_version, items_total=total, initiated_by=actor
    )
    audit_record(
        tenant=tenant,
        action="DEK_ROTATION_STARTED",
        category="vault",
        actor=actor,
        resource={"type": "dek_rotation", "id": rotation.public_id, "name": tenant.name},
        details={"fromVersion": old_version, "toVersion": new_version, "itemsToRotate": total},
        request_id=request_id,
    )
    return rotation


def dek_rotation_run(*, rotation_id, batch_size: int = BATCH_SIZE, workers: int = WORKERS) -> int:
    """Move every row of the tenant to the rotation's key, batch by batch; finish when none is left.
    Safe to run again after an interruption (and a no-op once completed)."""
    rotation = DekRotation.objects.select_related("tenant").get(id=rotation_id)
    if rotation.status != DekRotation.Status.IN_PROGRESS:
        return 0
    moved = 0
    while True:
        # Normally one walk does it all; another only finds nothing left, or a row a writer still
        # holding the previous key put back while the walk was past it.
        walk = _Walk()
        moved += _walk_rows(rotation, batch_size, workers, walk)
        if walk.locked == 0:
            break
    _finish(rotation)
    return moved


@dataclass
class _Walk:
    """One pass over the tenant's rows in id order. The threads of a run share it: each locks the
    batch after the last one handed out, so no two batches overlap and no row is read twice."""

    after: str = "00000000-0000-0000-0000-000000000000"
    locked: int = 0
    over: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def _walk_rows(rotation: DekRotation, batch_size: int, workers: int, walk: _Walk) -> int:
    """On PostgreSQL, outside a caller's transaction, `workers` threads (one connection each) take
    batches in turn: one re-encrypts in Python while another's UPDATE runs in the database."""
    if workers < 2 or connection.vendor != "postgresql" or connection.in_atomic_block:
        return _take_batches(rotation, batch_size, walk)
    with ThreadPoolExecutor(max_workers=workers - 1) as pool:
        helpers = [
            pool.submit(_on_own_connection, _take_batches, rotation, batch_size, walk)
            for _ in range(workers - 1)
        ]
        moved = _take_batches(rotation, batch_size, walk)
        return moved + sum(helper.result() for helper in helpers)


def _on_own_connection(function, *args):
    try:
        return function(*args)
    finally:
        connection.close()  # this thread's own connection


def _take_batches(rotation: DekRotation, batch_size: int, walk: _Walk) -> int:
    moved = 0
    try:
        while not walk.over:
            moved += _rotate_batch(rotation, batch_size, walk)
    except BaseException:
        walk.over = True  # the other threads stop after their current batch
        raise
    return moved


def _rotate_batch(rotation: DekRotation, batch_size: int, walk: _Walk) -> int:
    """Lock the walk's next batch, re-encrypt it under the rotation's key and write it back with
    the rotation's progress, in one transaction. Returns the rows moved."""
    postgres = connection.vendor == "postgresql"
    new_key = keyring.dek_for(tenant_id=rotation.tenant_id, version=rotation.to_version)
    with transaction.atomic():
        if postgres:
            _commit_without_waiting_for_disk()
        with walk.lock:
            rows = (_lock_batch_postgres if postgres else _lock_batch)(rotation, batch_size, walk.after)
            walk.over = walk.over or not rows
            if rows:
                walk.after = rows[-1][0]
                walk.locked += len(rows)
        if not rows:
            return 0
        moved = _resealed(rotation, rows, new_key)
        count = (_write_batch_postgres if postgres else _write_batch)(rotation, moved)
        DekRotation.objects.filter(id=rotation.id).update(
            items_rotated=F("items_rotated") + count, batches=F("batches") + 1
        )
    return count


def _commit_without_waiting_for_disk() -> None:
    """A batch needs no flush of its own: if PostgreSQL crashes before its commit reaches the disk,
    the rows are back on the previous key, which stays until `_finish` retires it. That commit
    waits for the disk as usual, and with it every batch before it."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit TO OFF")


_TABLE = Credential._meta.db_table
# Only the model's own table name is formatted into these statements.
_LOCK_BATCH = (
    f"SELECT c.id::text, c.dek_version, c.access_token, c.refresh_token, c.secrets FROM {_TABLE} AS c "  # noqa: S608  # nosec B608: the table name only
    "WHERE c.tenant_id = %s AND c.id > %s::uuid AND c.dek_version <> %s ORDER BY c.id LIMIT %s FOR UPDATE"
)
# The arrays travel in binary (%b), with no quoting of each element. The batch's id range lets
# PostgreSQL find its rows by the primary key instead of scanning the table; `c.id = b.id` picks
# the batch's own rows in it, `dek_version = previous` is the compare-and-set.
_WRITE_BATCH = (
    f"UPDATE {_TABLE} AS c SET access_token = b.access_token, refresh_token = b.refresh_token, "  # noqa: S608  # nosec B608: the table name only
    "secrets = b.secrets, dek_version = %s "
    "FROM unnest(%b::uuid[], %b::int[], %b::text[], %b::text[], %b::text[]) "
    "AS b (id, previous, access_token, refresh_token, secrets) "
    "WHERE c.tenant_id = %s AND c.id BETWEEN %s::uuid AND %s::uuid "
    "AND c.id = b.id AND c.dek_version = b.previous"
)


def _server_cursor() -> psycopg.Cursor:
    """A cursor of the same connection (and transaction) that binds parameters on the server, in
    binary: Django's cursors bind on the client, quoting each of a batch's 4,000 array elements
    into the SQL text, which cost as much Python as the re-encryption itself."""
    return psycopg.Cursor(connection.connection)


def _lock_batch_postgres(rotation: DekRotation, batch_size: int, after: str) -> list[tuple]:
    with _server_cursor() as cursor:
        cursor.execute(_LOCK_BATCH, [rotation.tenant_id, after, rotation.to_version, batch_size])
        return cursor.fetchall()


def _write_batch_postgres(rotation: DekRotation, moved: list[tuple]) -> int:
    ids, previous, access, refresh, secrets = (list(column) for column in zip(*moved, strict=True))
    batch = [ids, previous, access, refresh, secrets]
    with _server_cursor() as cursor:
        cursor.execute(_WRITE_BATCH, [rotation.to_version, *batch, rotation.tenant_id, ids[0], ids[-1]])
        return cursor.rowcount


def _lock_batch(rotation: DekRotation, batch_size: int, after: str) -> list[tuple]:
    """Other databases: the same batch through the ORM (SQLite has one writer at a time)."""
    rows = (
        Credential.objects.select_for_update()
        .filter(tenant_id=rotation.tenant_id, id__gt=after)
        .exclude(dek_version=rotation.to_version)
        .order_by("id")
        .values_list("id", "dek_version", *SECRET_FIELDS)[:batch_size]
    )
    return [(str(key), version, *(_stored(value) for value in values)) for key, version, *values in rows]


def _stored(value: Sealed | None) -> str | None:
    return None if value is None else value.stored


def _resealed(rotation: DekRotation, rows: list[tuple], new_key: bytes) -> list[tuple]:
    """(id, previous version, each secret field sealed again under the new key)."""
    tenant_id, target = str(rotation.tenant_id), rotation.to_version

    @cache  # per batch: the versions its values name
    def old_key(version: int) -> bytes:
        return keyring.dek_for(tenant_id=tenant_id, version=version)

    return [
        (
            credential_id,
            previous,
            *(
                None
                if stored is None
                else reseal(
                    stored,
                    old_key=old_key,
                    key=new_key,
                    dek_version=target,
                    aad=associated_data(tenant_id, credential_id, name),
                )
                for name, stored in zip(SECRET_FIELDS, values, strict=True)
            ),
        )
        for credential_id, previous, *values in rows
    ]


def _write_batch(rotation: DekRotation, moved: list[tuple]) -> int:
    """Other databases: one UPDATE ... FROM (VALUES ...) for the batch. Compare-and-set: only a row
    still on the version that was read is rewritten."""
    id_field = Credential._meta.pk
    params: list = []
    for credential_id, previous, access, refresh, secrets in moved:
        params += [id_field.get_db_prep_value(credential_id, connection), previous, access, refresh, secrets]
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(moved))
    # Only placeholders and the model's own table name are formatted in. The statement starts with
    # UPDATE (no WITH) so that SQLite reports the rows it changed; both name VALUES columns columnN.
    sql = (
        f"UPDATE {_TABLE} SET access_token = batch.column3, refresh_token = batch.column4, "  # noqa: S608  # nosec B608: placeholders and the table name only
        f"secrets = batch.column5, dek_version = %s FROM (VALUES {values}) AS batch "
        f"WHERE {_TABLE}.id = batch.column1 AND {_TABLE}.dek_version = batch.column2"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [rotation.to_version, *params])
        return cursor.rowcount


def _finish(rotation: DekRotation) -> None:
    tenant = rotation.tenant
    with transaction.atomic():
        in_use = set(
            Credential.objects.filter(tenant=tenant).values_list("dek_version", flat=True).distinct()
        )
        now = timezone.now()
        retired = list(
            DataKey.objects.filter(tenant=tenant, status=DataKey.Status.RETIRING)
            .exclude(version__in=in_use)
            .values_list("version", flat=True)
        )
        DataKey.objects.filter(tenant=tenant, version__in=retired).update(
            status=DataKey.Status.RETIRED, retired_at=now
        )
        updated = DekRotation.objects.filter(id=rotation.id, status=DekRotation.Status.IN_PROGRESS).update(
            status=DekRotation.Status.COMPLETED, completed_at=now, outcome="ok"
        )
        if updated:
            audit_record(
                tenant=tenant,
                action="DEK_ROTATION_COMPLETED",
                category="vault",
                actor=system_actor("dekRotation"),
                resource={"type": "dek_rotation", "id": rotation.public_id, "name": tenant.name},
                details={"toVersion": rotation.to_version, "retiredVersions": retired},
            )
    rotation.refresh_from_db()


def dek_rotations_resume() -> int:
    """Run every rotation still in progress (after a crash, or on an operator's trigger)."""
    ids = list(DekRotation.objects.filter(status=DekRotation.Status.IN_PROGRESS).values_list("id", flat=True))
    return sum(dek_rotation_run(rotation_id=rotation_id) for rotation_id in ids)
