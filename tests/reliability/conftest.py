"""The fault tests run only in the services run of .ci/run (the skip rule of tests/security). The
Redis, Celery and gunicorn faults share one live stack whose cache and broker are a private
redis-server (stopped and restarted by the tests, never the machine's own)."""

from __future__ import annotations

import os

import pytest

from tests.reliability.support import PrivateRedis
from tests.security.conftest import pytest_collection_modifyitems  # noqa: F401  (the services skip)
from tests.security.stack import live_stack, services_run


@pytest.fixture(scope="session")
def private_redis():
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def fault_stack(private_redis, tmp_path_factory):
    """Two gunicorn workers on a private PostgreSQL database; cache on the private Redis (db 0),
    broker on it too (db 1); loopback vendors allowed; a 1 s idempotency lease margin."""
    if not services_run():
        pytest.skip("needs the services run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REDIS_URL", private_redis.url(0))
        with live_stack(
            tmp_path_factory.mktemp("faults"),
            workers=2,
            CELERY_BROKER_URL=private_redis.url(1),
            OUTBOUND_ALLOW_PRIVATE_NETWORKS="true",
            TOOLHUB_LEASE_MARGIN_SECONDS="1",
            RATE_LIMIT_PER_KEY="100000/m",  # the load is counted, never up to a 429
            RATE_LIMIT_PER_TENANT="100000/m",
            DJANGO_LOG_LEVEL=os.environ.get("FAULT_LOG_LEVEL", "WARNING"),
        ) as stack:
            yield stack
