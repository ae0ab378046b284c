"""API keys: create, list, get, rotate, revoke, validate; keys authenticate until they should not."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import AuditEntry
from identity.models import ApiKey
from tests import factories
from tests.helpers import TIMESTAMP, assert_error, assert_ok

pytestmark = pytest.mark.django_db
URL = "/api/v1/api-keys"
PROBE = "/api/v1/api-keys"  # listing needs admin:read; a key with it proves it authenticates


def create(client, **fields):
    body = {"name": "ci", "scopes": "admin:read,vault:read", "environment": "live"} | fields
    return client.post(URL, body, format="json")


def test_the_owner_creates_a_key_shown_once_with_lists_from_comma_strings(as_owner, tenant, owner):
    data = assert_ok(create(as_owner, ipWhitelist="10.0.0.0/8, 192.168.1.5", expiresIn=30))
    assert data["apiKey"].startswith("ak_live_") and data["prefix"] == data["apiKey"][:12]
    assert data["scopes"] == ["admin:read", "vault:read"]
    assert data["ipWhitelist"] == ["10.0.0.0/8", "192.168.1.5"]
    assert data["status"] == "active" and data["expiresAt"] and data["tenant"]["id"] == str(tenant.id)
    assert data["createdBy"]["id"] == str(owner.id)
    stored = ApiKey.objects.get(id=data["id"])
    assert data["apiKey"] not in str(stored.__dict__)
    listed = assert_ok(as_owner.get(URL))
    assert "apiKey" not in listed["apiKeys"][0] and listed["pagination"]["total"] == 1
    entry = AuditEntry.objects.get(action="API_KEY_CREATED")
    assert data["apiKey"] not in str(entry.details) and entry.resource["id"] == data["id"]


def test_scopes_are_also_accepted_as_an_array(as_owner):
    assert assert_ok(create(as_owner, scopes=["tools:execute"], environment="test"))["apiKey"].startswith(
        "ak_test_"
    )


@pytest.mark.parametrize(
    ("fields", "status", "field"),
    [
        ({"name": None}, 400, "name"),
        ({"scopes": 5}, 400, "scopes"),
        ({"environment": "prod"}, 422, "environment"),
        ({"scopes": "ticketing:read"}, 422, "scopes"),
        ({"ipWhitelist": "10.0.0.0/33"}, 422, "ipWhitelist"),
        ({"expiresIn": 0}, 422, "expiresIn"),
    ],
)
def test_bad_create_bodies_are_refused_and_nothing_is_stored(as_owner, fields, status, field):
    body = {"name": "ci", "scopes": "admin:read", "environment": "live"} | fields
    body = {k: v for k, v in body.items() if v is not None}
    error = assert_error(as_owner.post(URL, body, format="json"), status, "VALIDATION_ERROR")
    assert field in error["details"]
    assert not ApiKey.objects.exists()


def test_a_duplicate_name_is_409(as_owner):
    assert_ok(create(as_owner))
    assert_error(create(as_owner), 409, "API_KEY_NAME_EXISTS")


def test_a_teammate_may_not_manage_keys(as_teammate):
    assert_error(create(as_teammate), 403, "FORBIDDEN")
    assert_error(as_teammate.get(URL), 403, "FORBIDDEN")


def test_bad_pagination_is_400(as_owner):
    assert_error(as_owner.get(URL + "?limit=500"), 400, "INVALID_PARAMETER")
    assert_error(as_owner.get(URL + "?limit=&offset=3"), 400, "INVALID_PARAMETER")  # not an integer


def test_get_shows_permissions_rate_limit_usage_and_audit(as_owner, client_for, tenant):
    data = assert_ok(create(as_owner))
    client_for(data["apiKey"], tenant).get(PROBE)
    client_for(data["apiKey"], tenant).get(PROBE)
    detail = assert_ok(as_owner.get(f"{URL}/{data['id']}"))
    assert detail["permissions"]["admin"] == {"read": True, "write": False}
    assert detail["permissions"]["vault"]["read"] is True
    assert detail["usage"]["totalRequests"] == 2 and detail["usage"]["successfulRequests"] == 2
    assert detail["usage"]["lastUsedFromIp"] == "127.0.0.1"
    assert detail["rateLimit"]["currentUsage"]["minuteCount"] == 2
    assert detail["rateLimit"]["currentUsage"]["dayCount"] == 2
    assert detail["audit"]["rotationCount"] == 0 and detail["isExpired"] is False
    assert ApiKey.objects.get(id=data["id"]).usage_count == 2


def test_usage_counts_a_failed_call_and_not_a_call_refused_for_its_scope(as_owner, client_for, tenant):
    data = assert_ok(create(as_owner))
    key = client_for(data["apiKey"], tenant)
    key.get(PROBE)
    assert key.get("/api/v1/credentials/nothing-here/details").status_code == 404
    assert key.post("/api/v1/credentials", {}, format="json").status_code == 403  # no vault:write
    detail = assert_ok(as_owner.get(f"{URL}/{data['id']}"))
    assert detail["usage"]["totalRequests"] == 2 and detail["usage"]["successfulRequests"] == 1
    assert detail["rateLimit"]["currentUsage"]["dayCount"] == 2


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("put", "", "GET, POST, HEAD, OPTIONS"),
        ("post", "/{id}", "GET, PATCH, DELETE, HEAD, OPTIONS"),
        ("put", "/{id}", "GET, PATCH, DELETE, HEAD, OPTIONS"),
        ("get", "/{id}/rotate", "POST, OPTIONS"),
        ("delete", "/{id}/validate", "POST, OPTIONS"),
    ],
)
def test_a_method_a_path_does_not_serve_is_a_json_405(as_owner, method, path, allow):
    key_id = assert_ok(create(as_owner))["id"]
    response = getattr(as_owner, method)(URL + path.format(id=key_id))
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response["Allow"] == allow


def test_a_read_only_key_is_told_405_not_403_for_a_method_the_list_does_not_serve(client_for, tenant):
    _, raw = factories.make_api_key(tenant, ["admin:read"])
    assert_error(client_for(raw, tenant).delete(URL), 405, "METHOD_NOT_ALLOWED")
    assert_error(client_for(raw, tenant).post(URL, {}, format="json"), 403, "FORBIDDEN")


def test_a_bad_key_id_is_400_and_an_unknown_one_404(as_owner):
    assert_error(as_owner.get(f"{URL}/nope"), 400, "INVALID_PARAMETER")
    assert_error(as_owner.get(f"{URL}/00000000-0000-0000-0000-000000000000"), 404, "API_KEY_NOT_FOUND")


def test_another_tenants_key_is_404_and_untouched(as_outsider, tenant):
    key, _ = factories.make_api_key(tenant)
    for call in (
        lambda: as_outsider.get(f"{URL}/{key.id}"),
        lambda: as_outsider.delete(f"{URL}/{key.id}"),
        lambda: as_outsider.post(f"{URL}/{key.id}/rotate", {}, format="json"),
        lambda: as_outsider.post(f"{URL}/{key.id}/validate", {"apiKey": "x"}, format="json"),
    ):
        assert_error(call(), 404, "API_KEY_NOT_FOUND")
    key.refresh_from_db()
    assert key.status == "active" and key.rotation_count == 0


def test_a_key_works_by_both_headers_until_revoked_then_401_at_once(as_owner, client_for, tenant):
    data = assert_ok(create(as_owner))
    raw = data["apiKey"]
    assert_ok(client_for(raw, tenant).get(PROBE))
    assert_ok(client_for(None, tenant, HTTP_X_API_KEY=raw).get(PROBE))
    revoked = assert_ok(as_owner.delete(f"{URL}/{data['id']}"))
    assert revoked["status"] == "revoked" and revoked["previousStatus"] == "active"
    assert revoked["retentionDays"] == 90 and revoked["permanentDeletionDate"]
    assert_error(client_for(raw, tenant).get(PROBE), 401, "UNAUTHORIZED")
    assert_error(client_for(None, tenant, HTTP_X_API_KEY=raw).get(PROBE), 401, "UNAUTHORIZED")
    assert_error(as_owner.delete(f"{URL}/{data['id']}"), 409, "API_KEY_ALREADY_REVOKED")
    assert AuditEntry.objects.filter(action="API_KEY_REVOKED").count() == 1


def test_a_second_revoke_names_when_the_first_happened(as_owner):
    data = assert_ok(create(as_owner))
    revoked = assert_ok(as_owner.delete(f"{URL}/{data['id']}"))
    again = assert_error(as_owner.delete(f"{URL}/{data['id']}"), 409, "API_KEY_ALREADY_REVOKED")
    assert again["details"] == {"revokedAt": revoked["revokedAt"]}
    assert TIMESTAMP.match(revoked["revokedAt"]) and TIMESTAMP.match(revoked["permanentDeletionDate"])


def test_permanent_delete_removes_the_row(as_owner):
    data = assert_ok(create(as_owner))
    assert assert_ok(as_owner.delete(f"{URL}/{data['id']}?permanent=true"))["deleted"] is True
    assert not ApiKey.objects.filter(id=data["id"]).exists()
    assert AuditEntry.objects.filter(action="API_KEY_DELETED").exists()
    assert_error(as_owner.delete(f"{URL}/{data['id']}?permanent=maybe"), 400, "INVALID_PARAMETER")


def test_rotation_without_grace_kills_the_old_key_at_once(as_owner, client_for, tenant):
    data = assert_ok(create(as_owner))
    rotated = assert_ok(as_owner.post(f"{URL}/{data['id']}/rotate", {}, format="json"))
    assert rotated["id"] == data["id"] and rotated["newApiKey"] != data["apiKey"]
    assert rotated["previousPrefix"] == data["prefix"] and rotated["rotation"]["gracePeriod"] is None
    assert_error(client_for(data["apiKey"], tenant).get(PROBE), 401, "UNAUTHORIZED")
    assert_ok(client_for(rotated["newApiKey"], tenant).get(PROBE))
    entry = AuditEntry.objects.get(action="API_KEY_ROTATED")
    assert rotated["newApiKey"] not in str(entry.details)


def test_rotation_with_grace_keeps_both_keys_then_only_the_new_one(as_owner, client_for, tenant):
    data = assert_ok(create(as_owner))
    rotated = assert_ok(
        as_owner.post(f"{URL}/{data['id']}/rotate", {"gracePeriodMinutes": 10}, format="json")
    )
    assert rotated["rotation"]["gracePeriod"]["minutes"] == 10
    assert_ok(client_for(data["apiKey"], tenant).get(PROBE))
    assert_ok(client_for(rotated["newApiKey"], tenant).get(PROBE))
    ApiKey.objects.filter(id=data["id"]).update(previous_valid_until=timezone.now() - timedelta(seconds=1))
    assert_error(client_for(data["apiKey"], tenant).get(PROBE), 401, "UNAUTHORIZED")
    assert_ok(client_for(rotated["newApiKey"], tenant).get(PROBE))


def test_an_inactive_or_revoked_key_cannot_be_rotated(as_owner):
    data = assert_ok(create(as_owner))
    ApiKey.objects.filter(id=data["id"]).update(status="inactive")
    assert_error(as_owner.post(f"{URL}/{data['id']}/rotate", {}, format="json"), 409, "KEY_INACTIVE")
    assert_error(
        as_owner.post(f"{URL}/{data['id']}/rotate", {"gracePeriodMinutes": -1}, format="json"),
        422,
        "VALIDATION_ERROR",
    )


def test_rotation_is_limited_per_key(as_owner):
    data = assert_ok(create(as_owner))
    for _ in range(10):
        assert_ok(as_owner.post(f"{URL}/{data['id']}/rotate", {}, format="json"))
    assert_error(as_owner.post(f"{URL}/{data['id']}/rotate", {}, format="json"), 429, "RATE_LIMITED")


def test_a_key_from_a_disallowed_address_is_refused(as_owner, client_for, tenant):
    data = assert_ok(create(as_owner, ipWhitelist="10.1.0.0/16"))
    assert_error(client_for(data["apiKey"], tenant).get(PROBE), 403, "IP_NOT_ALLOWED")
    assert_ok(client_for(data["apiKey"], tenant, REMOTE_ADDR="10.1.2.3").get(PROBE))


def test_an_expired_key_stops_at_once_and_reads_as_expired(as_owner, client_for, tenant):
    data = assert_ok(create(as_owner))
    ApiKey.objects.filter(id=data["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(client_for(data["apiKey"], tenant).get(PROBE), 401, "UNAUTHORIZED")
    assert assert_ok(as_owner.get(f"{URL}/{data['id']}"))["isExpired"] is True


VALIDATE = "/api/v1/api-key/validate"


def test_public_validation_answers_valid_with_the_key_summary(anon, tenant):
    key, raw = factories.make_api_key(tenant, ["vault:read"], ip_whitelist=["10.0.0.0/8"])
    data = assert_ok(anon.post(VALIDATE, {"apiKey": raw, "clientIp": "10.2.3.4"}, format="json"))
    assert data["valid"] is True and data["apiKey"]["id"] == str(key.id)
    assert data["apiKey"]["ipRestrictions"] == {
        "enabled": True,
        "allowedIps": ["10.0.0.0/8"],
        "clientIpValid": True,
    }
    assert raw not in str(data) and data["tenant"]["id"] == str(tenant.id)


@pytest.mark.parametrize(
    ("change", "body", "reason"),
    [
        ({}, {"apiKey": "ak_live_unknown"}, "INVALID_KEY"),
        ({"status": "revoked"}, {}, "KEY_REVOKED"),
        ({"status": "inactive"}, {}, "KEY_INACTIVE"),
        ({"expires_at": "past"}, {}, "KEY_EXPIRED"),
        ({"ip_whitelist": ["10.0.0.0/8"]}, {}, "IP_NOT_ALLOWED"),
        ({}, {"scope": "admin:write"}, "SCOPE_INVALID"),
        ({"tenant": "suspended"}, {}, "TENANT_INACTIVE"),
    ],
)
def test_validation_says_why_a_key_is_not_valid(anon, tenant, change, body, reason):
    key, raw = factories.make_api_key(tenant, ["vault:read"])
    if change.get("expires_at"):
        change = {"expires_at": timezone.now() - timedelta(minutes=1)}
    if change.get("tenant"):
        tenant.status = "suspended"
        tenant.save()
        change = {}
    ApiKey.objects.filter(id=key.id).update(**change)
    response = anon.post(VALIDATE, {"apiKey": raw, "clientIp": "192.0.2.1"} | body, format="json")
    data = assert_ok(response)
    assert data["valid"] is False and data["reason"] == reason


def test_validation_reports_an_exhausted_rate_limit(anon, client_for, tenant, settings):
    settings.RATE_LIMIT_PER_KEY = "2/m"
    _key, raw = factories.make_api_key(tenant, ["admin:read"])
    client_for(raw, tenant).get(PROBE)
    client_for(raw, tenant).get(PROBE)
    data = assert_ok(anon.post(VALIDATE, {"apiKey": raw, "clientIp": "192.0.2.1"}, format="json"))
    assert data["reason"] == "RATE_LIMIT_EXCEEDED"


def test_public_validation_needs_both_fields_and_a_real_ip(anon):
    assert_error(anon.post(VALIDATE, {"apiKey": "x"}, format="json"), 400, "VALIDATION_ERROR")
    error = assert_error(
        anon.post(VALIDATE, {"apiKey": "x", "clientIp": "300.1.1.1"}, format="json"), 422, "VALIDATION_ERROR"
    )
    assert "clientIp" in error["details"]


def test_authenticated_validation_checks_that_the_key_is_this_one(as_owner, tenant):
    key, raw = factories.make_api_key(tenant, ["vault:read"])
    _other, other_raw = factories.make_api_key(tenant, ["vault:read"])
    url = f"{URL}/{key.id}/validate"
    assert assert_ok(as_owner.post(url, {"apiKey": raw}, format="json"))["valid"] is True
    assert assert_ok(as_owner.post(url, {"apiKey": other_raw}, format="json"))["reason"] == "INVALID_KEY"


def test_an_expired_key_job_marks_it_and_purges_old_revoked_keys(tenant):
    from core.models import JobRun
    from identity.jobs import cleanup_expired_sessions

    expired, _ = factories.make_api_key(tenant, expires_at=timezone.now() - timedelta(days=1))
    old, _ = factories.make_api_key(tenant)
    ApiKey.objects.filter(id=old.id).update(status="revoked", revoked_at=timezone.now() - timedelta(days=91))
    assert cleanup_expired_sessions(JobRun(job_name="cleanupExpiredSessions")) == 2
    assert ApiKey.objects.get(id=expired.id).status == "expired"
    assert not ApiKey.objects.filter(id=old.id).exists()


def test_validation_of_a_key_with_a_scope_this_service_does_not_know_says_so(anon, tenant):
    key, raw = factories.make_api_key(tenant, ["vault:read"])
    ApiKey.objects.filter(id=key.id).update(scopes=["vault:read", "nonsense:scope"])
    data = assert_ok(anon.post(VALIDATE, {"apiKey": raw, "clientIp": "192.0.2.1"}, format="json"))
    assert data["valid"] is False and data["reason"] == "SCOPE_INVALID"
    assert "nonsense:scope" in data["details"] and "requested" not in data["details"]


def test_a_key_made_by_a_key_names_the_key_that_made_it(client_for, tenant, owner):
    maker, raw = factories.make_api_key(
        tenant, ["admin:write", "admin:read"], name="provisioner", created_by=owner
    )
    body = {"name": "made-by-a-key", "scopes": ["vault:read"], "environment": "live"}
    data = assert_ok(client_for(raw, tenant).post(URL, body, format="json"))
    assert data["createdBy"] == {"id": str(maker.id), "name": "provisioner", "email": ""}
    made = ApiKey.objects.get(name="made-by-a-key")
    assert made.created_by == owner  # the person accountable for it, as for the key that made it
