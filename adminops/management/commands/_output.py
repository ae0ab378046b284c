"""Management command output that is easy to parse: the value alone on its last line, or --json."""

from __future__ import annotations

import json


def emit(command, value: str, payload: dict, *, as_json: bool, notes: list[str] | None = None) -> None:
    if as_json:
        command.stdout.write(json.dumps(payload, default=str))
        return
    for note in notes or []:
        command.stderr.write(note)
    command.stdout.write(value)
