import pytest

from tests.security.stack import services_run


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason="needs the services run of .ci/run (SERVICES_RUN=1, PostgreSQL and Redis)")
    for item in items:
        if "services" in item.keywords and not services_run():
            item.add_marker(skip)
