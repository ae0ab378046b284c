"""Prepared statements for the hot paths (an audit entry on every change, a stored credential, the
credential reads), and the PostgreSQL connection's timestamp loader.

`Model.save()` compiles its INSERT on every call (signals, field by field, the SQL text): for a wide
row that cost about as much Python as the round trip itself (docs/performance.md). These build the
statement once per model and only convert the values per row, the way `save()` does (each field's
`pre_save` and `get_db_prep_save`). Only for models that no `pre_save`/`post_save` receiver watches.

On PostgreSQL they are also prepared on the server (`prepared_cursor`): parsed and planned once per
connection instead of per request, which halved what PostgreSQL spent on an audited write.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from functools import cache

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import JSONField, Model

try:
    import psycopg
    from django.db.backends.postgresql.base import ServerBindingCursor
    from psycopg.adapt import Loader
    from psycopg.pq import Format
except ImportError:  # SQLite only: no PostgreSQL driver installed
    psycopg = None


def prepared_cursor():
    """`connection.cursor()`, for the statements every request runs: on PostgreSQL each one is
    prepared on the server on its first use by a connection and only executed after that (parameters
    bound on the server), so PostgreSQL stops parsing and planning it again per request; elsewhere,
    or with `DATABASE_PREPARED_STATEMENTS` off, the ordinary cursor. Queries run through it are
    logged and counted like any other."""
    db = connections[DEFAULT_DB_ALIAS]  # `connection` is a per-thread proxy: resolved once
    if db.vendor == "postgresql" and settings.DATABASE_PREPARED_STATEMENTS:
        return db.cursor_of(_PreparingCursor)  # config.postgres, the engine settings.py sets
    return db.cursor()


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


@cache
def insert_select_sql(model: type[Model]) -> str:
    """`INSERT INTO <table> (<every concrete column>) SELECT %s, ...`, for a caller to add a WHERE
    (an INSERT that happens only if a condition holds, in the same statement)."""
    placeholders = ", ".join(["%s"] * len(model._meta.concrete_fields))
    table = connection.ops.quote_name(model._meta.db_table)
    return f"INSERT INTO {table} ({all_columns(model)}) SELECT {placeholders}"  # nosec B608: names from the model


def insert_params(instance: Model) -> list:
    """The values of `instance` for `insert_sql`, converted as `save()` would convert them: each
    field's `pre_save` then `get_db_prep_save`, except for a value whose conversion is known
    (`_savers`)."""
    values = []
    for attname, field, kept, wrap in _savers(type(instance), connection.vendor):
        value = getattr(instance, attname)
        if value is None and kept:
            values.append(None)
        elif type(value) in kept and (wrap is not _AWARE or value.tzinfo is not None):
            values.append(value if wrap is None or wrap is _AWARE else wrap(value))
        else:
            values.append(field.get_db_prep_save(field.pre_save(instance, True), connection))
    return values


# A field's save conversion (`pre_save`, then `get_db_prep_save`) took six to ten Python calls a
# value, a third of an audited write's Python. For the plain field classes below it hands back
# a value of these exact types unchanged (None too), or only wrapped by the backend (integers, on
# PostgreSQL with psycopg 3); `tests/config/test_db.py` holds `insert_params` to the fields' own
# conversion. A subclass, an `auto_now` date or any other type of value takes the fields' own path.
_TEXT = (models.CharField, models.TextField, models.URLField, models.EmailField, models.SlugField)
_INTEGER = (
    models.IntegerField,
    models.BigIntegerField,
    models.SmallIntegerField,
    models.PositiveIntegerField,
    models.PositiveBigIntegerField,
    models.PositiveSmallIntegerField,
)
_AWARE = object()  # a datetime kept only when it has a time zone (a naive one is made aware)


@cache
def _savers(model: type[Model], vendor: str) -> list[tuple[str, object, tuple, object]]:
    """Per concrete field of `model` on this connection: (attname, field, the exact types of value
    kept as they are, None or what wraps such a value, or `_AWARE`); no types: the field's own path."""
    return [(field.attname, field, *_saver(field)) for field in model._meta.concrete_fields]


def _saver(field) -> tuple[tuple, object]:
    ops, kind = connection.ops, type(field)
    if kind in _TEXT:
        return (str,), None
    if kind is models.BooleanField:
        return (bool,), None
    if kind in _INTEGER:
        if type(ops).adapt_integerfield_value is BaseDatabaseOperations.adapt_integerfield_value:
            return (int,), None
        if connection.vendor == "postgresql" and hasattr(ops, "integerfield_type_map"):
            return (int,), ops.integerfield_type_map[field.get_internal_type()]
        return (), None
    native_uuid = connection.features.has_native_uuid_field
    if kind is models.UUIDField and native_uuid:
        return (uuid.UUID,), None
    if kind is models.ForeignKey and type(field.target_field) is models.UUIDField and native_uuid:
        return (uuid.UUID,), None
    automatic = kind is models.DateTimeField and (field.auto_now or field.auto_now_add)
    if kind is models.DateTimeField and not automatic and connection.vendor == "postgresql":
        return (datetime,), _AWARE
    return (), None


def inserted(instance: Model) -> Model:
    """Mark `instance` as stored, as `save()` would have (a later `save()` is then an UPDATE)."""
    instance._state.adding, instance._state.db = False, connection.alias
    return instance


def insert_row(instance: Model) -> Model:
    """INSERT `instance` (its primary key set by the caller) in one prepared statement."""
    with prepared_cursor() as cursor:
        cursor.execute(insert_sql(type(instance)), insert_params(instance))
    return inserted(instance)


def fetch_instances(model: type[Model], sql: str, params: list) -> list[Model]:
    """The rows of `sql` (which selects `all_columns(model)`, or returns them) as instances of
    `model`, converted as the ORM converts them. `Model.objects.raw()` would do the same but matches
    every column to a field by name again on each call."""
    return [instance for instance, _ in fetch_instances_with(model, sql, params)]


def fetch_instances_with(model: type[Model], sql: str, params: list) -> list[tuple[Model, list]]:
    """`fetch_instances`, where `sql` may select more columns after the model's: each instance
    comes with those columns' values, as the driver gives them."""
    count = len(concrete_names(model))
    rows = fetch_parts(sql, params, [(0, model, concrete_names(model))])
    return [(instance_from(model, row), row[count:]) for row in rows]


def fetch_rows(
    model: type[Model], names: tuple[str, ...], sql: str, params: list, *, skip: int = 0
) -> list[list]:
    """The rows of `sql`, which selects the columns of `model`'s fields `names` in that order after
    `skip` leading columns of its own (a total, say, returned as it comes), each field's value
    converted as `values_list(*names)` converts it."""
    return fetch_parts(sql, params, [(skip, model, names)])


def fetch_parts(sql: str, params: list, parts: list[tuple[int, type[Model], tuple[str, ...]]]) -> list[list]:
    """`fetch_rows` for a row of several models' columns (a join): each part (offset, model, field
    names) is a run of columns from `offset` on holding those fields, converted as the ORM converts
    them; any other column comes as the driver gives it."""
    converters, json_columns = [], []
    for offset, model, names in parts:
        functions, jsonb = _converters(model, names)
        converters += [(offset + index, column, chain) for index, column, chain in functions]
        json_columns += [offset + index for index in jsonb]
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        rows = [list(row) for row in cursor.fetchall()]
    if json_columns and rows:
        _decode_json(rows, json_columns)
    for values in rows:
        for index, column, functions in converters:
            for function in functions:
                values[index] = function(values[index], column, connection)
    return rows


def instance_from(model: type[Model], values: list, offset: int = 0) -> Model:
    """An instance of `model` from a row of `fetch_parts` whose part for `model` (every concrete
    field, `concrete_names(model)`) starts at `offset`."""
    attnames = _concrete(model)[1]
    return model.from_db(connection.alias, attnames, values[offset : offset + len(attnames)])


def concrete_names(model: type[Model]) -> tuple[str, ...]:
    return _concrete(model)[0]


def _decode_json(rows: list[list], indexes: list[int]) -> None:
    """What `JSONField.from_db_value` does to each value of these jsonb columns (`json.loads`), in
    one call for all of them: PostgreSQL sends each as a complete JSON text, so joined into one
    array they parse as one document, at a fraction of the cost of a call per value (a page of 50
    credentials has 150)."""
    places = [(values, index) for values in rows for index in indexes if values[index] is not None]
    texts = [values[index] for values, index in places]
    decoded = json.loads(f"[{','.join(texts)}]") if texts else []
    if len(decoded) != len(texts):  # cannot happen with jsonb; one by one, as Django does, if it did
        decoded = [json.loads(text) for text in texts]
    for (values, index), value in zip(places, decoded, strict=True):
        values[index] = value


@cache
def _concrete(model: type[Model]) -> tuple[tuple[str, ...], list[str]]:
    fields = model._meta.concrete_fields
    return tuple(field.name for field in fields), [field.attname for field in fields]


@cache
def _converters(
    model: type[Model], names: tuple[str, ...]
) -> tuple[list[tuple[int, object, list]], list[int]]:
    """Per-column converters of `model`'s fields `names`, as the SQL compiler finds them (the
    backend's, then the field's own `from_db_value`); and apart, the columns that are PostgreSQL
    jsonb with nothing but the standard decoding to do (`_decode_json`)."""
    converters, json_columns = [], []
    for index, name in enumerate(names):
        field = model._meta.get_field(name)
        column = field.get_col(model._meta.db_table)
        functions = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if _plain_jsonb(field, functions):
            json_columns.append(index)
        elif functions:
            converters.append((index, column, functions))
    return converters, json_columns


def _plain_jsonb(field, functions: list) -> bool:
    return (
        connection.vendor == "postgresql"
        and isinstance(field, JSONField)
        and field.decoder is None
        and functions == [field.from_db_value]
    )


# ---- PostgreSQL only

if psycopg is not None:

    class _PreparingCursor(ServerBindingCursor):
        """Django's server-binding cursor, which keeps the statement it ran for Django's query log:
        Django reads it from `_query`, which psycopg leaves unset when it runs a prepared one."""

        def _send_query_prepared(self, name, pgq, *, binary=None):
            self._query = pgq
            return super()._send_query_prepared(name, pgq, binary=binary)

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


def tune_connection(sender, connection, **kwargs) -> None:
    """`connection_created` receiver: a new PostgreSQL connection reads timestamptz values with
    `TimestamptzLoader`, in the time zone Django would have set on them, and prepares what
    `prepared_cursor` runs."""
    if connection.vendor != "postgresql" or psycopg is None:
        return
    loader = type("UtcTimestamptzLoader", (TimestamptzLoader,), {"timezone": connection.timezone})
    connection.connection.adapters.register_loader(_TIMESTAMPTZ, loader)
    # Only `prepared_cursor`'s server-binding cursors prepare (Django's own bind on the client):
    # each statement at its first execution.
    connection.connection.prepare_threshold = 0
