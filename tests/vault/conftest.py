from __future__ import annotations

import pytest

from core.models import Role
from tests import factories
from tests.fakes.oauth_provider import FakeOAuthProvider

URL = "/api/v1/credentials"


def store_body(**overrides) -> dict:
    body = {
        "integrationId": "itsm-prod-001",
        "credentialName": "ITSM production",
        "authType": "api_key",
        "description": "Ticket sync",
        "scopes": ["tickets.read", "tickets.write"],
        "metadata": {"region": "eu"},
        "accessToken": "ak-plain-0001",
    }
    return body | overrides


@pytest.fixture
def integration_admin(tenant):
    return factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator", email="int@acme.test")


@pytest.fixture
def admin_api(client_for, owner, tenant):
    return client_for(owner, tenant)


@pytest.fixture
def viewer_api(client_for, teammate, tenant):
    return client_for(teammate, tenant)


@pytest.fixture
def outsider_api(client_for, outsider, other_tenant):
    return client_for(outsider, other_tenant)


@pytest.fixture
def stored(admin_api):
    """A stored api_key credential (the API's answer)."""
    response = admin_api.post(URL, store_body(), format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]


@pytest.fixture
def oauth_provider(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    with FakeOAuthProvider() as provider:
        yield provider


@pytest.fixture(autouse=True)
def _fresh_keyring():
    """Each test starts with no unwrapped keys and an unverified keyring, as a new process would
    (the database rows behind the process caches are rolled back between tests)."""
    from vault import keyring

    keyring.forget_cached_keys()
    yield
    keyring.forget_cached_keys()


@pytest.fixture
def drop_queued_messages():
    """Rotations started inside a rolled-back test transaction still reach the broker; drop them so
    a later test's worker does not chase runs that never committed."""
    yield
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)
