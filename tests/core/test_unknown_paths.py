"""Any method on any unknown path answers the JSON 404 of its prefix, and a wrong method on the docs'
pages a JSON 405, with a client that gets CSRF checks as a browser would (Django's test client skips
them unless asked); the admin's pages keep their CSRF protection."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.helpers import assert_error, assert_tool_error, assert_v2_detail

pytestmark = pytest.mark.django_db

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
V1_PATHS = ["/api/v1/no-such-thing", "/api/v1/vault/x/y/z", "/oauth/no-such-thing", "/oauth"]
ROOT_PATHS = ["/", "/no-such-thing", "/wp-login.php", "/mcp/x", "/api/docs/x", "/api/schema/x"]
V2_PATHS = ["/v2", "/v2/no-such-thing", "/v2/cloudstore/no-such-thing"]
TOOL_PATHS = ["/api/v1/tools/x/y/z/w", "/api/v1/connections/a/b/c", "/api/v1/approvals/a/b/c"]


@pytest.fixture
def browser():
    return Client(enforce_csrf_checks=True)


def _call(client, method: str, path: str):
    return client.generic(method, path, b"{}", content_type="application/json")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", V1_PATHS + ROOT_PATHS)
def test_an_unknown_v1_or_root_path_is_the_v1_json_404(browser, method, path):
    response = _call(browser, method, path)
    assert "No route" in assert_error(response, 404, "NOT_FOUND")["message"]
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", V2_PATHS)
def test_an_unknown_v2_path_is_the_v2_json_404(browser, method, path):
    assert "No route" in assert_v2_detail(_call(browser, method, path), 404)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", TOOL_PATHS)
def test_an_unknown_tool_path_is_the_tool_json_404(browser, method, path):
    assert_tool_error(_call(browser, method, path), 404, "NOT_FOUND")


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/", "/api/redoc/"])
def test_a_wrong_method_on_the_schema_or_the_docs_pages_is_a_json_405(browser, method, path):
    response = _call(browser, method, path)
    assert_error(response, 405, "METHOD_NOT_ALLOWED")
    assert response["Content-Type"] == "application/json"


def test_the_admin_keeps_its_csrf_protection(browser):
    response = browser.post("/admin/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    assert b"CSRF" in response.content
