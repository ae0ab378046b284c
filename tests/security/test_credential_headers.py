"""A credential that was sent is checked, never skipped: a malformed X-API-Key next to a valid
Bearer token is refused (found by schemathesis' ignored_auth check)."""

from __future__ import annotations

import pytest

from tests import factories
from tests.helpers import assert_error, assert_ok

pytestmark = pytest.mark.django_db


def test_a_malformed_api_key_header_is_401_even_with_a_valid_bearer(client_for, owner, tenant):
    assert_ok(client_for(owner, tenant).get("/api/v1/api-keys"))
    response = client_for(owner, tenant, HTTP_X_API_KEY="not-a-key").get("/api/v1/api-keys")
    assert_error(response, 401, "UNAUTHORIZED")


def test_an_unknown_api_key_header_is_401_even_with_a_valid_bearer(client_for, owner, tenant):
    response = client_for(owner, tenant, HTTP_X_API_KEY="ak_live_" + "x" * 40).get("/api/v1/api-keys")
    assert_error(response, 401, "UNAUTHORIZED")


def test_a_valid_api_key_header_still_works(client_for, tenant):
    _key, raw = factories.make_api_key(tenant, ["admin:read"])
    assert_ok(client_for(None, tenant, HTTP_X_API_KEY=raw).get("/api/v1/api-keys"))
