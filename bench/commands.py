"""Start-up of the operators' management commands: each run as a developer runs it
(`DJANGO_DEBUG=true .venv/bin/python manage.py ...`) on a migrated embedded default, several times;
prints the median and best wall time of each, and of `manage.py check` (the system checks the
commands skip) for reference.

    .venv/bin/python -m bench.commands [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], env: dict) -> float:
    started = time.perf_counter()
    command = [sys.executable, "manage.py", *argv]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"manage.py {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    folder = Path(tempfile.mkdtemp(prefix="bench-commands-"))
    env = {"PATH": "/usr/bin:/bin", "DJANGO_DEBUG": "true", "VAR_DIR": str(folder / "var")}
    env["DATABASE_URL"] = f"sqlite:///{folder / 'db.sqlite3'}"
    timed(["migrate", "--no-input", "-v", "0"], env)
    command = [sys.executable, "manage.py", "createtenant", "Bench"]
    tenant = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True).stdout.split()[-1]
    commands = {
        "createtenant": lambda i: ["createtenant", f"Bench {i}"],
        "createtenantuser": lambda i: ["createtenantuser", "--tenant", tenant, "--username", f"user{i}",
                                       "--password", "a-long-passphrase-1", "--role", "integration_viewer"],
        "createapikey": lambda i: ["createapikey", "--tenant", tenant, "--name", f"key {i}",
                                   "--scope", "vault:read"],
        "verify_audit_chain": lambda i: ["verify_audit_chain", "--tenant", tenant],
        "check (reference)": lambda i: ["check"],
    }  # fmt: skip
    print(f"{'command':<22} {'median s':>9} {'best s':>7}  ({runs} runs)")
    for name, argv in commands.items():
        times = [timed(argv(i), env) for i in range(runs)]
        print(f"{name:<22} {statistics.median(times):>9.2f} {min(times):>7.2f}")


if __name__ == "__main__":
    main()
