"""PostgreSQL restarted under load: a private cluster (initdb as `postgres` into a temporary
directory, its own port and socket directory) under a live stack with two gunicorn workers. Errors
only while it is down, none before, none after, and every request passes again within 10 s of the
cluster accepting connections (CONN_MAX_AGE=60 with CONN_HEALTH_CHECKS: no stale connection
survives). The cluster is always stopped and removed."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.live import free_port
from tests.reliability.support import Load
from tests.security.reports import record
from tests.security.stack import live_stack

pytestmark = pytest.mark.services

PG_BIN = Path("/usr/lib/postgresql/15/bin")
PATHS = ["/api/v1/credentials", "/api/v1/connections", "/api/v1/api-keys"]
PHASE = 3.0


class Cluster:
    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port, self.data = folder, port, folder / "data"

    def _ctl(self, *args: str) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(PG_BIN / "pg_ctl"),
                "-D",
                str(self.data),
                "-o",
                options,
                "-l",
                str(self.folder / "server.log"),
                "-w",
                "-t",
                "30",
                *args,
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        self._ctl("stop", "-m", "fast")

    def accepting(self) -> bool:
        ready = subprocess.run(
            [str(PG_BIN / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)], timeout=10
        )
        return ready.returncode == 0


@contextmanager
def private_cluster():
    if shutil.which("runuser") is None or not (PG_BIN / "initdb").exists():
        pytest.skip("needs runuser and PostgreSQL 15's initdb")
    folder = Path(tempfile.mkdtemp(prefix="faults-pg-"))
    shutil.chown(folder, "postgres", "postgres")
    cluster = Cluster(folder, free_port())
    try:
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(PG_BIN / "initdb"),
                "-D",
                str(cluster.data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        cluster.start()
        yield cluster
    finally:
        if (cluster.data / "postmaster.pid").exists():
            subprocess.run(
                [
                    "runuser",
                    "-u",
                    "postgres",
                    "--",
                    str(PG_BIN / "pg_ctl"),
                    "-D",
                    str(cluster.data),
                    "stop",
                    "-m",
                    "immediate",
                    "-w",
                ],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(folder, ignore_errors=True)


def test_postgres_restarted_under_load_recovers_within_ten_seconds(tmp_path):
    with private_cluster() as cluster, pytest.MonkeyPatch.context() as patch:
        patch.setenv("DATABASE_URL", f"postgres://postgres@127.0.0.1:{cluster.port}/postgres")
        with live_stack(
            tmp_path, workers=2, RATE_LIMIT_PER_KEY="100000/m", RATE_LIMIT_PER_TENANT="100000/m"
        ) as stack:
            persona = stack.personas["acme-key"]
            with Load(stack.base, PATHS, persona.headers(), threads=4) as load:
                time.sleep(PHASE)
                stopping = time.monotonic()
                cluster.stop()
                time.sleep(2.0)  # down
                cluster.start()
                accepting = time.monotonic()
                assert cluster.accepting()
                time.sleep(10.0 + PHASE)
    answers = load.answers
    errors = [a for a in answers if a.status != 200]
    before = [a for a in answers if a.at < stopping]
    last_error = max((a.at for a in errors), default=accepting)
    after = [a for a in answers if a.at > last_error]
    figures = {
        "requests": len(answers),
        "before_stop": len(before),
        "errors": len(errors),
        "errors_before_stop": sum(a.at < stopping for a in errors),
        "error_statuses": dict(Counter(str(a.status) for a in errors)),
        "down_s": round(accepting - stopping, 2),
        "recovered_after_accepting_s": round(max(0.0, last_error - accepting), 2),
        "ok_after_recovery": len(after),
    }
    record("reliability", "postgres_restarted_under_load", figures)
    assert before and figures["errors_before_stop"] == 0, figures
    assert set(figures["error_statuses"]) <= {"503"}, figures  # unavailable, never a 500
    assert figures["recovered_after_accepting_s"] < 10, figures
    assert len(after) >= 50 and all(a.status == 200 for a in after), figures
    assert answers[-1].at - last_error >= PHASE, figures  # a clean stretch at the end, not a lucky pause
