"""auditLogArchive: old entries move into checksummed files, and their chains still verify."""

import gzip
import hashlib
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from core.audit import audit_record, system_actor
from core.models import AuditEntry, JobRun
from core.tasks import run_job
from ops import archive
from ops.archive import audit_archive, audit_chain_verify_archived
from ops.models import AuditArchive
from tests.helpers import assert_ok

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def archive_dir(settings, tmp_path):
    settings.AUDIT_ARCHIVE_DIR = tmp_path / "audit-archive"
    settings.AUDIT_ARCHIVE_AFTER_DAYS = 365
    return settings.AUDIT_ARCHIVE_DIR


def write(tenant, n, start=0):
    return [
        audit_record(
            tenant=tenant,
            action="THING_DONE",
            category="tests",
            actor=system_actor("tests"),
            resource={"type": "thing", "id": str(i)},
            details={"n": i, "note": "é ✓"},
        )
        for i in range(start, start + n)
    ]


def a_year_after(moment):
    return moment + timedelta(days=365)


def test_old_entries_move_into_a_checksummed_file_and_the_chain_still_verifies(tenant, archive_dir):
    old = write(tenant, 3)
    cutoff = timezone.now()
    write(tenant, 2, start=3)
    assert audit_archive(now=a_year_after(cutoff)) == 3
    chain = str(tenant.id)
    assert list(AuditEntry.objects.filter(chain=chain).values_list("seq", flat=True).order_by("seq")) == [
        4,
        5,
    ]
    stored = AuditArchive.objects.get(chain=chain)
    assert (stored.first_seq, stored.last_seq, stored.entries) == (1, 3, 3)
    assert stored.tenant_id == tenant.id and stored.last_hash == old[-1].hash
    data = (archive_dir / stored.path).read_bytes()
    assert hashlib.sha256(data).hexdigest() == stored.sha256 and len(data) == stored.size_bytes
    lines = [json.loads(line) for line in gzip.decompress(data).splitlines()]
    assert [(e["seq"], e["details"]["n"]) for e in lines] == [(1, 0), (2, 1), (3, 2)]
    assert audit_chain_verify_archived(chain) == []
    call_command("verify_audit_chain", "--tenant", chain)
    write(tenant, 1, start=5)  # the chain goes on after the archive
    call_command("verify_audit_chain")


def test_running_the_archive_twice_moves_nothing_more(tenant):
    write(tenant, 2)
    later = a_year_after(timezone.now())
    assert audit_archive(now=later) == 2
    assert AuditEntry.objects.filter(action="AUDIT_LOG_ARCHIVED", tenant_id=None).count() == 1
    assert audit_archive(now=later) == 0
    assert AuditArchive.objects.filter(chain=str(tenant.id)).count() == 1
    assert AuditEntry.objects.filter(action="AUDIT_LOG_ARCHIVED").count() == 1  # nothing to record
    call_command("verify_audit_chain")


def test_a_whole_chain_archived_in_several_files_verifies_to_its_head(tenant, monkeypatch):
    monkeypatch.setattr(archive, "BATCH", 2)
    write(tenant, 5)
    assert audit_archive(now=a_year_after(timezone.now())) == 5
    files = AuditArchive.objects.filter(chain=str(tenant.id)).order_by("first_seq")
    assert [(a.first_seq, a.last_seq) for a in files] == [(1, 2), (3, 4), (5, 5)]
    assert not AuditEntry.objects.filter(chain=str(tenant.id)).exists()
    assert audit_chain_verify_archived(str(tenant.id)) == []


def test_an_altered_archive_file_is_detected(tenant, archive_dir):
    write(tenant, 3)
    audit_archive(now=a_year_after(timezone.now()))
    stored = AuditArchive.objects.get(chain=str(tenant.id))
    (archive_dir / stored.path).write_bytes(gzip.compress(b"{}\n"))
    assert audit_chain_verify_archived(str(tenant.id)) == [
        f"archive {stored.path} does not match its recorded checksum"
    ]
    with pytest.raises(CommandError):
        call_command("verify_audit_chain", "--tenant", str(tenant.id))


def test_an_edited_entry_in_an_archive_with_a_matching_checksum_is_detected(tenant, archive_dir):
    write(tenant, 3)
    audit_archive(now=a_year_after(timezone.now()))
    stored = AuditArchive.objects.get(chain=str(tenant.id))
    lines = [
        json.loads(line) for line in gzip.decompress((archive_dir / stored.path).read_bytes()).splitlines()
    ]
    lines[1]["details"]["n"] = 99
    data = gzip.compress(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    (archive_dir / stored.path).write_bytes(data)
    AuditArchive.objects.filter(id=stored.id).update(sha256=hashlib.sha256(data).hexdigest())
    assert audit_chain_verify_archived(str(tenant.id)) == [
        "entry #2 (THING_DONE) was altered after it was written"
    ]


def test_a_missing_archive_file_is_detected_and_the_rest_still_checked(tenant, archive_dir):
    write(tenant, 2)
    cutoff = timezone.now()
    write(tenant, 1, start=2)
    audit_archive(now=a_year_after(cutoff))
    stored = AuditArchive.objects.get(chain=str(tenant.id))
    (archive_dir / stored.path).unlink()
    assert audit_chain_verify_archived(str(tenant.id)) == [
        f"archive {stored.path} cannot be read (FileNotFoundError)"
    ]


def test_entries_inside_the_retention_stay(tenant):
    write(tenant, 2)
    assert audit_archive(now=timezone.now() + timedelta(days=364)) == 0
    assert AuditEntry.objects.filter(chain=str(tenant.id)).count() == 2 and not AuditArchive.objects.exists()


def test_the_job_is_triggered_through_the_api_and_recorded_as_a_run(client_for, tenant, settings):
    from tests import factories

    write(tenant, 2)
    settings.AUDIT_ARCHIVE_AFTER_DAYS = 0
    root = factories.make_super_admin(username="root")
    data = assert_ok(
        client_for(root, tenant).post(
            "/api/v1/admin/jobs/trigger", {"jobName": "auditLogArchive"}, format="json"
        )
    )
    run = JobRun.objects.get(id=data["jobId"].removeprefix("job-"))
    run_job.apply(args=[str(run.id)])
    run.refresh_from_db()
    assert (run.status, run.outcome) == (
        JobRun.Status.SUCCEEDED,
        "ok",
    ) and run.items >= 3  # JOB_TRIGGERED too
    assert AuditArchive.objects.filter(job_run_id=run.id).exists()
    call_command("verify_audit_chain")


def test_the_consoles_chain_check_reads_the_archive_too(client, tenant):
    from tests import factories

    write(tenant, 2)
    cutoff = timezone.now()
    entry = write(tenant, 1, start=2)[0]
    audit_archive(now=a_year_after(cutoff))
    client.force_login(factories.make_super_admin(username="root"))
    response = client.post(
        "/admin/core/auditentry/",
        {"action": "verify_chain", "_selected_action": [str(entry.id)]},
        follow=True,
    )
    assert f"Chain {tenant.id}: intact." in response.content.decode()
    assert client.get("/admin/ops/auditarchive/").status_code == 200
