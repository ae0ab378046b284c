"""docs/ingestion.md's walks, run as printed: the demo sources (bin/demo-sources), the service as
`make run` starts it (bin/serve: migrate, seed_demo, then web, worker and beat) with the settings
the guide prints, and each command of the walk through bash, with only the loopback ports and the
certificate's path changed to the ones this test got. Between a command and the status it asks
for, the test waits for the run to finish, as a reader would."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.live import ROOT, free_port, server_env

DOC = ROOT / "docs" / "ingestion.md"
SITE_WALK = "## Ingest a document site, step by step"
OTHER_WALK = "### Walk: the demo wiki space and knowledge base"
SERVICE_PORT, SOURCE_PORTS = 8000, {"identity": 8002, "graph": 8003, "wiki": 8004, "kb": 8005}
CA_FILE = "var/demo-sources-ca.pem"
FINISHED = {"success", "partial", "failed", "stopped"}

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="the walk's commands need curl")


def walk_commands(title: str) -> list[str]:
    """The commands of a walk's shell blocks: a command starts at a line's beginning, the lines
    indented under it belong to it (a request body spread over several lines)."""
    section = DOC.read_text().split(f"\n{title}\n", 1)[1]
    section = re.split(r"\n##+ ", section, maxsplit=1)[0]
    commands: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            if line[:1].isspace() and commands:
                commands[-1] += "\n" + line
            elif line.strip() and not line.startswith("#"):
                commands.append(line)
    return commands


class Walk:
    """Runs a walk's commands one by one in bash, carrying the variables its lines set."""

    def __init__(self, export: str, ports: dict[int, int], ca_file: Path) -> None:
        self.state = [export]
        self.ports = ports
        self.ca_file = ca_file

    def local(self, command: str) -> str:
        for printed, port in self.ports.items():
            command = command.replace(f"127.0.0.1:{printed}", f"127.0.0.1:{port}")
        return command.replace(CA_FILE, str(self.ca_file))

    def run(self, command: str):
        command = self.local(command)
        if not command.startswith("curl "):  # sets variables for the lines after it
            self.state.append(command)
            return None
        if "/status" in command or "/kb-status" in command:
            return self.until_finished(command)
        return self.answer(command)

    def answer(self, command: str):
        env = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}  # no proxies
        script = "\n".join([*self.state, command]).replace(".venv/bin/python", sys.executable)
        done = subprocess.run(
            ["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def until_finished(self, command: str):
        deadline = time.monotonic() + 180
        while True:
            answer = self.answer(command)
            runs = answer["data"]["runs"]
            if runs and all(run["status"] in FINISHED for run in runs):
                return answer
            assert time.monotonic() < deadline, json.dumps(answer)
            time.sleep(1)


def started(command: list[str], log: Path, env: dict, ready) -> subprocess.Popen:
    out = open(log, "wb")  # noqa: SIM115 (the process keeps it)
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 240
    while not ready():
        assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.5)
    return process


def answers_health(port: int):
    def ready() -> bool:
        try:
            return requests.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code < 500
        except requests.RequestException:
            return False

    return ready


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo sources and the service, started as the guide's first block prints them."""
    tmp_path = tmp_path_factory.mktemp("ingestion-walk")
    sources_line, service_line = walk_commands(SITE_WALK)[:2]
    ports = {SERVICE_PORT: free_port()} | {printed: free_port() for printed in SOURCE_PORTS.values()}
    ca_file = tmp_path / "demo-sources-ca.pem"
    options = [f"--{name}-port={ports[printed]}" for name, printed in SOURCE_PORTS.items()]
    sources_command = shlex.split(sources_line.split("#")[0].replace(".venv/bin/python", sys.executable))
    sources = started(
        [*sources_command, *options, f"--ca-file={ca_file}"],
        tmp_path / "sources.log",
        dict(os.environ),
        ca_file.exists,
    )
    walk = Walk("", ports, ca_file)
    settings = dict(word.split("=", 1) for word in shlex.split(walk.local(service_line.split("make run")[0])))
    env = server_env(tmp_path, DJANGO_DEBUG="true", PORT=str(ports[SERVICE_PORT]), **settings)
    service = started(
        [sys.executable, "bin/serve"], tmp_path / "serve.log", env, answers_health(ports[SERVICE_PORT])
    )
    try:
        (export,) = [
            line
            for line in (tmp_path / "serve.log").read_text().splitlines()
            if line.startswith("export TENANT_ID=")
        ]
        walk.state = [export]
        yield walk
    finally:
        stop(service)
        stop(sources)


def test_the_guide_starts_the_demo_sources_and_the_service_that_reaches_them():
    sources, service = walk_commands(SITE_WALK)[:2]
    assert sources.startswith(".venv/bin/python bin/demo-sources ")
    assert service.startswith("OUTBOUND_ALLOW_PRIVATE_NETWORKS=true OUTBOUND_CA_BUNDLE=")
    assert service.split("#")[0].strip().endswith(" make run")


def test_the_document_site_walk_ingests_retries_and_deletes_the_demo_site(demo):
    commands = walk_commands(SITE_WALK)[2:]
    answers = [answer for answer in map(demo.run, commands) if answer is not None]
    stored, upload, status, failed, ingest, again, deleted = answers
    assert stored["success"] is True and upload["data"]["status"] == "queued", json.dumps(answers)[:3000]
    (run,) = status["data"]["runs"]
    assert (run["status"], run["discovered"], run["succeeded"], run["failed"]) == ("partial", 6, 4, 2)
    demo_failures = {
        f["file_name"]: f["error_type"]
        for f in failed["data"]["failed_files"]
        if "contoso" in f["source_url"]
    }
    assert demo_failures == {
        "Town hall recording.pdf": "FILE_TOO_LARGE",
        "Board minutes (scan).pdf": "PARSE_ERROR",
    }
    assert ingest["data"]["sync_configuration_id"] == run["sync_configuration_id"]
    (rerun,) = again["data"]["runs"]
    assert rerun["sync_run_id"] == ingest["data"]["sync_run_id"]
    assert (rerun["status"], rerun["skipped"], rerun["failed"]) == ("partial", 4, 2)
    assert deleted["data"]["documents_deleted"] == 4


def test_the_wiki_and_knowledge_base_walk_ingests_the_demo_space_and_articles(demo):
    for command in walk_commands(SITE_WALK)[2:3]:  # the variables the walk's examples use
        demo.run(command)
    wiki_upload, kb_upload, wiki, kb, failed = map(demo.run, walk_commands(OTHER_WALK))
    assert wiki_upload["success"] is True and kb_upload["success"] is True
    (wiki_run,), (kb_run,) = wiki["data"]["runs"], kb["data"]["runs"]
    assert (wiki_run["status"], wiki_run["discovered"], wiki_run["succeeded"], wiki_run["failed"]) == (
        "partial",
        5,
        3,
        2,
    )
    assert (kb_run["status"], kb_run["discovered"], kb_run["succeeded"], kb_run["failed"]) == (
        "partial",
        4,
        2,
        2,
    )
    assert sorted(f["error_type"] for f in failed["data"]["failed_files"]) == [
        "FILE_TOO_LARGE",
        "PARSE_ERROR",
    ]
