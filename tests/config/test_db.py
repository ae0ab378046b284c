"""The database connection as settings configure it: a kept PostgreSQL connection that the server
closed is found unusable and replaced before a request uses it."""

from __future__ import annotations

import time

import pytest
from django.db import connection

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's kept connections")


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


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_closed_is_found_unusable_and_replaced():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with another_connection() as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]
    deadline = time.monotonic() + 5
    while connection.is_usable() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not connection.is_usable()

    connection.health_check_done = False  # as at the start of a request (Django's own path)
    connection.close_if_health_check_failed()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
