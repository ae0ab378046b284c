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
