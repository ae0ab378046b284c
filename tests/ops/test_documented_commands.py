"""The management commands printed in docs/operations.md work as printed on a developer machine
after `make run` has run once, and the settings still refuse to start without secrets when
DJANGO_DEBUG is off."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"


def documented_commands() -> list[str]:
    """The lines of the shell blocks in the "Management commands" section, as printed."""
    text = DOC.read_text()
    section = text.split("## Management commands", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    lines = [line for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def clean_env(var_dir: Path, **extra: str) -> dict:
    """A developer's shell: none of the service's variables, the embedded default under `var_dir`."""
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG", "TMPDIR") if name in os.environ}
    return keep | {"VAR_DIR": str(var_dir)} | extra


def bash(script: str, env: dict) -> subprocess.CompletedProcess:
    # The documented `.venv/bin/python` is the interpreter running this suite (CI's is that venv).
    script = script.replace(".venv/bin/python", sys.executable)
    return subprocess.run(
        ["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def after_make_run(tmp_path_factory) -> dict:
    """What `make run` (bin/serve) leaves behind before it starts serving: a migrated database and
    the demo tenant, with development keys generated into var/."""
    env = clean_env(tmp_path_factory.mktemp("make-run") / "var")
    for step in ("migrate --no-input -v 0", "seed_demo"):
        done = bash(f"DJANGO_DEBUG=true .venv/bin/python manage.py {step}", env)
        assert done.returncode == 0, done.stderr[-2000:]
    return env


def test_the_page_prints_every_command_it_lists():
    commands = documented_commands()
    assert all("manage.py" in line for line in commands)
    printed = {re.search(r"manage\.py (\w+)", line).group(1) for line in commands}
    assert printed == {"createtenant", "createtenantuser", "createapikey", "seed_demo", "verify_audit_chain"}


def test_every_documented_command_succeeds_as_printed(after_make_run):
    script = "\n".join(["set -euo pipefail", "trap 'echo \"FAILED: $BASH_COMMAND\" >&2' ERR"])
    script += "\n" + "\n".join(documented_commands()) + '\necho "TENANT=$TENANT"\n'
    done = bash(script, after_make_run)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"^TENANT=[0-9a-f-]{36}$", done.stdout, flags=re.M)
    assert re.search(r"^ak_live_\w+$", done.stdout, flags=re.M)  # createapikey's and seed_demo's keys
    assert done.stdout.count("audit chain(s) verified.") == 2


def test_without_debug_or_secrets_a_command_stops_and_says_what_works(after_make_run):
    env = {k: v for k, v in after_make_run.items() if k != "DJANGO_DEBUG"}
    done = bash(".venv/bin/python manage.py createtenant Initech", env)
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off." in done.stderr
    assert "DJANGO_DEBUG=true .venv/bin/python manage.py" in done.stderr


def test_with_the_services_secrets_a_command_runs_without_debug(tmp_path):
    env = clean_env(
        tmp_path / "var",
        DJANGO_SECRET_KEY="production-like-secret-0123456789abcdef0123456789",
        VAULT_MASTER_KEYS="k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    )
    done = bash(
        ".venv/bin/python manage.py migrate --no-input -v 0 && "
        ".venv/bin/python manage.py createtenant Initech",
        env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.fullmatch(r"[0-9a-f-]{36}", done.stdout.strip().splitlines()[-1])
    assert not (tmp_path / "var" / "django_secret_key").exists()  # nothing generated with debug off
