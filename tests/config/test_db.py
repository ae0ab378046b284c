"""The prepared statements of `config/db.py` store and load rows exactly as the ORM does."""

from __future__ import annotations

import uuid
import warnings
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.apps import apps
from django.db import connection, models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from adminops.audit import system_actor
from config.db import all_columns, fetch_instances, insert_params
from vault.models import Credential
from vault.services.credentials import credential_store

pytestmark = pytest.mark.django_db

OUR_APPS = {"adminops", "vault", "toolhub", "knowledge", "ingestion", "integrations", "config"}


def test_a_row_fetched_by_prepared_sql_equals_the_orms(tenant):
    stored = credential_store(
        tenant=tenant,
        actor=system_actor("tests"),
        integration_id="db-1",
        name="Prepared",
        auth_type="oauth2_bearer",
        scopes=["read", "write"],
        metadata={"nested": {"n": 1}, "list": [1, 2], "big": 2**70, "text": 'é\u2028"q",]', "none": None},
        expires_in=3600,
        access_token="access-value",
        refresh_token="refresh-value",
        secrets={"extra": "value"},
    )
    Credential.objects.filter(id=stored.id).update(last_accessed_at=timezone.now() - timedelta(days=1))
    table = connection.ops.quote_name(Credential._meta.db_table)
    sql = f"SELECT {all_columns(Credential)} FROM {table} WHERE {connection.ops.quote_name('id')} = %s"  # noqa: S608
    id_value = Credential._meta.pk.get_db_prep_value(stored.id, connection)

    [fetched] = fetch_instances(Credential, sql, [id_value])
    expected = Credential.objects.get(id=stored.id)

    for field in Credential._meta.concrete_fields:
        assert getattr(fetched, field.attname) == getattr(expected, field.attname), field.name
    assert not fetched._state.adding and fetched.metadata["big"] == 2**70  # exact, never a float
    assert fetched.metadata["text"] == 'é\u2028"q",]' and fetched.scopes == ["read", "write"]
    assert (
        fetch_instances(Credential, sql, [Credential._meta.pk.get_db_prep_value(tenant.id, connection)]) == []
    )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's timestamp loader")
def test_postgresql_timestamps_are_parsed_in_c_and_set_in_utc_as_django_sets_them():
    import psycopg
    from psycopg.pq import Format

    from config.db import TimestamptzLoader

    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::timestamptz, NULL::timestamptz", ["2026-11-21 09:30:00.123456+02:00"])
        value, missing = cursor.fetchone()
    assert value == datetime(2026, 11, 21, 7, 30, 0, 123456, tzinfo=UTC) and value.tzinfo is UTC
    assert missing is None
    oid = psycopg.adapters.types["timestamptz"].oid
    loader = connection.connection.adapters.get_loader(oid, Format.TEXT)
    assert issubclass(loader, TimestamptzLoader) and loader.timezone is connection.timezone
    if psycopg.pq.__impl__ != "python":  # psycopg's C module is installed (requirements.txt)
        assert type(loader(oid, connection.connection)._parse.__self__).__module__.endswith("._psycopg")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="server-side prepared statements")
def test_hot_statements_are_prepared_once_per_connection_and_counted_like_any_query(
    tenant, settings, django_assert_num_queries
):
    from config.db import prepared_cursor

    def prepared(sql_start: str) -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", [sql_start + "%"]
            )
            return cursor.fetchone()[0]

    probe = "SELECT %s::int + 1 AS prepared_probe"
    with django_assert_num_queries(2) as logged:  # logged and counted as Django's own queries are
        for n in range(2):
            with prepared_cursor() as cursor:
                cursor.execute(probe, [n])
                assert cursor.fetchone() == (n + 1,)
    assert [query["sql"] for query in logged.captured_queries] == ["SELECT $1::int + 1 AS prepared_probe"] * 2
    assert prepared("SELECT $1::int + 1 AS prepared_probe") == 1  # parameters bound on the server

    settings.DATABASE_PREPARED_STATEMENTS = False  # for a pooler that cannot keep them
    with prepared_cursor() as cursor:
        cursor.execute("SELECT %s::int + 2 AS unprepared_probe", [1])
        assert cursor.fetchone() == (3,)
    assert prepared("SELECT $1::int + 2") == 0 and prepared("SELECT 1::int + 2") == 0


# ---- the values of an INSERT (`insert_params`)

_VARIANTS = {
    "text": ["plain", None, gettext_lazy("lazy text"), 7],
    "integer": [7, None, True, "8", 2**40],
    "boolean": [True, None, False, 1],
    "uuid": [uuid.uuid4(), None, str(uuid.uuid4()), uuid.uuid4().hex],
    "datetime": [
        datetime(2026, 11, 21, 9, 30, tzinfo=UTC),
        None,
        "2026-11-21T09:30:00+02:00",
        datetime(2026, 11, 21, 9, 30),  # naive: made aware (with a warning)
    ],
}


def _kind(field) -> str | None:
    if not type(field).__module__.startswith("django."):
        return None  # a field of our own (an encrypted one) keeps the value the model gave it
    if isinstance(field, models.ForeignKey):
        return "uuid" if isinstance(field.target_field, models.UUIDField) else None
    for kind, classes in (
        ("text", (models.CharField, models.TextField)),
        ("boolean", (models.BooleanField,)),
        ("integer", (models.IntegerField,)),
        ("uuid", (models.UUIDField,)),
        ("datetime", (models.DateTimeField,)),
    ):
        if isinstance(field, classes):
            return kind
    return None


def _as_sent(value):
    """A parameter as the driver will see it: its type, and a JSON wrapper's content."""
    return (type(value).__name__, getattr(value, "obj", value))


@pytest.mark.parametrize("model", [m for m in apps.get_models() if m.__module__.split(".")[0] in OUR_APPS])
def test_insert_values_are_the_fields_own_conversions_for_every_model_and_kind_of_value(model):
    """Every field of every model of ours, with values of the kinds the fields keep as they are and
    of kinds they convert (a lazy string, a bool or a text in an integer column, a UUID as text...),
    gives what `pre_save` and `get_db_prep_save` give: the same values, of the same types."""
    fields = model._meta.concrete_fields
    moment = datetime(2026, 11, 22, 1, 2, 3, tzinfo=UTC)
    rounds = max(len(values) for values in _VARIANTS.values())
    for round_ in range(rounds):
        instance = model()
        for field in fields:
            kind = _kind(field)
            if kind is not None:
                values = _VARIANTS[kind]
                setattr(instance, field.attname, values[round_ % len(values)])
        with mock.patch("django.utils.timezone.now", return_value=moment), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
            given = insert_params(instance)
        assert [_as_sent(v) for v in given] == [_as_sent(v) for v in expected], (model.__name__, round_)


# ---- the health check of a kept connection (config/postgres)

on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's backend")


def another_connection():
    import psycopg

    given = connection.settings_dict
    return psycopg.connect(
        dbname=given["NAME"],
        user=given["USER"],
        password=given["PASSWORD"],
        host=given["HOST"],
        port=given["PORT"],
    )


def last_statement_of(pid: int) -> str:
    """What a backend last ran, as another connection sees it."""
    with another_connection() as other:
        return other.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()[0]


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_kept_idle_connection_is_found_usable_without_a_round_trip():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 'the last statement'")
    assert connection.is_usable()
    assert last_statement_of(connection.connection.info.backend_pid) == "SELECT 'the last statement'"


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_closed_is_found_unusable_and_replaced():
    import time

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with another_connection() as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]
    deadline = time.monotonic() + 5
    while connection.is_usable() and time.monotonic() < deadline:  # the server's goodbye is on its way
        time.sleep(0.05)
    assert not connection.is_usable()

    connection.health_check_done = False  # as at the start of a request (Django's own path)
    connection.close_if_health_check_failed()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
