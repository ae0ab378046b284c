"""tokenExpiry flags and keeps expired credentials (and refreshes the refreshable ones);
credentialRotationCheck marks credentials due for rotation."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import AuditEntry, JobRun
from core.tasks import run_job
from tests.helpers import assert_ok
from tests.vault.conftest import URL, store_body
from tests.vault.test_refresh import store_oauth
from vault.models import Credential

pytestmark = pytest.mark.django_db


def run(name: str) -> JobRun:
    job = JobRun.objects.create(job_name=name)
    run_job.apply(args=[str(job.id)])
    job.refresh_from_db()
    assert job.status == "succeeded", job.outcome
    return job


def test_the_expiry_job_flags_and_keeps_expired_credentials(admin_api, tenant):
    assert_ok(admin_api.post(URL, store_body(expiresIn=60), format="json"))
    assert_ok(admin_api.post(URL, store_body(integrationId="later", expiresIn=86400), format="json"))
    Credential.objects.filter(integration_id="itsm-prod-001").update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert run("tokenExpiry").items == 1
    expired = Credential.objects.get(integration_id="itsm-prod-001")
    assert expired.is_expired is True and expired.status == "active" and expired.access_token is not None
    assert Credential.objects.get(integration_id="later").is_expired is False
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_EXPIRED")
    assert entry.actor["type"] == "system" and entry.details["expiresAt"]
    details = assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details"))
    assert details["isExpired"] is True and details["status"] == "active"
    assert run("tokenExpiry").items == 0  # flagged once
    assert [c["integrationId"] for c in assert_ok(admin_api.get(URL + "?isExpired=true"))["credentials"]] == [
        "itsm-prod-001"
    ]


def test_the_expiry_job_refreshes_what_it_can_instead_of_flagging(admin_api, oauth_provider, tenant):
    store_oauth(admin_api, oauth_provider)
    assert run("tokenExpiry").items == 1
    row = Credential.objects.get(integration_id="itsm-prod-001")
    assert (
        row.is_expired is False and row.expires_at > timezone.now() and len(oauth_provider.token_calls()) == 1
    )
    assert (
        AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_REFRESHED").actor["id"]
        == "system:tokenExpiry"
    )


def test_the_expiry_job_flags_a_credential_whose_refresh_is_refused(admin_api, oauth_provider):
    store_oauth(admin_api, oauth_provider)
    oauth_provider.mode = "invalid_grant"
    run("tokenExpiry")
    row = Credential.objects.get(integration_id="itsm-prod-001")
    assert row.is_expired is True and row.refresh_failed_at is not None and row.status == "active"


def test_the_rotation_check_marks_credentials_due_once(admin_api, tenant):
    assert_ok(admin_api.post(URL, store_body(metadata={"rotationDays": 30}), format="json"))
    assert_ok(
        admin_api.post(URL, store_body(integrationId="fresh", metadata={"rotationDays": 30}), format="json")
    )
    assert_ok(admin_api.post(URL, store_body(integrationId="no-policy"), format="json"))
    Credential.objects.filter(integration_id="itsm-prod-001").update(
        created_at=timezone.now() - timedelta(days=31)
    )
    assert run("credentialRotationCheck").items == 1
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details"))["rotationDue"] is True
    assert assert_ok(admin_api.get(f"{URL}/fresh/details"))["rotationDue"] is False
    assert run("credentialRotationCheck").items == 0
    assert AuditEntry.objects.filter(tenant_id=tenant.id, action="CREDENTIAL_ROTATION_DUE").count() == 1
    cred_id = Credential.objects.get(integration_id="itsm-prod-001").public_id
    assert_ok(admin_api.post(f"{URL}/{cred_id}/rotate", {"accessToken": "new"}, format="json"))
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details"))["rotationDue"] is False


def test_seed_demo_adds_a_demo_credential_once(tenant):
    from vault.seeding import seed_vault_demo

    seed_vault_demo(tenant)
    seed_vault_demo(tenant)
    [demo] = Credential.objects.filter(tenant=tenant)
    assert demo.integration_id == "itsm-demo-001" and demo.access_token is not None
