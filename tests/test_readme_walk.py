"""README.md's "Your first tool call", run as printed against a live server: the notes `make run`
prints (seed_demo's export line), the demo vendor (bin/demo-vendor), and each curl command of the
walk through bash, with only the two loopback ports changed to the ones this test got."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from tests.live import ROOT, free_port, live_server, manage, server_env

README = ROOT / "README.md"
SERVICE, VENDOR = "127.0.0.1:8000", "127.0.0.1:8001"

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="the walk's commands need curl")


def walk_lines() -> list[str]:
    section = README.read_text().split("## Your first tool call", 1)[1].split("\n## ", 1)[0]
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
    (command,) = [line.split("#")[0].strip() for line in walk_lines() if "bin/demo-vendor" in line]
    port = free_port()
    script = f"exec {command} --port {port}".replace(".venv/bin/python", sys.executable)
    process = subprocess.Popen(["bash", "-c", script], cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_walk_starts_the_service_with_loopback_vendors_allowed():
    (start,) = [line for line in walk_lines() if "make run" in line]
    assert start.startswith("OUTBOUND_ALLOW_PRIVATE_NETWORKS=true make run")


def test_the_readme_walk_reaches_the_demo_vendor_through_a_connection(tmp_path, demo_vendor):
    env = server_env(tmp_path, OUTBOUND_ALLOW_PRIVATE_NETWORKS="true")
    manage("migrate", "--no-input", "-v", "0", env=env)  # what `make run` does before serving
    seeded = subprocess.run(
        [sys.executable, "manage.py", "seed_demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    (export,) = [line for line in seeded.stderr.splitlines() if line.startswith("export TENANT_ID=")]
    requests = [line for line in walk_lines() if line.startswith("curl ")]
    assert len(requests) == 5
    with live_server(env, tmp_path / "server.log") as base:
        answers = []
        for request in requests:
            request = request.replace(SERVICE, base.removeprefix("http://"))
            request = request.replace(VENDOR, f"127.0.0.1:{demo_vendor}")
            done = shell(f"{export}\n{request}", timeout=60)
            assert done.returncode == 0, done.stderr
            answers.append(json.loads(done.stdout))
    assert [answer["success"] for answer in answers] == [True] * 5, json.dumps(answers)[:3000]
    stored, connection, tools, dry_run, call = answers
    assert stored["data"]["integrationId"] == "itdocs-demo"
    assert connection["data"]["id"].startswith("conn_") and connection["data"]["is_default"] is True
    assert "itdocs.organization.list" in [tool["tool_key"] for tool in tools["data"]["tools"]]
    assert dry_run["data"]["dry_run"] is True and dry_run["data"]["valid"] is True
    assert [org["name"] for org in call["data"]["organizations"]] == ["Contoso Ltd", "Fabrikam Inc"]
    assert call["connection_id"] == connection["data"]["id"]
