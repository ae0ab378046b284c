import pytest


@pytest.fixture
def private_ok(settings):
    """The loopback fakes are private addresses: let the outbound guard's address rule pass them."""
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
