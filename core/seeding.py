"""Demo data hooks: apps register `@seed_hook` functions (tenant) -> str | None that `seed_demo`
calls, so a fresh `make run` shows something in every area. A hook may answer one line for
seed_demo's notes (what it seeded, or why it could not). Register from the app's AppConfig.ready()."""

from __future__ import annotations

from collections.abc import Callable

SEED_HOOKS: list[Callable] = []


def seed_hook(function: Callable) -> Callable:
    if function not in SEED_HOOKS:
        SEED_HOOKS.append(function)
    return function
