"""Assertions that read like the contract. They return the interesting part of the body."""

from __future__ import annotations

import re

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def assert_ok(response, status: int = 200):
    """/api/v1 success envelope; returns `data`."""
    assert response.status_code == status, (response.status_code, _body(response))
    body = response.json()
    assert body["success"] is True, body
    assert isinstance(body["message"], str)
    assert TIMESTAMP.match(body["timestamp"]), body["timestamp"]
    return body["data"]


def assert_error(response, status: int, code: str) -> dict:
    """/api/v1 error envelope; returns `error`."""
    assert response.status_code == status, (response.status_code, _body(response))
    body = response.json()
    assert body["success"] is False, body
    assert set(body) == {"success", "error", "timestamp"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    assert TIMESTAMP.match(body["timestamp"])
    return body["error"]


def assert_tool_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, _body(response))
    body = response.json()
    assert body["success"] is False and set(body) == {"success", "error", "request_id"}, body
    assert body["error"]["code"] == code, body
    assert body["request_id"] == response["X-Request-ID"]
    return body["error"]


def assert_v2_detail(response, status: int) -> str:
    assert response.status_code == status, (response.status_code, _body(response))
    body = response.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str), body
    return body["detail"]


def assert_v2_validation(response, loc: list, type_: str | None = None) -> dict:
    """/v2 422 with an entry at `loc` (and of `type_` when given); returns that entry."""
    assert response.status_code == 422, (response.status_code, _body(response))
    body = response.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], list), body
    for entry in body["detail"]:
        assert set(entry) == {"loc", "msg", "type"}, entry
        if entry["loc"] == loc and (type_ is None or entry["type"] == type_):
            return entry
    raise AssertionError(f"no error at {loc} ({type_}) in {body['detail']}")


def _body(response):
    try:
        return response.json()
    except Exception:
        return response.content[:500]
