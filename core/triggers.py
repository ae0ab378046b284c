"""Database triggers that migrations install, written once for each database the service runs on
(PostgreSQL and SQLite): `trigger_install` is the migration operation that runs the one written for
the database at hand, and takes it out again when the migration is reversed."""

from __future__ import annotations

from django.db import migrations


def trigger_install(
    name: str, *, postgresql: tuple[str, str], sqlite: tuple[str, str]
) -> migrations.RunPython:
    """An operation that runs `postgresql` or `sqlite` ((install SQL, removal SQL)) on its database;
    another database refuses, naming the trigger it lacks."""
    scripts = {"postgresql": postgresql, "sqlite": sqlite}

    def run(schema_editor, step: int) -> None:
        vendor = schema_editor.connection.vendor
        if vendor not in scripts:
            raise RuntimeError(f"No {name} for {vendor}.")
        schema_editor.execute(scripts[vendor][step], params=None)

    return migrations.RunPython(
        lambda apps, schema_editor: run(schema_editor, 0), lambda apps, schema_editor: run(schema_editor, 1)
    )
