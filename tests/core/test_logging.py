"""One JSON object a line, with the request id; nothing secret-shaped survives into a line."""

import json
import logging

import pytest

from core.logging import JsonFormatter, RequestIdFilter

pytestmark = pytest.mark.urls("tests.probe_urls")


def render(message, *args, exc_info=None) -> dict:
    record = logging.LogRecord("t", logging.WARNING, __file__, 1, message, args, exc_info)
    RequestIdFilter().filter(record)
    return json.loads(JsonFormatter().format(record))


@pytest.mark.parametrize(
    "secret",
    [
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
        "ak_live_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
        "password=hunter2-and-more",
        '{"client_secret": "s3cr3t-value"}',
        "oat_0123456789abcdefghij",
        "Basic dXNlcjpwYXNz",
    ],
)
def test_secret_shapes_are_redacted(secret):
    line = render("calling vendor with %s", secret)["msg"]
    for fragment in (
        "eyJzdWIiOiIxIn0",
        "Zm9vYmFy",
        "hunter2",
        "s3cr3t",
        "0123456789abcdefghij",
        "dXNlcjpwYXNz",
    ):
        assert fragment not in line


def test_a_traceback_is_redacted_too():
    try:
        raise RuntimeError("token=abc123secret")
    except RuntimeError:
        import sys

        entry = render("failed", exc_info=sys.exc_info())
    assert "abc123secret" not in entry["exc"]


@pytest.mark.django_db
def test_a_crash_is_logged_with_the_request_id_and_without_the_callers_token(client, caplog):
    client.raise_request_exception = False
    token = "ak_live_" + "Q" * 40
    response = client.get(
        "/api/v1/probe/crash", HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_X_REQUEST_ID="crash-1"
    )
    records = [r for r in caplog.records if r.name == "core.api"]
    assert response.status_code == 500 and records
    lines = [JsonFormatter().format(r) for r in records]
    assert all(json.loads(line)["request_id"] == "crash-1" for line in lines)
    assert not any(token in line or "hunter2" in line for line in lines)
