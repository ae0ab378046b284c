import pytest

from tests import factories


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
