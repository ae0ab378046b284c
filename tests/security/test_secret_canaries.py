"""Secret canaries: credentials, an API key, an OAuth client and a service account carry canary
values; every endpoint and every job is exercised; then responses (bodies and headers), the logs,
the audit table, a full dump of the database, the cache's keys and values and the broker's messages
are scanned for the canaries in plain, base64, hex and URL-encoded forms. They may appear only in
the decrypted GET and in the once-shown create responses."""

from __future__ import annotations

import base64
import json
import logging
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.apps import apps
from django.core import serializers as django_serializers
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from core.audit import system_actor
from core.jobs import job_available, job_enqueue, job_execute
from core.models import AuditEntry
from identity.models import ApiKey, OAuthClient, ServiceAccount
from tests import factories
from tests.security.reports import record
from toolhub.inputs import redacted
from toolhub.models import Approval
from vault.models import Credential

pytestmark = pytest.mark.django_db(transaction=True)

ACCESS, REFRESH, CLIENT_SECRET, EXTRA = (
    "cnry-access-7f3a91c2e5",
    "cnry-refresh-b4d8e6a1f0",
    "cnry-client-9c2e4f7a1b",
    "cnry-extra-1d5f8a3c7e",
)
JOBS = [
    "tokenExpiry",
    "credentialRotationCheck",
    "cleanupExpiredSessions",
    "auditLogArchive",
    "dataSync",
    "reportGeneration",
    "failedFilesRetention",
]
CONSOLE_PAGES = [
    "/admin/",
    "/admin/ingestion/syncconfiguration/",
    "/admin/ingestion/syncrun/",
    "/admin/ingestion/failedfilerow/",
    "/admin/vault/credential/",
]


def forms(secret: str) -> set[str]:
    raw = secret.encode()
    return {
        secret,
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        raw.hex(),
        raw.hex().upper(),
        quote(secret, safe=""),
    }


def hits(text: str, secrets: list[str]) -> list[str]:
    return [f"{secret}:{form}" for secret in secrets for form in forms(secret) if form in text]


def database_dump() -> str:
    parts = []
    for model in apps.get_models():
        parts.append(django_serializers.serialize("json", model._base_manager.all()))
    return "\n".join(parts)


def cache_dump() -> str:
    client = getattr(cache, "client", None)
    if client is None or not hasattr(cache, "keys"):  # local memory: every stored value
        return repr(getattr(cache, "_cache", {}))
    redis = client.get_client()
    out = []
    for key in redis.scan_iter(count=1000):
        out.append(repr(key))
        kind = redis.type(key)
        if kind == b"string":
            out.append(repr(redis.get(key)))
        elif kind == b"list":
            out.extend(repr(v) for v in redis.lrange(key, 0, -1))
        elif kind == b"hash":
            out.append(repr(redis.hgetall(key)))
        elif kind in (b"set", b"zset"):
            out.append(repr(redis.zrange(key, 0, -1) if kind == b"zset" else redis.smembers(key)))
    return "\n".join(out)


def broker_dump() -> str:
    """The broker's messages: the run's filesystem folder or the Redis queues (list keys above)."""
    from config.celery import app

    folder = (app.conf.broker_transport_options or {}).get("data_folder_in")
    if not folder:
        return ""
    from pathlib import Path

    return "\n".join(p.read_text(errors="replace") for p in Path(folder).glob("*") if p.is_file())


def console_pages(tenant, secret: str) -> list[str]:
    """Every console page that shows the tenant's rows: each list and each row's page. A pending
    approval whose caller sent a secret among its input is there too, as the tool hub records it."""
    Approval.objects.create(
        tenant=tenant,
        tool_key="itsm.incident.delete",
        risk_level="destructive",
        idempotency_key="canary",
        fingerprint="0" * 64,
        input_redacted=redacted({"ticket": "INC-1", "apiKey": secret, "password": secret}),
        requester={"type": "api_key", "id": "k", "name": "canary"},
        requester_key="api_key:k",
        expires_at=timezone.now() + timedelta(hours=1),
    )
    pages = []
    for rows, path in [
        (AuditEntry.objects, "core/auditentry"),
        (Approval.objects, "toolhub/approval"),
        (Credential.objects, "vault/credential"),
        (ApiKey.objects, "identity/apikey"),
        (OAuthClient.objects.registered(), "identity/oauthclient"),  # not service accounts' own
        (ServiceAccount.objects, "identity/serviceaccount"),
    ]:
        pages.append(f"/admin/{path}/")
        pages += [
            f"/admin/{path}/{pk}/change/"
            for pk in rows.filter(tenant_id=tenant.id).values_list("pk", flat=True)
        ]
    return pages


def test_canaries_appear_only_where_they_are_shown(client_for, tenant, owner, caplog, capsys, settings):
    settings.RATE_LIMIT_PER_KEY = settings.RATE_LIMIT_PER_TENANT = "100000/m"
    caplog.set_level(logging.DEBUG)
    api = client_for(owner, tenant)
    root_user = factories.make_super_admin(username="root")
    root = client_for(root_user, tenant)
    allowed, scanned = [], []

    def call(client, method, path, body=None, *, shows_secret=False):
        response = client.generic(method, path, json.dumps(body or {}), content_type="application/json")
        text = response.content.decode(errors="replace") + json.dumps(dict(response.headers))
        (allowed if shows_secret else scanned).append((method, path, response.status_code, text))
        return response

    stored = call(
        api,
        "POST",
        "/api/v1/credentials",
        {
            "integrationId": "canary-1",
            "credentialName": "canary",
            "authType": "oauth2_bearer",
            "accessToken": ACCESS,
            "refreshToken": REFRESH,
            "secrets": {"extra": EXTRA, "client_secret": CLIENT_SECRET},
            "metadata": {"note": "plain"},
        },
    ).json()["data"]
    key = call(
        api,
        "POST",
        "/api/v1/api-keys",
        {"name": "canary", "scopes": ["admin:read"], "environment": "live"},
        shows_secret=True,
    )
    assert key.status_code == 200, key.content
    raw_key = key.json()["data"]["apiKey"]
    client = call(
        api,
        "POST",
        "/api/v1/oauth-clients",
        {
            "name": "canary",
            "clientType": "confidential",
            "redirectUris": [],
            "grantTypes": ["client_credentials"],
            "scopes": ["admin:read"],
        },
        shows_secret=True,
    ).json()["data"]
    account = call(api, "POST", "/api/v1/admin/service-account/create", shows_secret=True).json()["data"]
    secrets = [
        ACCESS,
        REFRESH,
        CLIENT_SECRET,
        EXTRA,
        raw_key,
        client["clientSecret"],
        account["clientSecret"],
    ]
    cid = stored["id"]
    for method, path, body in [
        ("GET", "/api/v1/credentials", None),
        ("GET", "/api/v1/credentials/canary-1/details", None),
        ("PATCH", f"/api/v1/credentials/canary-1/{cid}", {"description": "d"}),
        ("PATCH", f"/api/v1/credentials/canary-1/{cid}", {"accessToken": ACCESS}),
        ("POST", "/api/v1/credentials", {"integrationId": "bad", "authType": "nope", "accessToken": ACCESS}),
        ("GET", "/api/v1/api-keys", None),
        ("GET", f"/api/v1/api-keys/{key.json()['data']['id']}", None),
        ("POST", f"/api/v1/api-keys/{key.json()['data']['id']}/validate", {"apiKey": raw_key}),
        ("POST", "/api/v1/api-key/validate", {"apiKey": raw_key, "clientIp": "10.0.0.1"}),
        ("GET", "/api/v1/oauth-clients", None),
        ("GET", f"/api/v1/oauth-clients/{client['id']}", None),
        ("GET", "/api/v1/admin/audit-logs?limit=100", None),
        ("GET", f"/api/v1/admin/tenants/{tenant.id}/stats", None),
        ("GET", "/api/v1/admin/health", None),
        ("GET", "/api/v1/tools", None),
        ("GET", "/api/v1/connections", None),
    ]:
        call(api, method, path, body)
    call(api, "GET", "/api/v1/credentials/canary-1", shows_secret=True)  # the decrypted GET
    call(root, "POST", "/api/v1/admin/dek/rotate", {"tenantId": str(tenant.id)})
    for name in [*JOBS, "dekRotation"]:
        if job_available(name):
            job_execute(job_enqueue(name=name, triggered_by=system_actor("tests"), tenant_id=tenant.id))
    console = Client()  # the operators' console, as a superuser sees it: every tenant, every panel
    console.force_login(root_user)
    for path in [*console_pages(tenant, raw_key), *CONSOLE_PAGES]:
        response = console.get(path)
        assert response.status_code == 200, path
        scanned.append(("GET", path, 200, response.content.decode(errors="replace")))

    places = {
        "responses": "\n".join(text for *_, text in scanned),
        "logs": caplog.text + capsys.readouterr().err,
        "audit": json.dumps(list(AuditEntry.objects.values()), default=str),
        "database": database_dump(),
        "cache": cache_dump(),
        "broker": broker_dump(),
    }
    found = {place: hits(text, secrets) for place, text in places.items()}
    shown = {secret: any(secret in text for *_, text in allowed) for secret in secrets}
    record(
        "canaries",
        "in_process",
        {
            "secrets": len(secrets),
            "forms_each": len(forms(ACCESS)),
            "responses_scanned": len(scanned),
            "database_bytes": len(places["database"]),
            "hits": {k: len(v) for k, v in found.items()},
        },
    )
    assert all(shown.values()), shown  # the scan would see them: they are where they are shown
    assert found == {place: [] for place in places}, found
