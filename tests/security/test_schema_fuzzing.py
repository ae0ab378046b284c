"""Schema fuzzing with schemathesis against a live gunicorn server and its own /api/schema/: every
operation, a fixed seed, 100 examples per operation, as a user holding every role and as a `*` API
key, with the object-level authorization check between two tenants (acme and globex as peers).

Runs in the services run (PostgreSQL and Redis). Figures go to var/reports/fuzzing.json and are
quoted in docs/security.md.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.live import BIN
from tests.security.reports import record
from tests.security.stack import live_stack

pytestmark = pytest.mark.services

SEED = 20261121
EXAMPLES = 100
# positive_data_acceptance expects every schema-valid request to be accepted. The schema says what
# the server enforces (patterns, formats, lengths, required fields and headers, closed PATCH bodies);
# these operations are the ones where a schema-valid request can still be refused, each for a rule
# that depends on something a schema cannot see (docs/security.md lists them). Every other check,
# negative_data_rejection included, runs on them too.
ACCEPTANCE_NOT_CHECKED = {
    # The listings call the platform during the request: its address must resolve, to a public one.
    "POST /v2/sitelib/listing": "cloud_tid and the app registration must exist at the identity platform",
    "POST /v2/wikispace/space-listing": "instance_url must resolve to a public address",
    "POST /v2/itsmplatform/kb-listing": "itsmplatform_domain must resolve to a public address",
    # What exists decides.
    "POST /v2/sitelib/upload": "the vault must hold the integrationId's credential",
    "POST /v2/sitelib/ingest": "the configuration must exist and read this platform",
    "POST /v2/wikispace/ingest": "the configuration must exist and read this platform",
    "POST /v2/itsmplatform/ingest": "the configuration must exist and read this platform",
    "POST /api/v1/connections": "integrationId must name a credential; the connector must serve the domain",
    "POST /api/v1/credentials/{credential_id}/rotate": "an empty body refreshes only one that can be",
    "POST /api/v1/tools/{tool_key}/execute": "input must match the input schema of the tool in the path",
    # One field's rule depends on another's value.
    "POST /api/v1/credentials": "the secrets' form depends on authType (basic_auth: base64 user:password)",
    "POST /api/v1/oauth-clients": "grant types, client type and redirect URIs must agree",
    "POST /oauth/register": "redirect URIs and grant types must agree (RFC 7591)",
    "POST /oauth/token": "each grant_type needs its own fields (RFC 6749)",
    "POST /v2/knowledge/source-rules": "value's form depends on target (a site's URL, a drive id, a URL)",
    "POST /v2/wikispace/delete": "exactly one of source_url and space",
    "POST /v2/itsmplatform/delete": "exactly one of source_url and knowledge_bases",
    "POST /v2/itsmplatform/kb-delete": "exactly one of source_url and knowledge_bases",
    "POST /api/v1/api-keys": "scopes, ipWhitelist, toolPatterns: lists or comma-separated strings",
    # OpenAPI 3.0 cannot constrain an object's keys (propertyNames is 3.1) or its encoded size.
    "POST /api/v1/admin/realms": "roleMapping's keys: 1 to 255 characters, no control characters",
    "PATCH /api/v1/admin/realms/{realm_id}": "roleMapping's keys: 1 to 255 characters, no control characters",
    "PATCH /api/v1/admin/tenants/{tenant_id}": "settings: at most 16 KiB of JSON, no control characters",
    # The body is one of the MCP SDK's JSON-RPC messages, documented as an object.
    "POST /mcp": "a JSON-RPC 2.0 message of the MCP specification",
    # drf-spectacular does not mark a DELETE's body as required.
    "DELETE /v2/sitelib/sources": "its body is required, which the generated schema does not say",
}
LIMITS = {
    "RATE_LIMIT_PER_KEY": "1000000/m",
    "RATE_LIMIT_PER_TENANT": "1000000/m",
    "RATE_LIMIT_LOGIN": "1000000/m",
    "RATE_LIMIT_CLIENT_REGISTRATION": "1000000/m",
}


def _auth_files(tmp_path, stack, kind: str):
    users = [f"acme-{kind}", f"globex-{kind}"]
    document = {
        "auth": [
            {
                "name": name,
                "fixedHeaders": [
                    {"name": key, "value": value} for key, value in stack.personas[name].headers().items()
                ],
            }
            for name in users
        ]
    }
    wfc = tmp_path / f"wfc-{kind}.json"
    wfc.write_text(json.dumps(document))
    config = tmp_path / f"schemathesis-{kind}.toml"
    operations = "".join(
        f'\n[[operations]]\ninclude-name = "{name}"\nchecks.positive_data_acceptance.enabled = false\n'
        for name in ACCEPTANCE_NOT_CHECKED
    )
    config.write_text(
        f'[auth.wfc]\npath = "{wfc}"\nuser = "{users[0]}"\npeers = {json.dumps(users)}\n{operations}'
    )
    return config


def _fuzz(tmp_path, stack, kind: str) -> dict:
    config = _auth_files(tmp_path, stack, kind)
    report = tmp_path / f"report-{kind}.json"
    command = [
        str(BIN / "schemathesis"), "--config-file", str(config), "run", stack.base + "/api/schema/",
        "--checks", "all",
        "--max-examples", str(EXAMPLES), "--seed", str(SEED), "--workers", "2",
        "--generation-database", "none", "--request-timeout", "20",
        "--report", "json", "--report-json-path", str(report), "--no-color",
    ]  # fmt: skip
    started = time.monotonic()
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    elapsed = time.monotonic() - started
    assert report.exists(), result.stdout[-3000:] + result.stderr[-3000:]
    body = json.loads(report.read_text())
    return {"body": body, "elapsed": elapsed, "output": result.stdout, "returncode": result.returncode}


def _server_errors(log_text: str) -> list[str]:
    return [line for line in log_text.splitlines() if '"status_code": 500' in line or "Traceback" in line]


@pytest.mark.parametrize("kind", ["user", "key"], ids=["every-role-user", "star-api-key"])
def test_fuzzing_finds_no_failures(tmp_path, kind):
    with live_stack(tmp_path, workers=2, **LIMITS) as stack:
        run = _fuzz(tmp_path, stack, kind)
        log_text = stack.log.read_text()
    body = run["body"]
    failures = {f["code"]: {"title": f["title"], "count": f["count"], "operations": f["operations"]}
                for f in body["failures"]}  # fmt: skip
    record(
        "fuzzing",
        kind,
        {
            "seed": SEED,
            "max_examples": EXAMPLES,
            "operations_tested": body["operations"]["tested"],
            "operations_total": body["operations"]["total"],
            "cases_generated": body["test_cases"]["generated"],
            "cases_with_failures": body["test_cases"]["with_failures"],
            "failures": failures,
            "errors": len(body["errors"]),
            "server_errors_logged": len(_server_errors(log_text)),
            "acceptance_not_checked": sorted(ACCEPTANCE_NOT_CHECKED),
            "seconds": round(run["elapsed"], 1),
        },
    )
    assert body["operations"]["tested"] == body["operations"]["total"] > 40
    assert body["test_cases"]["generated"] >= body["operations"]["total"] * 10
    assert not failures and not body["errors"], run["output"][-15000:]
    assert not _server_errors(log_text)
    assert run["returncode"] == 0, run["output"][-5000:]
