"""A real server process for tests that need one: gunicorn on a free loopback port, with its own
environment (another database, a cache that is down, ...)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(*args: str, env: dict) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""


def server_env(tmp_path: Path, **overrides: str) -> dict:
    ignored = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "PORT", "WEB_WORKERS", "WEB_THREADS")
    env = {k: v for k, v in os.environ.items() if k not in ignored}
    env |= {
        "VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_LOG_LEVEL": "WARNING",
    }
    env.setdefault("DJANGO_SECRET_KEY", "live-test-secret-key-0123456789abcdef0123456789")
    env.setdefault("VAULT_MASTER_KEYS", "test1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
    env |= overrides
    return env


def gunicorn_command() -> list[str]:
    """gunicorn as bin/serve starts it: everything else comes from config/gunicorn.py and the
    environment (PORT, WEB_WORKERS, WEB_THREADS)."""
    return [str(BIN / "gunicorn"), "-c", "python:config.gunicorn"]


@contextmanager
def live_server(env: dict, log: Path | None = None, *, workers: int | None = 1, threads: int | None = 1):
    """`workers`/`threads` None: config/gunicorn.py's defaults, as `make run` gets them."""
    port = free_port()
    env = env | {"PORT": str(port)}
    for name, value in (("WEB_WORKERS", workers), ("WEB_THREADS", threads)):
        if value is not None:
            env[name] = str(value)
    out = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(gunicorn_command(), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(base + "/health", timeout=5)
                break
            except requests.RequestException:  # not up yet, or slow to answer on a busy machine
                assert process.poll() is None and time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=15)
