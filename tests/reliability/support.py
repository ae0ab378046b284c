"""Helpers of the fault tests: a private redis-server that can be stopped and started again on its
port, the gunicorn workers of a live server, `manage.py shell` on a stack, and a threaded load that
keeps every answer with its time."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis
import requests

from tests.live import ROOT, free_port


class PrivateRedis:
    """`redis-server` on a free loopback port, in memory, as a child process of the test."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> float:
        """Start it; returns the time.monotonic() at which it answered PING."""
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        while True:
            try:
                client.ping()
                return time.monotonic()
            except redis.ConnectionError:
                assert self.process.poll() is None and time.monotonic() < deadline, (
                    "redis-server did not start"
                )
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # as abrupt as a crash
            self.process.wait(timeout=10)
        self.process = None


def gunicorn_workers(base: str) -> list[int]:
    """The worker pids of the gunicorn serving `base` (the master's children: gunicorn processes
    whose environment names its port, tests/live.py)."""
    port = f"PORT={base.rsplit(':', 1)[1]}".encode()
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if any(part.endswith(b"gunicorn") for part in cmdline[:2]) and port in environ:
            found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return sorted(pid for pid, parent in found.items() if parent in found)


def shell(env: dict, code: str) -> str:
    """Run Python in the stack's Django (`manage.py shell -c`); returns its last output line."""
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    return lines[-1] if lines else ""


@dataclass
class Answer:
    at: float  # time.monotonic() when the answer came
    status: int  # 0: no HTTP answer (connection refused or reset, timeout)
    rate_headers: bool
    path: str


@dataclass
class Load:
    """`threads` clients looping over `paths` with `headers` until stopped."""

    base: str
    paths: list[str]
    headers: dict
    threads: int = 4
    answers: list[Answer] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _workers: list[threading.Thread] = field(default_factory=list)

    def __enter__(self) -> Load:
        for n in range(self.threads):
            thread = threading.Thread(target=self._run, args=(n,), daemon=True)
            thread.start()
            self._workers.append(thread)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._workers:
            thread.join(timeout=30)

    def _run(self, n: int) -> None:
        session = requests.Session()
        i = n
        while not self._stop.is_set():
            path = self.paths[i % len(self.paths)]
            i += 1
            try:
                response = session.get(self.base + path, headers=self.headers, timeout=15)
                answer = Answer(
                    time.monotonic(), response.status_code, "X-RateLimit-Limit" in response.headers, path
                )
            except requests.RequestException:
                answer = Answer(time.monotonic(), 0, False, path)
                session = requests.Session()
                time.sleep(0.05)
            self.answers.append(answer)

    def between(self, start: float, end: float = float("inf")) -> list[Answer]:
        return [a for a in list(self.answers) if start <= a.at < end]


def wait_until(predicate, *, timeout: float, interval: float = 0.1):
    """Poll `predicate` until it returns something truthy; returns it (or fails after `timeout`)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"not reached within {timeout} s"
        time.sleep(interval)


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL a process started with start_new_session=True and everything it forked."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=15)
