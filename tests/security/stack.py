"""A private stack for the live tests of tests/security and tests/reliability: its own PostgreSQL
database (created and dropped here) or SQLite file, the run's Redis under its own key prefix, two
tenants with an every-role user and a `*` API key each, and a gunicorn server (tests/live.py)."""

from __future__ import annotations

import os
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import requests

from tests.live import live_server, manage, server_env

PASSWORD = "correct horse battery staple"  # as tests/factories.py (not imported: no Django setup here)
EVERY_ROLE = ["tenant_admin", "integration_admin", "integration_viewer", "audit_viewer", "approver"]


def services_run() -> bool:
    """The services run of .ci/run: PostgreSQL and Redis configured and SERVICES_RUN set."""
    return (
        os.environ.get("SERVICES_RUN") == "1"
        and os.environ.get("DATABASE_URL", "").startswith("postgres")
        and bool(os.environ.get("REDIS_URL"))
    )


@dataclass
class Persona:
    name: str
    tenant_id: str
    token: str  # a JWT or a raw API key, sent as a Bearer token

    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.token}", "x-tenantid": self.tenant_id}


@dataclass
class Stack:
    base: str
    env: dict
    log: Path
    personas: dict[str, Persona] = field(default_factory=dict)

    def login(self, username: str, tenant_id: str) -> str:
        response = requests.post(
            self.base + "/api/v1/auth/token",
            json={"username": username, "password": PASSWORD},
            headers={"x-tenantid": tenant_id},
            timeout=20,
        )
        assert response.status_code == 200, response.text
        return response.json()["data"]["access"]


@contextmanager
def private_database(tmp_path: Path):
    """A fresh database: a new PostgreSQL database next to the run's own, else a SQLite file."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        yield f"sqlite:///{tmp_path / 'live.sqlite3'}"
        return
    name = f"live_{uuid.uuid4().hex[:10]}"
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seed(env: dict) -> dict[str, dict]:
    """Two tenants, each with an every-role user and a `*` API key; returns their ids and keys."""
    tenants = {}
    for name in ("acme", "globex"):
        tenant_id = manage("createtenant", name, env=env)
        roles = [arg for role in EVERY_ROLE for arg in ("--role", role)]
        username = f"{name}-all"
        manage(
            "createtenantuser",
            "--tenant",
            tenant_id,
            "--username",
            username,
            "--password",
            PASSWORD,
            *roles,
            env=env,
        )
        key = manage("createapikey", "--tenant", tenant_id, "--name", f"{name}-star", "--scope", "*", env=env)
        tenants[name] = {"id": tenant_id, "username": username, "key": key}
    return tenants


@contextmanager
def live_stack(tmp_path: Path, *, workers: int = 1, **overrides: str):
    """Migrate a private database, seed it, start gunicorn; yields a Stack with four personas:
    `<tenant>-user` (every role, JWT) and `<tenant>-key` (`*` API key) for acme and globex."""
    with private_database(tmp_path) as database_url:
        env = server_env(tmp_path, DATABASE_URL=database_url, **overrides)
        if os.environ.get("REDIS_URL"):
            env["REDIS_URL"] = os.environ["REDIS_URL"]
            env["CACHE_KEY_PREFIX"] = f"live-{uuid.uuid4().hex[:8]}"
        env.setdefault("CELERY_BROKER_URL", "filesystem://")
        manage("migrate", "--no-input", env=env)
        tenants = seed(env)
        log = tmp_path / "server.log"
        with live_server(env, log, workers=workers) as base:
            stack = Stack(base=base, env=env, log=log)
            for name, tenant in tenants.items():
                stack.personas[f"{name}-user"] = Persona(
                    f"{name}-user", tenant["id"], stack.login(tenant["username"], tenant["id"])
                )
                stack.personas[f"{name}-key"] = Persona(f"{name}-key", tenant["id"], tenant["key"])
            yield stack
