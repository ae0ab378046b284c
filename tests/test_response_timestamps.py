"""DESIGN.md section 4: every timestamp in every response is ISO 8601 UTC with milliseconds and Z.

`tests/conftest.py` checks the JSON body of every response a test client receives, in every test of
the suite; these tests show what that check finds and that it sees both kinds of test client."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.api.timestamps import iso_ms_text
from tests.conftest import timestamp_problems


@pytest.mark.parametrize(
    "value",
    [
        "2026-11-21T09:30:00.123456+00:00",
        "2026-11-21T09:30:00+00:00",
        "2026-11-21T09:30:00Z",
        "2026-11-21T09:30:00.123",
        "2026-11-21 09:30:00",
        "2026-11-21T10:30:00.123+01:00",
    ],
)
def test_other_forms_of_a_date_time_are_found(value):
    assert timestamp_problems({"data": {"items": [{"at": value}]}}) == [f".data.items[0].at: {value!r}"]


@pytest.mark.parametrize(
    "value", ["2026-11-21T09:30:00.123Z", "2026-11-21", "log-2026-11-21T09:30:00", "9999", "", "2026-13-45 9"]
)
def test_the_documented_form_and_what_is_not_a_date_time_pass(value):
    assert timestamp_problems({"value": value, "n": 3, "none": None, "list": [True]}) == []


@pytest.mark.parametrize(
    ("vendor", "ours"),
    [
        ("2026-11-20 10:00:00", "2026-11-20T10:00:00.000Z"),
        ("2026-11-20T10:00:00Z", "2026-11-20T10:00:00.000Z"),
        ("2026-11-20T11:00:00.123456+01:00", "2026-11-20T10:00:00.123Z"),
        ("yesterday", None),
        (None, None),
    ],
)
def test_a_vendors_date_time_is_given_in_the_documented_form(vendor, ours):
    assert iso_ms_text(vendor) == ours


@pytest.mark.parametrize("client_class", [Client, APIClient])
def test_the_check_sees_every_test_clients_responses(client_class, response_timestamps, monkeypatch):
    monkeypatch.setattr("core.api.envelopes.utc_timestamp", lambda: "2026-11-21T09:30:00.123456+00:00")
    response = client_class().get("/api/v1/no-such-thing")
    assert response.status_code == 404
    assert response_timestamps == ["GET /api/v1/no-such-thing .timestamp: '2026-11-21T09:30:00.123456+00:00'"]
    response_timestamps.clear()  # found on purpose: this test passes
