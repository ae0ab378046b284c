"""An operator's command that neither embeds nor serves starts without the heavy stacks: the
embedding model's libraries (torch, sentence-transformers), which the web and worker processes load
as they start, and the URL table with its API views and the MCP SDK, which the system checks would
import. Each command runs as `manage.py` runs it, in a process of its own. How long they take is
measured in bench/commands.py, not here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.live import ROOT, server_env

HEAVY = ("torch", "sentence_transformers", "transformers", "mcp", "mcp_types")


def heavy_modules_after(argv: list[str], env: dict) -> list[str]:
    script = (
        "import json, sys\n"
        "import manage\n"
        f"sys.argv = ['manage.py', *{argv!r}]\n"
        "manage.main()\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules} & set(heavy))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def migrated_env(tmp_path) -> dict:
    env = server_env(tmp_path, EMBEDDING_BACKEND="local")  # the default a developer has
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return env


def test_creating_a_tenant_a_user_and_a_key_loads_neither_the_model_nor_the_web_stack(migrated_env):
    tenant = subprocess.run(
        [sys.executable, "manage.py", "createtenant", "Acme"],
        cwd=ROOT,
        env=migrated_env,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.split()[-1]
    commands = [
        ["createtenant", "Fabrikam"],
        ["createtenantuser", "--tenant", tenant, "--username", "alice", "--password", "a-long-passphrase-1",
         "--role", "tenant_admin"],
        ["createapikey", "--tenant", tenant, "--name", "ci", "--scope", "vault:read"],
        ["verify_audit_chain", "--tenant", tenant],
    ]  # fmt: skip
    assert {command[0]: heavy_modules_after(command, migrated_env) for command in commands} == {
        command[0]: [] for command in commands
    }
