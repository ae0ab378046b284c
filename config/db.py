"""Prepared statements for the hot paths (an audit entry on every change, a stored credential, the
credential reads).

`Model.save()` compiles its INSERT on every call (signals, field by field, the SQL text): for a wide
row that cost about as much Python as the round trip itself (docs/performance.md). These build the
statement once per model and only convert the values per row, the way `save()` does (each field's
`pre_save` and `get_db_prep_save`). Only for models that no `pre_save`/`post_save` receiver watches.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model


@cache
def all_columns(model: type[Model]) -> str:
    """Every concrete column of `model`, quoted, in field order (what `Model.objects.raw()` maps)."""
    return ", ".join(connection.ops.quote_name(field.column) for field in model._meta.concrete_fields)


@cache
def insert_sql(model: type[Model]) -> str:
    """`INSERT INTO <table> (<every concrete column>) VALUES (%s, ...)` for `model`."""
    placeholders = ", ".join(["%s"] * len(model._meta.concrete_fields))
    table = connection.ops.quote_name(model._meta.db_table)
    return f"INSERT INTO {table} ({all_columns(model)}) VALUES ({placeholders})"  # noqa: S608  # nosec B608: names from the model


def insert_params(instance: Model) -> list:
    """The values of `instance` for `insert_sql`, converted as `save()` would convert them."""
    return [
        field.get_db_prep_save(field.pre_save(instance, True), connection)
        for field in instance._meta.concrete_fields
    ]


def inserted(instance: Model) -> Model:
    """Mark `instance` as stored, as `save()` would have (a later `save()` is then an UPDATE)."""
    instance._state.adding, instance._state.db = False, connection.alias
    return instance


def insert_row(instance: Model) -> Model:
    """INSERT `instance` (its primary key set by the caller) in one prepared statement."""
    with connection.cursor() as cursor:
        cursor.execute(insert_sql(type(instance)), insert_params(instance))
    return inserted(instance)
