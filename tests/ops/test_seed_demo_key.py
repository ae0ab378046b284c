"""The demo key that `make run` prints (seed_demo, run on every start) survives restarts: a key
pasted into another terminal keeps working, and each start prints a key that works, kept for the
next start in var/demo_api_key (0600). tests/ops/test_make_run.py restarts `make run` for real."""

from __future__ import annotations

import stat
from io import StringIO

import pytest
from django.core.management import call_command

from core.models import Tenant
from tests.helpers import assert_ok

pytestmark = pytest.mark.django_db


@pytest.fixture
def var(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    return tmp_path


@pytest.fixture
def start(django_capture_on_commit_callbacks):
    """What `make run` does with the demo tenant as it starts: seed_demo, its key on the last line."""

    def seed_demo() -> str:
        out = StringIO()
        with django_capture_on_commit_callbacks(execute=True):
            call_command("seed_demo", stdout=out, stderr=StringIO())
        return out.getvalue().split()[-1]

    return seed_demo


def api(client, method: str, path: str, key: str):
    tenant_id = str(Tenant.objects.get(name="demo").id)
    return getattr(client, method)(path, HTTP_X_API_KEY=key, HTTP_X_TENANTID=tenant_id)


def test_a_restart_prints_the_key_pasted_before_and_it_still_works(client, var, start):
    pasted = start()
    assert start() == pasted
    assert api(client, "get", "/api/v1/tools", pasted).status_code == 200
    kept = var / "demo_api_key"
    assert kept.read_text().strip() == pasted and stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_a_revoked_demo_key_is_replaced_at_the_next_start_by_one_that_works(client, var, start):
    first = start()
    (record,) = assert_ok(api(client, "get", "/api/v1/api-keys", first))["apiKeys"]
    assert api(client, "delete", f"/api/v1/api-keys/{record['id']}", first).status_code == 200
    second = start()
    assert second != first and (var / "demo_api_key").read_text().strip() == second
    assert api(client, "get", "/api/v1/tools", second).status_code == 200
    assert api(client, "get", "/api/v1/tools", first).status_code == 401
