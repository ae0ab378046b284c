"""Tool hub fixtures: a loopback fake vendor, a vault credential and a connection to it, machine
keys allowed to execute, and an approver."""

from __future__ import annotations

import pytest

from tests import factories
from tests.fakes.itdocs import FakeItdocs
from tests.toolhub.support import make_connection, make_credential


@pytest.fixture
def loopback(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    return settings


@pytest.fixture
def itdocs_fake(loopback):
    with FakeItdocs() as fake:
        fake.org_id = fake.add_organization("Acme Corp")
        fake.add_organization("Globex")
        fake.config_id = fake.add_configuration(fake.org_id, "srv-01", primary_ip="10.1.2.3")
        yield fake


@pytest.fixture
def itdocs_connection(tenant, itdocs_fake):
    make_credential(tenant, "itdocs-prod-001", access_token=itdocs_fake.api_key)
    return make_connection(tenant, itdocs_fake.url, integration_id="itdocs-prod-001")


@pytest.fixture
def exec_key(tenant):
    """A raw API key allowed to execute every tool."""
    _key, raw = factories.make_api_key(tenant, ["tools:execute", "tools:read"], name="agent")
    return raw


@pytest.fixture
def executor(client_for, tenant, exec_key):
    return client_for(exec_key, tenant)


@pytest.fixture
def approver(tenant):
    from core.models import Role

    return factories.make_user(tenant, [Role.APPROVER], username="approver", email="approver@acme.test")
