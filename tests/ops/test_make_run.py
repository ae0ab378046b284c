"""`make run` as a newcomer runs it, for real: in a developer's shell on a fresh var/, stopped with
Ctrl-C (SIGINT to its process group, as the terminal sends it). One service serves the whole
module; the tests run in the order of a first hour: its notes, a second `make run` beside it, what
it answers a foreign Host, its control socket, a Celery worker and beat killed under it, then
Ctrl-C and a restart.

(`make -o install run`: the recipe of `make run` without reinstalling the venv this suite runs in.)
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.live import ROOT, free_port

pytestmark = [
    pytest.mark.skipif(shutil.which("make") is None, reason="`make run` needs make"),
    # It runs on the embedded default whatever the environment says (a fresh clone's `make run`):
    # once, in the first run of .ci/run; the services run has tests/reliability/test_serve_redis_outage.py.
    pytest.mark.skipif(os.environ.get("SERVICES_RUN") == "1", reason="run once, in the embedded run"),
]

MAKE_RUN = ["make", "-o", "install", "run"]
EXPORT = re.compile(r"^export TENANT_ID=(\S+) API_KEY=(\S+)$", re.M)


def developer_shell(home: Path, var: Path, port: int) -> dict:
    """A developer's shell: none of the service's variables (make run sets DJANGO_DEBUG, the keys
    are generated into var/, the database is var/db.sqlite3), the suite's fast embedder."""
    keep = {name: os.environ[name] for name in ("PATH", "LANG", "TMPDIR") if name in os.environ}
    return keep | {"HOME": str(home), "VAR_DIR": str(var), "PORT": str(port), "EMBEDDING_BACKEND": "hash"}


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process now running (zombies are not)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, ValueError):
                continue
            if state != "Z":
                found[int(entry.name)] = (int(parent), command)
    return found


def descendants(pid: int) -> dict[int, str]:
    table, found, frontier = processes(), {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (its_parent, command) in table.items():
            if its_parent == parent and child not in found:
                found[child] = command
                frontier.append(child)
    return found


@dataclass
class Service:
    process: subprocess.Popen
    log: Path
    port: int
    env: dict

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def supervised(self, kind: str) -> int | None:
        """The pid of the Celery `worker` or `beat` that bin/serve started (its child)."""
        table = processes()
        for pid, command in descendants(self.process.pid).items():
            parent = table.get(pid, (0, ""))[0]
            if f"celery -A config {kind}" in command and "bin/serve" in table.get(parent, (0, ""))[1]:
                return pid
        return None


def start(env: dict, log: Path) -> Service:
    out = open(log, "ab")  # noqa: SIM115 (the service writes to it until it stops)
    process = subprocess.Popen(
        MAKE_RUN, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
    )
    service = Service(process, log, int(env["PORT"]), env)
    deadline = time.monotonic() + 240
    while "Serving on " not in service.output():
        assert process.poll() is None, service.output()[-3000:]
        assert time.monotonic() < deadline, "make run did not start serving"
        time.sleep(0.5)
    return service


def interrupt(service: Service) -> tuple[int | None, float, dict[int, str]]:
    """Ctrl-C: SIGINT to the process group of make, as the terminal sends it. Returns make's exit
    status (None if still running after 30 s), how long it took, and what is still running."""
    tree = descendants(service.process.pid)
    started = time.monotonic()
    os.killpg(service.process.pid, signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        service.process.wait(timeout=30)
    took = time.monotonic() - started
    left = {pid: command for pid, command in tree.items() if pid in processes()}
    return service.process.poll(), took, left


def kill_all(service: Service) -> None:
    for pid in [*descendants(service.process.pid), service.process.pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("make-run")
    (root / "home").mkdir()
    env = developer_shell(root / "home", root / "var", free_port())
    service = start(env, root / "make-run.log")
    try:
        yield service
    finally:
        if service.process.poll() is None:
            interrupt(service)
        kill_all(service)


def tools(base: str, tenant_id: str, key: str) -> requests.Response:
    headers = {"X-API-Key": key, "x-tenantid": tenant_id}
    return requests.get(f"{base}/api/v1/tools", headers=headers, timeout=20)


def test_the_notes_print_the_address_it_serves_on_and_a_key_that_works(first_run):
    notes = first_run.output()
    (tenant_id, key), *_ = EXPORT.findall(notes)
    addresses = set(re.findall(r"http://127\.0\.0\.1:\d+", notes))
    assert addresses == {first_run.base}, addresses
    assert tools(first_run.base, tenant_id, key).status_code == 200


def test_a_second_make_run_on_the_busy_port_changes_nothing_and_says_how_to_choose_another(first_run):
    (tenant_id, key), *_ = EXPORT.findall(first_run.output())
    second = subprocess.run(
        MAKE_RUN, cwd=ROOT, env=first_run.env, capture_output=True, text=True, timeout=120
    )
    assert second.returncode != 0
    assert f"Port {first_run.port} " in second.stderr
    assert f"PORT={first_run.port + 1} make run" in second.stderr
    assert "export TENANT_ID" not in second.stderr + second.stdout  # nothing seeded, no new key
    assert tools(first_run.base, tenant_id, key).status_code == 200  # the first one still serves


def test_a_foreign_host_gets_the_json_envelope_and_the_database_is_private(first_run):
    foreign = {"Host": "attacker.example"}
    response = requests.get(f"{first_run.base}/api/v1/health", headers=foreign, timeout=20)
    assert response.status_code == 400 and response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert body["success"] is False and body["error"]["code"] == "BAD_REQUEST", body
    assert "Traceback" not in response.text and "attacker.example" not in response.text
    database = Path(first_run.env["VAR_DIR"]) / "db.sqlite3"
    assert stat.S_IMODE(database.stat().st_mode) == 0o600


def test_its_gunicorn_control_socket_lies_in_its_own_var_dir(first_run):
    socket_path = Path(first_run.env["VAR_DIR"]) / f"gunicorn-{first_run.port}.ctl"
    assert stat.S_ISSOCK(socket_path.stat().st_mode)
    assert stat.S_IMODE(socket_path.stat().st_mode) == 0o600
    assert not (Path(first_run.env["HOME"]) / ".gunicorn").exists()  # gunicorn's user-wide default


def test_a_killed_celery_worker_and_beat_are_started_again_while_the_web_keeps_serving(first_run):
    worker, beat = first_run.supervised("worker"), first_run.supervised("beat")
    assert worker and beat
    os.kill(worker, signal.SIGKILL)
    os.kill(beat, signal.SIGKILL)
    answers, deadline = [], time.monotonic() + 30
    while time.monotonic() < deadline:
        answers.append(requests.get(f"{first_run.base}/health", timeout=5).status_code)
        again = first_run.supervised("worker"), first_run.supervised("beat")
        if all(again) and worker not in again and beat not in again and len(answers) >= 10:
            break
        time.sleep(0.3)
    assert set(answers) <= {200, 503} and first_run.process.poll() is None, first_run.output()[-3000:]
    assert all(again) and worker not in again and beat not in again, first_run.output()[-3000:]
    assert "the Celery worker exited (-9); starting it again in 1 s" in first_run.output()


def test_ctrl_c_stops_everything_cleanly_and_a_restart_prints_the_key_that_still_works(first_run, tmp_path):
    (tenant_id, key), *_ = EXPORT.findall(first_run.output())
    before = len(first_run.output())
    status, took, left = interrupt(first_run)
    output = first_run.output()[before:]  # what the terminal shows after Ctrl-C
    assert status in (0, -signal.SIGINT) and took < 10, (status, took, output[-3000:])
    assert not left, left
    for trouble in ("make: ***", "Traceback", "SIGKILL", "TimeoutExpired"):
        assert trouble not in output, output[-3000:]
    # What the terminal that pasted the key sees after `make run` again: the same key, working.
    again = start(first_run.env, tmp_path / "again.log")
    try:
        assert EXPORT.findall(again.output()) == [(tenant_id, key)]
        assert tools(again.base, tenant_id, key).status_code == 200
    finally:
        interrupt(again)
        kill_all(again)
