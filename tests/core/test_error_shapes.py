"""Every prefix answers JSON in its family's shape: unknown paths, wrong methods, crashes, bad bodies."""

import json

import pytest

from tests.helpers import assert_error, assert_tool_error, assert_v2_detail, assert_v2_validation

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.probe_urls")]


def test_an_unknown_v1_path_is_a_json_404_envelope(client):
    response = client.get("/api/v1/no-such-thing")
    assert_error(response, 404, "NOT_FOUND")
    assert response["Content-Type"] == "application/json"
    assert response["X-Request-ID"].startswith("req_")


def test_an_unknown_v2_path_is_a_fastapi_detail(client):
    assert "No route" in assert_v2_detail(client.get("/v2/no-such-thing"), 404)


def test_an_unknown_tool_path_is_a_tool_envelope(client):
    assert_tool_error(client.get("/api/v1/tools/x/y/z/w"), 404, "NOT_FOUND")


def test_an_unknown_root_path_is_json_too(client):
    assert_error(client.get("/wp-login.php"), 404, "NOT_FOUND")


def test_a_wrong_method_is_a_json_405(client):
    assert_error(client.delete("/api/v1/health"), 405, "METHOD_NOT_ALLOWED")
    assert_error(client.get("/api/v1/auth/token"), 405, "METHOD_NOT_ALLOWED")


def test_a_crash_is_a_json_500_in_each_family_without_the_exception_text(client):
    client.raise_request_exception = False
    v1 = client.get("/api/v1/probe/crash")
    assert_error(v1, 500, "INTERNAL_ERROR")
    assert "hunter2" not in v1.content.decode()
    assert assert_v2_detail(client.get("/v2/probe/crash"), 500) == "Internal server error."
    assert_tool_error(client.get("/api/v1/tools/probe/crash"), 500, "INTERNAL_ERROR")


def test_it_echoes_a_sane_request_id_and_replaces_a_hostile_one(client):
    assert client.get("/health", HTTP_X_REQUEST_ID="abc-123")["X-Request-ID"] == "abc-123"
    assert client.get("/health", HTTP_X_REQUEST_ID="x" * 500)["X-Request-ID"].startswith("req_")
    assert client.get("/health", HTTP_X_REQUEST_ID="a b\r\n")["X-Request-ID"].startswith("req_")


def test_v1_answers_400_for_a_missing_field_and_422_for_a_bad_value(client):
    missing = client.post("/api/v1/probe/validate", {}, content_type="application/json")
    assert assert_error(missing, 400, "VALIDATION_ERROR")["details"] == {"name": "This field is required."}
    bad_value = client.post(
        "/api/v1/probe/validate", {"name": "x", "kind": "z"}, content_type="application/json"
    )
    assert "kind" in assert_error(bad_value, 422, "VALIDATION_ERROR")["details"]


def test_v1_joins_several_messages_for_one_field_into_one_string(client):
    response = client.post("/api/v1/probe/validate", {"name": ["a"]}, content_type="application/json")
    details = assert_error(response, 400, "VALIDATION_ERROR")["details"]
    assert isinstance(details["name"], str)


def test_v1_answers_400_for_malformed_json(client):
    response = client.post("/api/v1/probe/validate", "{nope", content_type="application/json")
    assert "Malformed JSON" in assert_error(response, 400, "VALIDATION_ERROR")["details"]["body"]


@pytest.mark.parametrize(
    ("body", "loc", "type_"),
    [
        ({}, ["body", "name"], "value_error.missing"),
        ({"name": {"a": 1}}, ["body", "name"], "type_error.str"),
        ({"name": "x", "flag": "perhaps"}, ["body", "flag"], "type_error.bool"),
        ({"name": "x", "items": "one"}, ["body", "items"], "type_error.list"),
        ({"name": "x", "items": ["ok", {"no": 1}]}, ["body", "items", 1], "type_error.str"),
        ({"name": "x", "config": [1]}, ["body", "config"], "type_error.dict"),
        ({"name": "x", "count": "many"}, ["body", "count"], "type_error.integer"),
        ({"name": "x", "kind": "c"}, ["body", "kind"], "value_error.const"),
        ({"name": "x" * 11}, ["body", "name"], "value_error.any_str.max_length"),
        ({"name": None}, ["body", "name"], "type_error.none.not_allowed"),
        ([1, 2], ["body"], "type_error.dict"),
    ],
)
def test_v2_reports_field_errors_with_pydantic_types(client, body, loc, type_):
    response = client.post("/v2/probe/validate", json.dumps(body), content_type="application/json")
    assert_v2_validation(response, loc, type_)


def test_v2_reports_malformed_json_as_422(client):
    response = client.post("/v2/probe/validate", "{nope", content_type="application/json")
    assert_v2_validation(response, ["body"], "value_error.jsondecode")


def test_tool_family_validation_uses_the_tool_envelope(client):
    response = client.post("/api/v1/tools/probe/validate", {}, content_type="application/json")
    assert_tool_error(response, 400, "VALIDATION_ERROR")


def test_a_body_over_one_mebibyte_is_refused_and_named(client):
    big = json.dumps({"name": "x", "config": {"blob": "a" * (1024 * 1024)}})
    response = client.post("/api/v1/probe/validate", big, content_type="application/json")
    assert_error(response, 413, "PAYLOAD_TOO_LARGE")


def test_invalid_utf8_and_deep_json_are_400(client):
    bad_bytes = client.post("/api/v1/probe/validate", b'{"name": "\xff"}', content_type="application/json")
    assert_error(bad_bytes, 400, "VALIDATION_ERROR")
    deep = "[" * 100 + "]" * 100
    assert_error(
        client.post("/api/v1/probe/validate", deep, content_type="application/json"), 400, "VALIDATION_ERROR"
    )


def test_a_form_body_where_json_is_expected_is_415(client):
    response = client.post(
        "/api/v1/probe/validate", "name=x", content_type="application/x-www-form-urlencoded"
    )
    assert_error(response, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_nan_is_not_json(client):
    response = client.post(
        "/api/v1/probe/validate", '{"name": "x", "count": NaN}', content_type="application/json"
    )
    assert_error(response, 400, "VALIDATION_ERROR")
