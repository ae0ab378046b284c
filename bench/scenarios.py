"""The scenarios and their floors, each a ratio to a baseline measured in the same run.

Placeholders: {tenant_id}, {api_key}, {credential_id}, ... come from bench/seed.py; inside bodies,
literal braces are doubled. "{i}" picks a seeded credential at random, "{n}" is unique per request
(both filled by bench/lua/request.lua).
"""

from __future__ import annotations

from dataclasses import dataclass, field

AUTH = {"X-API-Key": "{api_key}", "x-tenantid": "{tenant_id}", "Accept": "application/json"}
JSON = {**AUTH, "Content-Type": "application/json"}
MCP = {**JSON, "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


@dataclass(frozen=True)
class Scenario:
    name: str
    method: str
    path: str
    headers: dict = field(default_factory=lambda: dict(AUTH))
    body: str | None = None
    baseline: str | None = None  # name of the scenario this one is compared with
    target: float | None = None  # the floor: minimum ratio of requests/s to the baseline
    pick: int | None = None  # "{i}" ranges over [0, pick)
    connections: int | None = None
    baseline_only: bool = False  # always run, even with --only
    base: str | None = None  # context key of another server's URL (a fake called directly)
    needs: str | None = None  # context key that must be set by the seed, else "not yet measurable"


SEEDED = 10_000

SCENARIOS: list[Scenario] = [
    Scenario("baseline: bare envelope", "GET", "/bench/baseline/bare", baseline_only=True),
    Scenario(
        "baseline: pk SELECT", "GET", "/bench/baseline/select/bench-{i}", pick=SEEDED, baseline_only=True
    ),
    Scenario(
        "baseline: INSERT pair",
        "POST",
        "/bench/baseline/insert",
        baseline_only=True,
        headers=dict(JSON),
        body='{{"integrationId": "base-{n}"}}',
    ),
    Scenario(
        "credential details",
        "GET",
        "/api/v1/credentials/bench-{i}/details",
        pick=SEEDED,
        baseline="baseline: pk SELECT",
        target=0.6,
    ),
    Scenario(
        "credential decrypted GET",
        "GET",
        "/api/v1/credentials/bench-{i}",
        pick=SEEDED,
        baseline="baseline: INSERT pair",
    ),
    Scenario(
        "credential store",
        "POST",
        "/api/v1/credentials",
        headers=dict(JSON),
        body='{{"integrationId": "store-{n}", "credentialName": "bench", "authType": "api_key", '
        '"accessToken": "tok-{n}", "scopes": ["read"]}}',
        baseline="baseline: INSERT pair",
    ),
    Scenario(
        "credential list (page of 50)",
        "GET",
        "/api/v1/credentials?limit=50",
        baseline="baseline: pk SELECT",
        target=0.4,
    ),
    Scenario(
        "failed files (5,000 records)",
        "POST",
        "/v2/cloudstore/failed-files",
        headers=dict(JSON),
        body='{{"vectordb_config": {{"platform_domain": "bench.test", "tenant_id": "{tenant_id}"}}, '
        '"platform_type": "sitelib"}}',
        connections=4,
    ),
    # Latency, not throughput: one connection each, compared by bench/harness.py hub_overhead().
    Scenario(
        "tool execute (hub)",
        "POST",
        "/api/v1/tools/itdocs.configuration.get/execute",
        headers=dict(JSON),
        body='{{"input": {{"configuration_id": "{configuration_id}"}}}}',
        connections=1,
        needs="toolhub",
    ),
    # The same call through POST /mcp tools/call, compared with the execute by mcp_overhead().
    Scenario(
        "tool call (mcp)",
        "POST",
        "/mcp",
        headers=dict(MCP),
        body='{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name": '
        '"itdocs.configuration.get", "arguments": {{"configuration_id": "{configuration_id}"}}}}}}',
        connections=1,
        needs="toolhub",
    ),
    Scenario(
        "tool: itdocs fake directly",
        "GET",
        "/configurations/{configuration_id}",
        headers={"x-api-key": "{itdocs_key}", "Accept": "application/vnd.api+json"},
        connections=1,
        base="itdocs_url",
        needs="toolhub",
    ),
]
