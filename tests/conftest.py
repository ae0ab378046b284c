from __future__ import annotations

import json
import re
from datetime import datetime

import pytest
from django.conf import settings
from rest_framework.test import APIClient
from rest_framework_simplejwt.tokens import RefreshToken

from core.models import Role
from tests import factories
from tests.browser import browser  # noqa: F401 (a fixture for every console test)

# Django's default hasher costs ~0.2 s a check on this machine; tests do not need that cost.
settings.PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "identity.hashers.ClientSecretHasher",
]


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Rate-limit counters and cached values never leak from one test into the next."""
    from django.core.cache import cache

    if hasattr(cache, "delete_pattern"):
        cache.delete_pattern("*")
    else:
        cache.clear()
    yield


# DESIGN.md section 4: every timestamp of every response is ISO 8601 UTC with milliseconds and Z.
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
# A date followed by a time, as `datetime.fromisoformat` reads one; a bare date is not a timestamp.
DATE_TIME = re.compile(r"^\d{4}-?\d\d-?\d\d[T ]\d\d")


def timestamp_problems(body, path: str = "") -> list[str]:
    """`path: value` for every string in a JSON body that reads as a date-time but is not in the
    documented form."""
    if isinstance(body, dict):
        return [p for key, value in body.items() for p in timestamp_problems(value, f"{path}.{key}")]
    if isinstance(body, list):
        return [p for i, value in enumerate(body) for p in timestamp_problems(value, f"{path}[{i}]")]
    if isinstance(body, str) and DATE_TIME.match(body) and not TIMESTAMP.match(body) and _parses(body):
        return [f"{path or '.'}: {body!r}"]
    return []


def _parses(value: str) -> bool:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _json_body(response):
    if getattr(response, "streaming", False) or "json" not in response.get("Content-Type", ""):
        return None
    try:
        return json.loads(response.content)
    except ValueError:
        return None


@pytest.fixture(autouse=True)
def response_timestamps(monkeypatch):
    """Every response a test client (Django's or DRF's) receives during a test: the timestamps of
    its JSON body are checked as it arrives, and a test that received one in another form fails.
    Yields the list of what was found (a test of the check itself reads and empties it)."""
    from django.test.client import Client

    found: list[str] = []
    request = Client.request

    def checked(self, **environ):
        response = request(self, **environ)
        where = f"{environ.get('REQUEST_METHOD', 'GET')} {environ.get('PATH_INFO')}"
        found.extend(f"{where} {problem}" for problem in timestamp_problems(_json_body(response)))
        return response

    monkeypatch.setattr(Client, "request", checked)
    yield found
    if found:
        pytest.fail(
            "Timestamps not in the form 2026-11-21T09:30:00.123Z (DESIGN.md section 4):\n" + "\n".join(found),
            pytrace=False,
        )


@pytest.fixture
def tenant(db):
    return factories.make_tenant("acme")


@pytest.fixture
def other_tenant(db):
    return factories.make_tenant("globex")


@pytest.fixture
def owner(tenant):
    """The tenant's administrator."""
    return factories.make_user(tenant, [Role.TENANT_ADMIN], username="owner", email="owner@acme.test")


@pytest.fixture
def teammate(tenant):
    """A member of the same tenant who may only look."""
    return factories.make_user(tenant, [Role.INTEGRATION_VIEWER], username="teammate", email="mate@acme.test")


@pytest.fixture
def outsider(other_tenant):
    """An administrator of another tenant: our objects answer 404 to them."""
    return factories.make_user(
        other_tenant, [Role.TENANT_ADMIN], username="outsider", email="out@globex.test"
    )


def jwt_for(user) -> str:
    return str(RefreshToken.for_user(user).access_token)


@pytest.fixture
def client_for():
    """client_for(user_or_raw_key, tenant) -> an APIClient that authenticates as that principal and
    names `tenant` in x-tenantid (pass tenant=None to send no tenant header)."""

    def build(principal, tenant=None, **headers) -> APIClient:
        client = APIClient()
        credentials = {}
        if isinstance(principal, str):
            credentials["HTTP_AUTHORIZATION"] = f"Bearer {principal}"
        elif principal is not None:
            credentials["HTTP_AUTHORIZATION"] = f"Bearer {jwt_for(principal)}"
        if tenant is not None:
            credentials["HTTP_X_TENANTID"] = str(getattr(tenant, "id", tenant))
        client.credentials(**credentials, **headers)
        return client

    return build


def _isolate_celery() -> None:
    """The test run gets its own queue (and, on the filesystem broker, its own folder), so messages
    from one run are never consumed by another."""
    import tempfile
    import uuid

    from config.celery import app

    app.conf.task_default_queue = f"tests-{uuid.uuid4().hex[:8]}"
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        folder = tempfile.mkdtemp(prefix="broker-")
        app.conf.broker_transport_options = {
            "data_folder_in": folder,
            "data_folder_out": folder,
            "processed_folder": folder,
            "control_folder": folder,
            "store_processed": False,
        }


_isolate_celery()


@pytest.fixture
def celery_worker_thread():
    """A real Celery worker (solo pool, in a thread) consuming the test run's queue."""
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    with start_worker(
        app, pool="solo", perform_ping_check=False, loglevel="WARNING", shutdown_timeout=10
    ) as worker:
        yield worker


@pytest.fixture(scope="session", autouse=True)
def _end_stray_database_sessions(django_db_setup, django_db_blocker):
    """Threads some tests start (Celery's worker, concurrency tests, live servers) can leave a
    connection to the test database open; end those sessions so the database can be dropped."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


# ---- Console, admin API and identity fixtures (super admin, clients by persona, a fake OIDC provider)


@pytest.fixture
def root(db):
    """A platform super admin (Django superuser)."""
    return factories.make_super_admin(username="root", email="root@platform.test")


@pytest.fixture
def as_owner(client_for, owner, tenant):
    return client_for(owner, tenant)


@pytest.fixture
def as_teammate(client_for, teammate, tenant):
    return client_for(teammate, tenant)


@pytest.fixture
def as_outsider(client_for, outsider, other_tenant):
    return client_for(outsider, other_tenant)


@pytest.fixture
def anon():
    from rest_framework.test import APIClient

    return APIClient()


# ---- Identity realms: one fake OpenID Connect provider per module, trusted by the outbound client.
@pytest.fixture(scope="module")
def oidc_server():
    from tests.fakes.oidc import FakeOidcProvider

    with FakeOidcProvider() as fake:
        yield fake


@pytest.fixture
def oidc(oidc_server, settings):
    """The fake provider on loopback: the guard's address rule relaxed, its CA trusted."""
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    settings.OUTBOUND_CA_BUNDLE = oidc_server.ca_file
    oidc_server.reset()
    return oidc_server


@pytest.fixture
def private_ok(settings):
    """The loopback fakes are private addresses: let the outbound guard's address rule pass them."""
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True


@pytest.fixture
def shared_cache(settings, tmp_path):
    """A cache every process shares, as Redis is in production: on the embedded default (a cache in
    each process's memory, where the row caches stay off) a file-based one, so that what the row
    caches do can be seen on both runs."""
    from core.gencache import cache_is_process_local

    if cache_is_process_local():
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                "LOCATION": str(tmp_path),
            }
        }
