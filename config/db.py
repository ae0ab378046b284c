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


def fetch_instances(model: type[Model], sql: str, params: list) -> list[Model]:
    """The rows of `sql` (which selects `all_columns(model)`, or returns them) as instances of
    `model`, converted as the ORM converts them. `Model.objects.raw()` would do the same but matches
    every column to a field by name again on each call."""
    attnames, converters = _loading(model)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    instances = []
    for row in rows:
        values = list(row)
        for index, column, functions in converters:
            for function in functions:
                values[index] = function(values[index], column, connection)
        instances.append(model.from_db(connection.alias, attnames, values))
    return instances


@cache
def _loading(model: type[Model]) -> tuple[list[str], list[tuple[int, object, list]]]:
    """(attribute names, per-column converters) of `model`'s concrete fields, as the SQL compiler
    finds them (the backend's converters, then the field's own `from_db_value`)."""
    fields = model._meta.concrete_fields
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(model._meta.db_table)
        functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if functions:
            converters.append((index, column, functions))
    return [field.attname for field in fields], converters
