"""README.md's walks, run as printed against a live server: the notes `make run` prints (seed_demo's
export line), the demo vendor (bin/demo-vendor), and each curl command of a walk through bash, with
only the loopback ports changed to the ones this test got. "Your first tool call" searches the demo
handbook that seed_demo writes; "A tool call through a vendor" reaches the demo vendor."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

import pytest
from django.core.management import call_command

from core.models import Tenant
from tests.live import ROOT, free_port, live_server, manage, server_env

README = ROOT / "README.md"
SERVICE, VENDOR = "127.0.0.1:8000", "127.0.0.1:8001"
FIRST_CALL, VENDOR_WALK = "Your first tool call", "A tool call through a vendor"
HANDBOOK = "https://demo.invalid/handbook/"

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="the walk's commands need curl")


def walk_lines(title: str) -> list[str]:
    section = README.read_text().split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    blocks = [block.split("```", 1)[0] for block in section.split("```sh\n")[1:]]
    lines = [line.strip() for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def shell(script: str, **kwargs) -> subprocess.CompletedProcess:
    env = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}  # no proxies
    script = script.replace(".venv/bin/python", sys.executable)
    return subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, **kwargs)


def wait_for_port(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "demo vendor did not start"
            time.sleep(0.1)


@pytest.fixture
def demo_vendor():
    (command,) = [line.split("#")[0].strip() for line in walk_lines(VENDOR_WALK) if "bin/demo-vendor" in line]
    port = free_port()
    script = f"exec {command} --port {port}".replace(".venv/bin/python", sys.executable)
    process = subprocess.Popen(["bash", "-c", script], cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def seeded_service_env(tmp_path, **overrides) -> tuple[dict, str]:
    """What `make run` does before serving (migrate, seed_demo): its environment and export line."""
    env = server_env(tmp_path, **overrides)
    manage("migrate", "--no-input", "-v", "0", env=env)
    seeded = subprocess.run(
        [sys.executable, "manage.py", "seed_demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    (export,) = [line for line in seeded.stderr.splitlines() if line.startswith("export TENANT_ID=")]
    return env, export


def walk(requests: list[str], export: str, base: str, vendor_port: int | None = None) -> list[dict]:
    answers = []
    for request in requests:
        request = request.replace(SERVICE, base.removeprefix("http://"))
        if vendor_port is not None:
            request = request.replace(VENDOR, f"127.0.0.1:{vendor_port}")
        done = shell(f"{export}\n{request}", timeout=60)
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(done.stdout))
    return answers


def test_the_first_call_needs_only_make_run():
    (start,) = [line for line in walk_lines(FIRST_CALL) if "make run" in line]
    assert start.startswith("make run ")


def test_the_vendor_walk_starts_the_service_with_loopback_vendors_allowed():
    (start,) = [line for line in walk_lines(VENDOR_WALK) if "make run" in line]
    assert start.startswith("OUTBOUND_ALLOW_PRIVATE_NETWORKS=true make run")


def test_the_readme_first_call_searches_the_demo_handbook_without_a_vendor(tmp_path):
    env, export = seeded_service_env(tmp_path)  # the suite's hash embedder: words, not meaning
    requests = [line for line in walk_lines(FIRST_CALL) if line.startswith("curl ")]
    assert len(requests) == 2
    with live_server(env, tmp_path / "server.log") as base:
        tool, v2 = walk(requests, export, base)
    assert tool["success"] is True and v2["success"] is True, json.dumps([tool, v2])[:3000]
    assert tool["connection_id"].startswith("conn_")
    found = tool["data"]["results"] + v2["data"]["results"]
    assert len(tool["data"]["results"]) == 2 and len(v2["data"]["results"]) == 1
    assert all(result["source_url"].startswith(HANDBOOK) for result in found)


def test_the_readme_walk_reaches_the_demo_vendor_through_a_connection(tmp_path, demo_vendor):
    env, export = seeded_service_env(tmp_path, OUTBOUND_ALLOW_PRIVATE_NETWORKS="true")
    requests = [line for line in walk_lines(VENDOR_WALK) if line.startswith("curl ")]
    assert len(requests) == 5
    with live_server(env, tmp_path / "server.log") as base:
        answers = walk(requests, export, base, vendor_port=demo_vendor)
    assert [answer["success"] for answer in answers] == [True] * 5, json.dumps(answers)[:3000]
    stored, connection, tools, dry_run, call = answers
    assert stored["data"]["integrationId"] == "itdocs-demo"
    assert connection["data"]["id"].startswith("conn_") and connection["data"]["is_default"] is True
    assert "itdocs.organization.list" in [tool["tool_key"] for tool in tools["data"]["tools"]]
    assert dry_run["data"]["dry_run"] is True and dry_run["data"]["valid"] is True
    assert [org["name"] for org in call["data"]["organizations"]] == ["Contoso Ltd", "Fabrikam Inc"]
    assert call["connection_id"] == connection["data"]["id"]


def readme_query(path: str) -> str:
    (request,) = [line for line in walk_lines(FIRST_CALL) if line.startswith("curl ") and path in line]
    return re.search(r'"query": "([^"]+)"', request).group(1)


def test_with_the_real_model_the_readme_queries_find_the_pages_it_promises(db, client, settings):
    settings.EMBEDDING_BACKEND, settings.EMBEDDING_MODEL_DIR = "local", None  # as in `make run`
    out = io.StringIO()
    call_command("seed_demo", stdout=out, stderr=io.StringIO())
    headers = {"HTTP_X_API_KEY": out.getvalue().split()[-1], "HTTP_X_TENANTID": str(Tenant.objects.get().id)}
    tool = client.post(
        "/api/v1/tools/knowledge.documents.search/execute",
        {"input": {"query": readme_query("/api/v1/tools/"), "top_k": 1}},
        content_type="application/json",
        **headers,
    ).json()
    v2 = client.post(
        "/v2/knowledge/search",
        {"query": readme_query("/v2/knowledge/search"), "top_k": 1,
         "vectordb_config": {"platform_domain": "demo.local", "tenant_id": headers["HTTP_X_TENANTID"]}},
        content_type="application/json",
        **headers,
    ).json()  # fmt: skip
    assert [r["source_url"] for r in tool["data"]["results"]] == [HANDBOOK + "vpn"]
    assert [r["source_url"] for r in v2["data"]["results"]] == [HANDBOOK + "password-reset"]
    assert tool["data"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
