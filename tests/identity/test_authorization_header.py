"""The Authorization header is read as RFC 7235 says: the scheme in any case, and anything malformed
is a 401 in the family's shape, never a 500."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests import factories
from tests.conftest import jwt_for
from tests.helpers import assert_error, assert_ok

pytestmark = pytest.mark.django_db
ROUTES = ["/api/v1/credentials", "/v2/knowledge/source-rules", "/api/v1/tools"]


def _client(header: str, tenant) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header, HTTP_X_TENANTID=str(tenant.id))
    return client


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer", "bEaReR"])
def test_a_jwt_and_an_api_key_authenticate_whatever_the_case_of_the_scheme(scheme, owner, tenant):
    _key, raw = factories.make_api_key(tenant, ["*"])
    for token in (jwt_for(owner), raw):
        for route in ROUTES:
            response = _client(f"{scheme} {token}", tenant).get(route)
            assert response.status_code == 200, (route, response.content)


@pytest.mark.parametrize(
    "header",
    ["bearer a.b.c", "Bearer a.b.c", "bearer", "Bearer ", "Bearer a b c", "Basic a.b.c", "bearer \u00e9.b.c"],
)
def test_a_malformed_or_forged_authorization_header_is_401_on_every_family(header, tenant):
    for route in ROUTES:
        response = _client(header, tenant).get(route)
        assert response.status_code == 401, (route, header, response.content)


def test_a_lower_case_scheme_with_a_forged_jwt_is_the_envelope_401(tenant):
    assert_error(_client("bearer a.b.c", tenant).get("/api/v1/credentials"), 401, "UNAUTHORIZED")


def test_a_lower_case_scheme_with_a_valid_jwt_reads_the_users_data(owner, tenant):
    assert_ok(_client(f"bearer {jwt_for(owner)}", tenant).get("/api/v1/credentials"))
