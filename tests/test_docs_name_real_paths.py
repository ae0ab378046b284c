"""Every path of this tree that the README and docs/ name, in backticks, exists (a file or a folder,
or a module written with dots)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = "config|core|identity|integrations|vault|knowledge|ingestion|toolhub|ops"
PATH = re.compile(rf"`((?:{APPS}|tests|bench|bin|docs|templates|\.ci)/[\w./-]*\w)(?::[\w.]+)?`")
MODULE = re.compile(rf"`((?:{APPS})(?:\.\w+)+)`")


def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _is_module(dotted: str) -> bool:
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):  # the rest are names inside the module
        base = ROOT.joinpath(*parts[:end])
        if base.with_suffix(".py").exists() or (base / "__init__.py").exists():
            return True
    return False


def test_the_docs_name_only_paths_that_exist():
    missing = []
    for document in _documents():
        for number, line in enumerate(document.read_text().splitlines(), 1):
            where = f"{document.relative_to(ROOT)}:{number}"
            missing += [f"{where} {m[1]}" for m in PATH.finditer(line) if not (ROOT / m[1]).exists()]
            missing += [f"{where} {m[1]}" for m in MODULE.finditer(line) if not _is_module(m[1])]
    assert missing == []
