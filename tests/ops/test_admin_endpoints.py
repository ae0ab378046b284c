"""/api/v1/admin: tenants and their stats, audit logs, jobs."""

import pytest

from core.models import AuditEntry, JobRun, Tenant
from identity.models import ApiKey, Membership, OAuthClient, User
from tests import factories
from tests.helpers import assert_error, assert_ok

pytestmark = pytest.mark.django_db


def tenant_url(tenant, suffix=""):
    return f"/api/v1/admin/tenants/{tenant.id}{suffix}"


def test_the_owner_reads_their_tenant(as_owner, tenant):
    data = assert_ok(as_owner.get(tenant_url(tenant)))
    assert data["id"] == str(tenant.id) and data["name"] == "acme" and data["status"] == "active"
    assert set(data["subscription"]) == {"plan", "usersLimit", "expiresAt"}


def test_another_tenant_answers_404_for_a_tenant_admin(as_owner, other_tenant):
    assert_error(as_owner.get(tenant_url(other_tenant)), 404, "TENANT_NOT_FOUND")
    assert_error(
        as_owner.patch(tenant_url(other_tenant), {"realmName": "x"}, format="json"), 404, "TENANT_NOT_FOUND"
    )
    assert_error(as_owner.get(tenant_url(other_tenant, "/stats")), 404, "TENANT_NOT_FOUND")
    other_tenant.refresh_from_db()
    assert other_tenant.realm_name == ""


def test_a_bad_tenant_id_is_400(as_owner):
    assert_error(as_owner.get("/api/v1/admin/tenants/nope"), 400, "INVALID_PARAMETER")


def test_a_super_admin_reads_any_tenant(client_for, root, tenant, other_tenant):
    assert assert_ok(client_for(root, tenant).get(tenant_url(other_tenant)))["id"] == str(other_tenant.id)


def test_patch_replaces_settings_whole_and_is_audited(as_owner, tenant):
    tenant.settings = {"ssoEnabled": True, "legacy": 1}
    tenant.save()
    data = assert_ok(
        as_owner.patch(
            tenant_url(tenant),
            {"serverUrl": "https://idp.acme.test", "settings": {"mfaRequired": True, "sessionTimeout": 3600}},
            format="json",
        )
    )
    assert data["settings"] == {"mfaRequired": True, "sessionTimeout": 3600}
    assert data["serverUrl"] == "https://idp.acme.test" and data["updatedBy"]["name"] == "owner"
    tenant.refresh_from_db()
    assert tenant.settings == {"mfaRequired": True, "sessionTimeout": 3600}
    entry = AuditEntry.objects.get(action="TENANT_UPDATED")
    assert entry.details == {"changed": ["serverUrl", "settings"]}


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"serverUrl": "not a url"}, 422, "serverUrl"),
        ({"settings": {"sessionTimeout": 5}}, 422, "settings.sessionTimeout"),
        ({"settings": {"passwordPolicy": "none"}}, 422, "settings.passwordPolicy"),
        ({"settings": []}, 400, "settings"),
        ({"settings": {"mfaRequired": "yes please"}}, 400, "settings.mfaRequired"),
    ],
)
def test_patch_refuses_bad_values(as_owner, tenant, body, status, field):
    error = assert_error(as_owner.patch(tenant_url(tenant), body, format="json"), status, "VALIDATION_ERROR")
    assert field in error["details"], error
    tenant.refresh_from_db()
    assert tenant.settings == {} and tenant.server_url == ""


def test_a_teammate_may_not_read_or_change_the_tenant(as_teammate, tenant):
    assert_error(as_teammate.get(tenant_url(tenant)), 403, "FORBIDDEN")
    assert_error(as_teammate.patch(tenant_url(tenant), {}, format="json"), 403, "FORBIDDEN")


def test_only_a_super_admin_deletes_a_tenant(as_owner, tenant):
    assert_error(as_owner.delete(tenant_url(tenant)), 403, "FORBIDDEN")
    assert Tenant.objects.filter(id=tenant.id).exists()


def test_delete_cascades_and_counts_what_went(client_for, root, tenant, other_tenant, owner, teammate):
    factories.make_api_key(tenant)
    OAuthClient.objects.create(tenant=tenant, name="c", client_id="client_x")
    shared = factories.make_user(tenant, ["integration_viewer"], username="shared")
    Membership.objects.create(user=shared, tenant=other_tenant, roles=["integration_viewer"])
    data = assert_ok(client_for(root, other_tenant).delete(tenant_url(tenant)))
    assert data["status"] == "deleted" and data["deletedBy"]["name"] == "root"
    assert data["resourcesDeleted"]["users"] == 3
    assert data["resourcesDeleted"]["apiKeys"] == 1 and data["resourcesDeleted"]["oauthClients"] == 1
    assert not Tenant.objects.filter(id=tenant.id).exists()
    assert not ApiKey.objects.exists() and not OAuthClient.objects.exists()
    assert not User.objects.filter(username__in=["owner", "teammate"]).exists()
    assert User.objects.filter(username="shared").exists()  # still a member elsewhere
    assert AuditEntry.objects.filter(tenant_id=tenant.id, action="TENANT_DELETED").exists()
    assert_error(client_for(root, other_tenant).delete(tenant_url(tenant)), 404, "TENANT_NOT_FOUND")


def test_a_tenant_with_an_active_subscription_is_not_deleted(client_for, root, tenant):
    tenant.subscription = {"plan": "enterprise", "status": "active"}
    tenant.save()
    assert_error(client_for(root, tenant).delete(tenant_url(tenant)), 409, "TENANT_HAS_ACTIVE_SUBSCRIPTION")
    assert Tenant.objects.filter(id=tenant.id).exists()


def test_stats_are_computed_from_rows(as_owner, client_for, tenant, owner, teammate):
    factories.make_api_key(tenant)
    revoked, _ = factories.make_api_key(tenant)
    ApiKey.objects.filter(id=revoked.id).update(status="revoked")
    teammate.is_active = False
    teammate.save()
    as_owner.get(tenant_url(tenant))
    data = assert_ok(as_owner.get(tenant_url(tenant, "/stats")))
    assert data["users"] == {"total": 2, "active": 1, "inactive": 1, "admins": 1}
    assert data["apiKeys"] == {"total": 2, "active": 1, "revoked": 1}
    assert data["oauthClients"] == {"total": 0, "active": 0}
    assert data["usage"]["apiCallsThisMonth"] == 2  # a call is counted as it arrives: this one too
    assert data["lastActivity"] is not None


LOGS = "/api/v1/admin/audit-logs"


def test_audit_logs_list_newest_first_with_filters(as_owner, tenant):
    for name in ("one", "two"):
        as_owner.post(
            "/api/v1/api-keys", {"name": name, "scopes": "vault:read", "environment": "live"}, format="json"
        )
    data = assert_ok(as_owner.get(LOGS))
    actions = [log["action"] for log in data["logs"]]
    assert actions == ["API_KEY_CREATED", "API_KEY_CREATED"]
    assert data["logs"][0]["resource"]["name"] == "two" and data["logs"][0]["id"].startswith("log-")
    assert data["pagination"]["total"] == 2
    filtered = assert_ok(as_owner.get(LOGS + "?action=API_KEY_CREATED&limit=1"))
    assert len(filtered["logs"]) == 1 and filtered["pagination"]["hasMore"] is True
    assert assert_ok(as_owner.get(LOGS + "?status=failure"))["pagination"]["total"] == 0
    assert assert_ok(as_owner.get(LOGS + "?from=2999-01-01T00:00:00Z"))["pagination"]["total"] == 0


def test_audit_log_parameters_are_checked(as_owner, other_tenant):
    assert_error(as_owner.get(LOGS + "?from=yesterday"), 400, "INVALID_PARAMETER")
    assert_error(as_owner.get(LOGS + "?limit=0"), 400, "INVALID_PARAMETER")
    assert_error(as_owner.get(LOGS + "?tenantId=nope"), 400, "INVALID_PARAMETER")
    assert_error(as_owner.get(f"{LOGS}?tenantId={other_tenant.id}"), 403, "FORBIDDEN")


def test_an_audit_viewer_reads_logs_and_a_teammate_does_not(client_for, tenant, as_teammate):
    auditor = factories.make_user(tenant, ["audit_viewer"])
    assert_ok(client_for(auditor, tenant).get(LOGS))
    assert_error(as_teammate.get(LOGS), 403, "FORBIDDEN")


def test_a_super_admin_reads_another_tenants_log(client_for, root, tenant, other_tenant, as_outsider):
    as_outsider.post(
        "/api/v1/api-keys", {"name": "k", "scopes": "vault:read", "environment": "live"}, format="json"
    )
    data = assert_ok(client_for(root, tenant).get(f"{LOGS}?tenantId={other_tenant.id}"))
    assert [log["tenantId"] for log in data["logs"]] == [str(other_tenant.id)]
    assert assert_ok(client_for(root, tenant).get(LOGS))["pagination"]["total"] == 0


def test_the_log_of_a_scripted_session_carries_no_secret(as_owner, client_for, tenant):
    key = assert_ok(
        as_owner.post(
            "/api/v1/api-keys", {"name": "k", "scopes": "admin:read", "environment": "live"}, format="json"
        )
    )
    rotated = assert_ok(
        as_owner.post(f"/api/v1/api-keys/{key['id']}/rotate", {"gracePeriodMinutes": 5}, format="json")
    )
    client = assert_ok(
        as_owner.post(
            "/api/v1/oauth-clients",
            {
                "name": "c",
                "clientType": "confidential",
                "redirectUris": [],
                "grantTypes": ["client_credentials"],
                "scopes": ["admin:read"],
            },
            format="json",
        )
    )
    from urllib.parse import urlencode

    from rest_framework.test import APIClient

    issued = (
        APIClient()
        .generic(
            "POST",
            "/oauth/token",
            urlencode(
                {
                    "grant_type": "client_credentials",
                    "client_id": client["clientId"],
                    "client_secret": client["clientSecret"],
                }
            ),
            content_type="application/x-www-form-urlencoded",
        )
        .json()
    )
    secret = assert_ok(as_owner.post(f"/api/v1/oauth-clients/{client['id']}/rotate-secret"))["clientSecret"]
    account = assert_ok(as_owner.post("/api/v1/admin/service-account/create"))
    assert_ok(as_owner.delete(f"/api/v1/api-keys/{key['id']}"))
    assert_ok(as_owner.delete(f"/api/v1/oauth-clients/{client['id']}"))
    logs = assert_ok(as_owner.get(LOGS + "?limit=100"))["logs"]
    assert {log["action"] for log in logs} >= {
        "API_KEY_CREATED",
        "API_KEY_ROTATED",
        "API_KEY_REVOKED",
        "OAUTH_CLIENT_CREATED",
        "OAUTH_TOKEN_ISSUED",
        "OAUTH_CLIENT_SECRET_ROTATED",
        "SERVICE_ACCOUNT_CREATED",
        "OAUTH_CLIENT_DELETED",
    }
    text = str(logs)
    for value in (
        key["apiKey"],
        rotated["newApiKey"],
        client["clientSecret"],
        issued["access_token"],
        secret,
        account["clientSecret"],
    ):
        assert value not in text


JOBS = "/api/v1/admin/jobs"


@pytest.fixture
def as_root(client_for, root, tenant):
    return client_for(root, tenant)


def test_only_a_super_admin_triggers_jobs(as_owner):
    assert_error(
        as_owner.post(JOBS + "/trigger", {"jobName": "cleanupExpiredSessions"}, format="json"),
        403,
        "FORBIDDEN",
    )
    assert_error(as_owner.get(JOBS + "/cleanupExpiredSessions/stats"), 403, "FORBIDDEN")


def test_a_trigger_queues_a_recorded_run_and_a_second_is_409(as_root):
    data = assert_ok(as_root.post(JOBS + "/trigger", {"jobName": "cleanupExpiredSessions"}, format="json"))
    assert (
        data["jobId"].startswith("job-")
        and data["status"] == "queued"
        and data["triggeredBy"]["name"] == "root"
    )
    run = JobRun.objects.get()
    assert data["jobId"] == f"job-{run.id}" and run.status == "queued"
    assert_error(
        as_root.post(JOBS + "/trigger", {"jobName": "cleanupExpiredSessions"}, format="json"),
        409,
        "JOB_ALREADY_RUNNING",
    )
    assert AuditEntry.objects.filter(action="JOB_TRIGGERED").count() == 1


@pytest.mark.parametrize(
    ("name", "code", "words"),
    [
        ("noSuchJob", "UNKNOWN_JOB", "Unknown job"),
        ("dataSync", "JOB_NOT_AVAILABLE", "not yet available"),
    ],
)
def test_unknown_and_unavailable_jobs_are_400(as_root, name, code, words, monkeypatch):
    from core import jobs

    monkeypatch.delitem(jobs._IMPLEMENTATIONS, "dataSync", raising=False)  # whatever other apps register
    error = assert_error(as_root.post(JOBS + "/trigger", {"jobName": name}, format="json"), 400, code)
    assert words in error["message"]
    assert not JobRun.objects.exists()


def test_a_missing_job_name_is_400(as_root):
    assert_error(as_root.post(JOBS + "/trigger", {}, format="json"), 400, "VALIDATION_ERROR")


def test_job_stats_come_from_run_records(as_root):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    for status, ms in (("succeeded", 1000), ("succeeded", 3000), ("failed", 500)):
        JobRun.objects.create(
            job_name="cleanupExpiredSessions",
            status=status,
            started_at=now,
            finished_at=now + timedelta(milliseconds=ms),
            duration_ms=ms,
            items=2,
        )
    data = assert_ok(as_root.get(JOBS + "/cleanupExpiredSessions/stats"))
    assert data["queue"] == {"pending": 0, "processing": 0, "failed": 1, "completed": 2}
    assert (
        data["performance"]["averageExecutionTime"] == "1.5s"
        and data["performance"]["successRate"] == "66.7%"
    )
    assert data["schedule"]["cron"] == "*/15 * * * *" and data["schedule"]["nextRun"]
    assert len(data["recentExecutions"]) == 3 and data["status"] == "idle"
    assert {e["status"] for e in data["recentExecutions"]} == {"completed", "failed"}


def test_job_stats_of_bad_and_unknown_names(as_root):
    assert_error(as_root.get(JOBS + "/bad-name!/stats"), 400, "INVALID_PARAMETER")
    assert_error(as_root.get(JOBS + "/noSuchJob/stats"), 404, "JOB_NOT_FOUND")


def test_control_characters_never_reach_the_database(as_owner, tenant):
    assert_error(as_owner.get(LOGS + "?action=A%00B"), 400, "INVALID_PARAMETER")
    assert_error(
        as_owner.patch(tenant_url(tenant), {"settings": {"theme\u0000": "dark"}}, format="json"),
        422,
        "VALIDATION_ERROR",
    )
    assert_error(
        as_owner.post(
            "/api/v1/api-keys",
            {"name": "k", "scopes": "tools:execute", "environment": "live", "toolPatterns": ["itsm.\u0000"]},
            format="json",
        ),
        422,
        "VALIDATION_ERROR",
    )


def test_a_machine_calling_a_person_only_operation_is_told_so(client_for, tenant):
    _key, raw = factories.make_api_key(tenant, ["*"])
    error = assert_error(client_for(raw, tenant).delete(tenant_url(tenant)), 403, "FORBIDDEN")
    assert error["message"].startswith("Only a person may do this")
    assert "scope" not in error["message"]
