"""An installation made by the last release with the one `adminops` app upgrades in place: its
database, loaded from `tests/ops/upgrade/` (rows in every table), migrates to today's apps, and
every row is found again through today's models (docs/layout.md, "Tables and upgrades")."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = Path(__file__).parent / "upgrade"
# Every model's table through today's ORM, as {table: rows}, and the content types still named after
# the old app.
READ_BACK = """
import json
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
rows = {}
for model in apps.get_models(include_auto_created=True):
    rows[model._meta.db_table] = len(list(model._meta.base_manager.all()))
old = ContentType.objects.filter(app_label="adminops").count()
print(json.dumps({"rows": rows, "old_content_types": old}))
"""
POSTGRES = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def _manage(database_url: str, var_dir: Path, *args: str) -> str:
    env = os.environ | {"DATABASE_URL": database_url, "VAR_DIR": str(var_dir), "DJANGO_LOG_LEVEL": "WARNING"}
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _upgrade_and_read_back(database_url: str, var_dir: Path) -> dict:
    _manage(database_url, var_dir, "migrate", "--no-input")
    return json.loads(_manage(database_url, var_dir, "shell", "-c", READ_BACK).strip().splitlines()[-1])


def _assert_every_row_is_found(before: dict[str, int], after: dict) -> None:
    assert before, "the fixture holds no tables"
    assert [table for table, rows in before.items() if rows == 0] == []  # a row in every table
    # Fewer rows is a loss; more is what today's models add (the content types and permissions of
    # models newer than the release).
    lost = {
        table: (rows, after["rows"].get(table))
        for table, rows in before.items()
        if (after["rows"].get(table) or 0) < rows
    }
    assert lost == {}
    assert after["old_content_types"] == 0


@pytest.mark.skipif(POSTGRES, reason="the SQLite upgrade runs in the embedded-default run")
def test_a_sqlite_database_of_the_last_release_keeps_every_row(tmp_path):
    database = tmp_path / "db.sqlite3"
    with sqlite3.connect(database) as connection:
        connection.executescript((FIXTURES / "sqlite.sql").read_text())
        tables = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        before = {
            name: connection.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]  # noqa: S608 (names from the file)
            for name in tables
            if name not in ("sqlite_sequence", "django_migrations")
        }
    after = _upgrade_and_read_back(f"sqlite:///{database}", tmp_path / "var")
    _assert_every_row_is_found(before, after)


@pytest.mark.skipif(not POSTGRES, reason="needs the services run's PostgreSQL (with pgvector)")
def test_a_postgresql_database_of_the_last_release_keeps_every_row(tmp_path):
    server = settings.DATABASES["default"]
    name = f"upgrade_{uuid.uuid4().hex[:12]}"
    admin = psycopg.connect(
        host=server["HOST"], port=server["PORT"] or 5432, user=server["USER"], password=server["PASSWORD"],
        dbname="postgres", autocommit=True,
    )  # fmt: skip
    admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgres://{server['USER']}:{server['PASSWORD']}@{server['HOST']}:{server['PORT'] or 5432}/{name}"
    try:
        with psycopg.connect(url.replace("postgres://", "postgresql://", 1), autocommit=True) as loader:
            loader.execute((FIXTURES / "postgresql.sql").read_text())
        with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as reader:
            tables = [
                row[0] for row in reader.execute("SELECT tablename FROM pg_tables WHERE schemaname='public'")
            ]
            before = {
                table: reader.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]  # noqa: S608
                for table in tables
                if table != "django_migrations"
            }
        after = _upgrade_and_read_back(url, tmp_path / "var")
        _assert_every_row_is_found(before, after)
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
