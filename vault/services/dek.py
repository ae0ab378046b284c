"""DEK rotation (DESIGN section 6). Starting one makes a new data key active at once; the
`dekRotation` job then moves rows in locked batches (compare-and-set on `dek_version`). The rows
themselves record what is left, so an interrupted job resumes where it stopped; the old key is
retired only when no row uses it."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from core.api.errors import Conflict
from core.audit import audit_record, system_actor
from core.jobs import job_enqueue
from core.models import Tenant
from vault import keyring
from vault.crypto import Sealed, associated_data, reseal
from vault.models import Credential, DataKey, DekRotation
from vault.services.secrets import SECRET_FIELDS

# Rows per locked batch: one SELECT ... FOR UPDATE and one write each (the write's values, a full
# row each, stay under the 65,535 a statement takes with parameters bound on the server).
BATCH_SIZE = 1000


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
        category="encryption_keys",
        actor=actor,
        resource={"type": "dek_rotation", "id": rotation.public_id, "name": tenant.name},
        details={"fromVersion": old_version, "toVersion": new_version, "itemsToRotate": total},
        request_id=request_id,
    )
    return rotation


def dek_rotation_run(*, rotation_id, batch_size: int = BATCH_SIZE) -> int:
    """Move every row of the tenant to the rotation's key, batch by batch; finish when none is left.
    Safe to run again after an interruption (and a no-op once completed)."""
    rotation = DekRotation.objects.select_related("tenant").get(id=rotation_id)
    if rotation.status != DekRotation.Status.IN_PROGRESS:
        return 0
    moved = 0
    while count := _rotate_batch(rotation, batch_size):
        moved += count
    _finish(rotation)
    return moved


def _rotate_batch(rotation: DekRotation, batch_size: int) -> int:
    """Lock the next rows still on an older key, re-encrypt them under the rotation's key and write
    them back with the rotation's progress, in one transaction. Returns the rows moved (0: none was
    left). A row a writer puts back on an older key after its batch is found again by a later one.

    The rows stay locked from their read to their write, so each is written over the version it was
    read with (the compare-and-set): no other writer can change a row in between. They are written
    in one statement, an upsert on the primary key that sets only the secret fields and the version
    (an UPDATE per row, or bulk_update's CASE per column, cost the rotation most of its speed)."""
    with transaction.atomic():
        rows = list(
            Credential.objects.select_for_update()
            .filter(tenant_id=rotation.tenant_id)
            .exclude(dek_version=rotation.to_version)
            .order_by("id")[:batch_size]
        )
        for credential in rows:
            _reseal(credential, rotation)
        Credential.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["id"], update_fields=[*SECRET_FIELDS, "dek_version"]
        )
        DekRotation.objects.filter(id=rotation.id).update(
            items_rotated=F("items_rotated") + len(rows), batches=F("batches") + 1
        )
    return len(rows)


def _reseal(credential: Credential, rotation: DekRotation) -> None:
    """Each secret field of `credential` sealed again under the rotation's key: same binding, a
    fresh nonce, the old key chosen by the version each value names."""
    tenant_id = str(rotation.tenant_id)
    new_key = keyring.dek_for(tenant_id=tenant_id, version=rotation.to_version)
    for name in SECRET_FIELDS:
        sealed: Sealed | None = getattr(credential, name)
        if sealed is not None:
            stored = reseal(
                sealed.stored,
                old_key=lambda version: keyring.dek_for(tenant_id=tenant_id, version=version),
                key=new_key,
                dek_version=rotation.to_version,
                aad=associated_data(tenant_id, credential.id, name),
            )
            setattr(credential, name, Sealed(stored))
    credential.dek_version = rotation.to_version


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
                category="encryption_keys",
                actor=system_actor("dekRotation"),
                resource={"type": "dek_rotation", "id": rotation.public_id, "name": tenant.name},
                details={"toVersion": rotation.to_version, "retiredVersions": retired},
            )
    rotation.refresh_from_db()


def dek_rotations_resume() -> int:
    """Run every rotation still in progress: the periodic `dekRotation` job and an operator's
    trigger finish a rotation whose own job was lost or interrupted. A rotation that is still
    running elsewhere is safe to run here too: its batches lock their rows, so each row moves once."""
    ids = list(DekRotation.objects.filter(status=DekRotation.Status.IN_PROGRESS).values_list("id", flat=True))
    return sum(dek_rotation_run(rotation_id=rotation_id) for rotation_id in ids)
