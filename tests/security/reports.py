"""The measured figures of tests/security and tests/reliability, kept in var/reports/<topic>.json
(one entry per measurement, with the date and machine) and quoted in docs/security.md and
docs/reliability.md."""

from __future__ import annotations

import json
import os
import platform
from datetime import UTC, datetime

from tests.live import ROOT

REPORTS = ROOT / "var" / "reports"


def record(topic: str, name: str, figures: dict) -> None:
    REPORTS.mkdir(parents=True, exist_ok=True)
    path = REPORTS / f"{topic}.json"
    try:
        data = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        data = {}
    data[name] = figures | {
        "measured_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": f"{platform.node()} ({os.cpu_count()} cores)",
        "database": "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite",
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True))
