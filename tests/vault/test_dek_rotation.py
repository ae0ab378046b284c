"""DEK rotation: the endpoint, the resumable batched job, progress, retirement of the old key."""

import threading

import pytest
from django.db import connection, transaction

from core.models import AuditEntry, JobRun
from tests import factories
from tests.helpers import assert_error, assert_ok
from tests.vault.conftest import URL, store_body
from vault.models import Credential, DataKey, DekRotation
from vault.services import dek
from vault.services.dek import dek_rotation_run
from vault.services.secrets import Revealed, reveal, seal_into

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("drop_queued_messages")]
ROTATE = "/api/v1/admin/dek/rotate"


@pytest.fixture
def root_api(client_for, tenant):
    return client_for(factories.make_super_admin(username="root", email="root@platform.test"), tenant)


def store_many(admin_api, count: int) -> None:
    for n in range(count):
        assert_ok(
            admin_api.post(URL, store_body(integrationId=f"sys-{n}", accessToken=f"token-{n}"), format="json")
        )


def test_a_rotation_starts_with_a_new_active_key_and_a_queued_job(root_api, admin_api, tenant):
    store_many(admin_api, 3)
    data = assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))
    assert data["rotationId"].startswith("rot-") and data["status"] == "in_progress"
    assert data["tenantId"] == str(tenant.id) and data["itemsToRotate"]["credentials"] == 3
    assert data["previousKeyId"].endswith("-v1") and data["newKeyId"].endswith("-v2")
    assert data["initiatedBy"]["name"] == "root" and data["startedAt"]
    keys = dict(DataKey.objects.filter(tenant=tenant).values_list("version", "status"))
    assert keys == {1: "retiring", 2: "active"}
    rotation = DekRotation.objects.get()
    assert JobRun.objects.get(id=rotation.job_run_id).params == {"rotationId": str(rotation.id)}
    assert AuditEntry.objects.filter(tenant_id=tenant.id, action="DEK_ROTATION_STARTED").count() == 1


def test_a_second_rotation_while_one_runs_is_409(root_api, tenant):
    assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))
    assert_error(
        root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"), 409, "DEK_ROTATION_IN_PROGRESS"
    )


def test_rotation_input_errors(root_api):
    assert_error(root_api.post(ROTATE, {}, format="json"), 400, "VALIDATION_ERROR")
    assert_error(root_api.post(ROTATE, {"tenantId": "acme"}, format="json"), 400, "VALIDATION_ERROR")
    unknown = "00000000-0000-4000-8000-000000000000"
    assert_error(root_api.post(ROTATE, {"tenantId": unknown}, format="json"), 404, "TENANT_NOT_FOUND")
    assert_error(root_api.get(f"/api/v1/admin/dek/rotations/rot-{unknown}"), 404, "DEK_ROTATION_NOT_FOUND")
    assert_error(root_api.get("/api/v1/admin/dek/rotations/xyz"), 400, "INVALID_PARAMETER")


def test_only_a_super_admin_may_rotate(admin_api, client_for, tenant):
    assert_error(admin_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"), 403, "FORBIDDEN")
    _, key = factories.make_api_key(tenant, ["*"])
    assert_error(
        client_for(key, tenant).post(ROTATE, {"tenantId": str(tenant.id)}, format="json"), 403, "FORBIDDEN"
    )
    assert not DekRotation.objects.exists()


def test_an_interrupted_rotation_resumes_and_leaves_every_credential_readable(
    root_api, admin_api, tenant, monkeypatch
):
    store_many(admin_api, 5)
    rotation_id = assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))["rotationId"]
    real_batch, calls = dek._rotate_batch, []

    def dies_on_the_second_batch(rotation, batch_size):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("worker killed")
        return real_batch(rotation, batch_size)

    monkeypatch.setattr(dek, "_rotate_batch", dies_on_the_second_batch)
    with pytest.raises(RuntimeError):
        dek_rotation_run(rotation_id=rotation_id[4:], batch_size=2)
    assert sorted(Credential.objects.values_list("dek_version", flat=True)) == [1, 1, 1, 2, 2]
    progress = assert_ok(root_api.get(f"/api/v1/admin/dek/rotations/{rotation_id}"))
    assert (
        progress["status"] == "in_progress"
        and progress["itemsRotated"] == 2
        and progress["itemsRemaining"] == 3
    )
    assert DataKey.objects.get(tenant=tenant, version=1).status == "retiring"
    # Mid-rotation, rows on both keys read fine.
    assert {reveal(c).access_token for c in Credential.objects.all()} == {f"token-{n}" for n in range(5)}

    monkeypatch.setattr(dek, "_rotate_batch", real_batch)
    dek_rotation_run(rotation_id=rotation_id[4:], batch_size=2)
    assert set(Credential.objects.values_list("dek_version", flat=True)) == {2}
    assert {reveal(c).access_token for c in Credential.objects.all()} == {f"token-{n}" for n in range(5)}
    assert DataKey.objects.get(tenant=tenant, version=1).status == "retired"
    done = assert_ok(root_api.get(f"/api/v1/admin/dek/rotations/{rotation_id}"))
    assert done["status"] == "completed" and done["itemsRotated"] == 5 and done["completedAt"]
    assert AuditEntry.objects.filter(tenant_id=tenant.id, action="DEK_ROTATION_COMPLETED").count() == 1
    assert assert_ok(admin_api.get(f"{URL}/sys-3"))["accessToken"] == "token-3"
    # A new rotation may start now.
    assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))


def test_values_stored_during_a_rotation_use_the_new_key(root_api, admin_api, tenant):
    store_many(admin_api, 1)
    assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))
    assert_ok(admin_api.post(URL, store_body(integrationId="late"), format="json"))
    assert Credential.objects.get(integration_id="late").dek_version == 2


@pytest.mark.django_db(transaction=True)
def test_the_rotation_job_runs_in_a_real_worker(root_api, admin_api, tenant, celery_worker_thread):
    from tests.core.test_jobs import wait_for

    store_many(admin_api, 3)
    rotation_id = assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))["rotationId"]
    assert wait_for(lambda: DekRotation.objects.get(id=rotation_id[4:]).status == "completed")
    assert set(Credential.objects.values_list("dek_version", flat=True)) == {2}
    run = JobRun.objects.get(job_name="dekRotation")
    assert run.status == "succeeded" and run.items == 3


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks between connections need PostgreSQL")
def test_a_value_written_under_the_old_key_during_the_rotation_is_kept_and_moved(root_api, admin_api, tenant):
    from tests.core.test_jobs import wait_for

    store_many(admin_api, 30)
    rotation_id = assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))["rotationId"]
    first = Credential.objects.order_by("id").first()
    stored_before = reveal(first).access_token
    failures: list[BaseException] = []

    def rotate() -> None:
        try:
            dek_rotation_run(rotation_id=rotation_id[4:], batch_size=7)
        except BaseException as exc:  # reported by the assertion below
            failures.append(exc)
        finally:
            connection.close()

    rotation = threading.Thread(target=rotate)
    with transaction.atomic():
        # A writer that read the active key just before the rotation started: it holds the row and
        # writes a new value sealed under the previous key while the rotation waits for the row.
        writer = Credential.objects.select_for_update().get(id=first.id)
        seal_into(writer, Revealed("written-meanwhile", "refresh-meanwhile", None), version=1)
        rotation.start()
        assert wait_for(lambda: _sessions_waiting_for_a_lock() > 0)
        writer.save()
    rotation.join(timeout=60)
    assert not rotation.is_alive() and failures == []
    assert reveal(Credential.objects.get(id=first.id)).access_token == "written-meanwhile"
    assert set(Credential.objects.values_list("dek_version", flat=True)) == {2}
    others = {f"token-{n}" for n in range(30)} - {stored_before}
    assert {reveal(c).access_token for c in Credential.objects.exclude(id=first.id)} == others
    done = DekRotation.objects.get(id=rotation_id[4:])
    assert done.status == "completed" and done.items_rotated == 30
    assert DataKey.objects.get(tenant=tenant, version=1).status == "retired"


def _sessions_waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        return cursor.fetchone()[0]


# ---- a rotation whose own job was lost


def _start_and_lose_the_message(root_api, admin_api, tenant) -> str:
    """A rotation whose Celery message never reaches a worker: it stays in progress, and its tenant
    cannot start another one."""
    store_many(admin_api, 3)
    rotation_id = assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))["rotationId"]
    _purge()
    assert_error(
        root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"), 409, "DEK_ROTATION_IN_PROGRESS"
    )
    return rotation_id


def _purge() -> None:
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


def _finished(root_api, admin_api, tenant, rotation_id: str) -> None:
    done = assert_ok(root_api.get(f"/api/v1/admin/dek/rotations/{rotation_id}"))
    assert done["status"] == "completed" and done["itemsRotated"] == 3 and done["itemsRemaining"] == 0
    assert set(Credential.objects.values_list("dek_version", flat=True)) == {2}
    assert assert_ok(admin_api.get(f"{URL}/sys-1"))["accessToken"] == "token-1"
    assert_ok(root_api.post(ROTATE, {"tenantId": str(tenant.id)}, format="json"))  # the 409 is gone


def test_the_periodic_job_finishes_a_rotation_whose_message_was_lost(root_api, admin_api, tenant):
    from core.jobs import beat_schedule
    from core.tasks import run_scheduled_job

    rotation_id = _start_and_lose_the_message(root_api, admin_api, tenant)
    assert beat_schedule()["job:dekRotation"]["args"] == ("dekRotation",)
    run_scheduled_job.apply(args=["dekRotation"])
    _finished(root_api, admin_api, tenant, rotation_id)
    beat_run = JobRun.objects.filter(job_name="dekRotation", params={}).get()
    assert beat_run.status == "succeeded" and beat_run.items == 3


def test_the_dek_rotation_trigger_resumes_unfinished_rotations(root_api, admin_api, tenant):
    from core.tasks import run_job

    rotation_id = _start_and_lose_the_message(root_api, admin_api, tenant)
    queued = assert_ok(root_api.post("/api/v1/admin/jobs/trigger", {"jobName": "dekRotation"}, format="json"))
    assert queued["status"] == "queued"
    run_job.apply(args=[queued["jobId"].removeprefix("job-")])
    _finished(root_api, admin_api, tenant, rotation_id)
