"""Prepared statements for the hot paths (an audit entry on every change, a stored credential, the
credential reads), and the PostgreSQL connection's timestamp loader.

`Model.save()` compiles its INSERT on every call (signals, field by field, the SQL text): for a wide
row that cost about as much Python as the round trip itself (docs/performance.md). These build the
statement once per model and only convert the values per row, the way `save()` does (each field's
`pre_save` and `get_db_prep_save`). Only for models that no `pre_save`/`post_save` receiver watches.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model

try:
    import psycopg
    from psycopg.adapt import Loader
    from psycopg.pq import Format
except ImportError:  # SQLite only: no PostgreSQL driver installed
    psycopg = None


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
    names, attnames = _concrete(model)
    return [model.from_db(connection.alias, attnames, row) for row in fetch_rows(model, names, sql, params)]


def fetch_rows(
    model: type[Model], names: tuple[str, ...], sql: str, params: list, *, skip: int = 0
) -> list[list]:
    """The rows of `sql`, which selects the columns of `model`'s fields `names` in that order after
    `skip` leading columns of its own (a total, say, returned as it comes), each field's value
    converted as `values_list(*names)` converts it."""
    converters = _converters(model, names)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    converted = []
    for row in rows:
        values = list(row)
        for index, column, functions in converters:
            index += skip
            for function in functions:
                values[index] = function(values[index], column, connection)
        converted.append(values)
    return converted


@cache
def _concrete(model: type[Model]) -> tuple[tuple[str, ...], list[str]]:
    fields = model._meta.concrete_fields
    return tuple(field.name for field in fields), [field.attname for field in fields]


@cache
def _converters(model: type[Model], names: tuple[str, ...]) -> list[tuple[int, object, list]]:
    """Per-column converters of `model`'s fields `names`, as the SQL compiler finds them (the
    backend's, then the field's own `from_db_value`)."""
    converters = []
    for index, name in enumerate(names):
        column = model._meta.get_field(name).get_col(model._meta.db_table)
        functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if functions:
            converters.append((index, column, functions))
    return converters


# ---- timestamps read from PostgreSQL

if psycopg is not None:
    _TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid

    class TimestamptzLoader(Loader):
        """What Django's own timestamptz loader does (psycopg's parse, then the connection's time zone
        set on the value), with psycopg's C parser. Django's loader subclasses psycopg's pure-Python
        one (the C class cannot be subclassed), which parses with a regular expression: about 2.4 µs a
        value against 0.2, and a page of 50 credentials reads 50 of them or more."""

        timezone = None  # Django compares it with the connection's own (`create_cursor`)

        def __init__(self, oid, context=None):
            super().__init__(oid, context)
            # psycopg's default for the type: the C loader when psycopg's C module is installed
            # (psycopg[binary] in requirements.txt), else the same Python loader as Django's.
            self._parse = psycopg.adapters.get_loader(oid, Format.TEXT)(oid, context).load

        def load(self, data):
            return self._parse(data).replace(tzinfo=self.timezone)


def use_fast_timestamps(sender, connection, **kwargs) -> None:
    """`connection_created` receiver: a new PostgreSQL connection reads timestamptz values with
    `TimestamptzLoader`, in the time zone Django would have set on them."""
    if connection.vendor != "postgresql" or psycopg is None:
        return
    loader = type("UtcTimestamptzLoader", (TimestamptzLoader,), {"timezone": connection.timezone})
    connection.connection.adapters.register_loader(_TIMESTAMPTZ, loader)
