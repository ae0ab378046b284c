"""The hub's added latency on execute: `itdocs.configuration.get` through POST
/api/v1/tools/{tool_key}/execute (Django test client: authentication, tenancy, rate limit, tool,
permission, connection, schema checks, vault decryption, execution record, audit) beside the same
vendor call made directly with the same client against the same fast loopback fake, and the same
tool called through POST /mcp `tools/call` with the same key (MCP's cost over REST: the floor is
1 ms at p50). REST and MCP calls alternate, so a busy machine slows both alike.

    .venv/bin/python -m bench.tool_execute [--calls 300] [--idempotent] [--count]

Runs on DATABASE_URL's engine (a throwaway test database is created and dropped). `--count` also
prints what a call costs in work rather than time (Python function calls and SQL statements per
call), which stays comparable on a machine too busy for timings to mean much.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdef0123456789abcdef")
os.environ.setdefault("VAULT_MASTER_KEYS", "bench1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
os.environ.setdefault("RATE_LIMIT_PER_KEY", "100000/m")
os.environ.setdefault("RATE_LIMIT_PER_TENANT", "100000/m")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)
from rest_framework.test import APIClient  # noqa: E402

from integrations.itdocs import ItdocsClient  # noqa: E402
from tests import factories  # noqa: E402
from tests.fakes.itdocs import FakeItdocs  # noqa: E402
from tests.toolhub.support import make_connection, make_credential  # noqa: E402

TOOL = "itdocs.configuration.get"
MCP_ACCEPT = "application/json, text/event-stream"
MCP_VERSION = "2025-11-25"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def elapsed_ms(function, index: int) -> float:
    started = time.perf_counter()
    function(index)
    return (time.perf_counter() - started) * 1000


def timed(function, calls: int) -> list[float]:
    return [elapsed_ms(function, index) for index in range(calls)]


def timed_alternately(first, second, calls: int) -> tuple[list[float], list[float]]:
    """Both functions' times, one call of each in turn."""
    pairs = [(elapsed_ms(first, index), elapsed_ms(second, index)) for index in range(calls)]
    return [a for a, _ in pairs], [b for _, b in pairs]


def work(function, calls: int = 20) -> tuple[float, float]:
    """(Python function calls, SQL statements) per call, medians over `calls` calls."""
    counted = [0]

    def count(_frame, event, _arg) -> None:
        if event in ("call", "c_call"):
            counted[0] += 1

    python, statements = [], []
    for index in range(calls):
        with CaptureQueriesContext(connection) as queries:
            before = counted[0]
            sys.setprofile(count)
            try:
                function(1_000_000 + index)  # past the timed calls' idempotency keys
            finally:
                sys.setprofile(None)
        python.append(counted[0] - before)
        statements.append(len(queries.captured_queries))
    return statistics.median(python), statistics.median(statements)


def difference(slower: list[float], faster: list[float]) -> str:
    p50 = statistics.median(slower) - statistics.median(faster)
    return f"p50={p50:7.2f} ms  p99={percentile(slower, 0.99) - percentile(faster, 0.99):7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--idempotent", action="store_true", help="send a fresh idempotency key per call")
    parser.add_argument("--count", action="store_true", help="also count Python calls and SQL per call")
    options = parser.parse_args()
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False)
    try:
        with FakeItdocs() as fake:
            report(fake, options)
    finally:
        teardown_databases(databases, verbosity=0)


def report(fake: FakeItdocs, options) -> None:
    config_id = fake.add_configuration(fake.add_organization("Bench"), "srv-01")
    tenant = factories.make_tenant("bench")
    _key, raw = factories.make_api_key(tenant, ["tools:execute"])
    make_credential(tenant, "itdocs-bench", access_token=fake.api_key)
    make_connection(tenant, fake.url, integration_id="itdocs-bench")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_X_TENANTID=str(tenant.id))
    url = f"/api/v1/tools/{TOOL}/execute"

    def hub(index: int) -> None:
        body = {"input": {"configuration_id": config_id}}
        if options.idempotent:
            body["idempotency_key"] = f"bench-{index}"
        assert client.post(url, body, format="json").status_code == 200

    mcp_client = APIClient()
    mcp_client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {raw}", HTTP_ACCEPT=MCP_ACCEPT, HTTP_MCP_PROTOCOL_VERSION=MCP_VERSION
    )

    def mcp(index: int) -> None:
        params = {"name": TOOL, "arguments": {"configuration_id": config_id}}
        if options.idempotent:
            params["_meta"] = {"idempotency_key": f"bench-mcp-{index}"}
        message = {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": params}
        response = mcp_client.post("/mcp", message, format="json")
        assert response.status_code == 200 and response.json()["result"]["isError"] is False

    direct_client = ItdocsClient(base_url=fake.url, api_key=fake.api_key)

    def direct(_index: int) -> None:
        direct_client.configuration(config_id)

    timed(hub, 20), timed(mcp, 20), timed(direct, 20)  # warm every path (imports, pools, caches)
    hub_ms, mcp_ms = timed_alternately(hub, mcp, options.calls)
    direct_ms = timed(direct, options.calls)
    print(f"engine={connection.vendor} calls={options.calls} idempotent={options.idempotent}")
    measured = (("execute via hub", hub_ms), ("mcp tools/call", mcp_ms), ("fake directly", direct_ms))
    for name, values in measured:
        print(f"{name:16} p50={statistics.median(values):7.2f} ms  p99={percentile(values, 0.99):7.2f} ms")
    print(f"{'hub adds':16} {difference(hub_ms, direct_ms)}")
    print(f"{'mcp adds to rest':16} {difference(mcp_ms, hub_ms)}  (floor: p50 <= 1 ms)")
    if options.count:
        for name, function in (("execute via hub", hub), ("mcp tools/call", mcp), ("fake directly", direct)):
            python, statements = work(function)
            print(f"{name:16} {python:7.0f} Python calls, {statements:.0f} SQL statements per call")


if __name__ == "__main__":
    main()
