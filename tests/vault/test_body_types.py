"""Every field of the vault's store, update and rotate bodies (and the DEK rotation's) takes only
its own JSON type: a number is never read from a string, a string never from a number or a
boolean. A wrong type is 400 `VALIDATION_ERROR` naming the field, and nothing changes."""

import pytest

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_error
from tests.vault.conftest import URL, store_body
from vault.models import Credential, DekRotation

pytestmark = pytest.mark.django_db

STRING = [123, 1.5, True, ["x"], {"x": "y"}, None]
INTEGER = ["10", "soon", True, 1.5, [10], {"n": 10}, None]
LIST_OF_STRINGS = ["tickets.read", {"a": "b"}, 7, [1], [True], [None]]
OBJECT = ["x", ["x"], 1, True]
OBJECT_OF_STRINGS = [*OBJECT, {"clientSecret": 1}, {"clientSecret": True}]

FIELDS = {
    "store": {
        "integrationId": STRING,
        "credentialName": STRING,
        "authType": STRING,
        "description": STRING,
        "expiresIn": INTEGER,
        "scopes": LIST_OF_STRINGS,
        "tokenEndpoint": STRING,
        "authorizationEndpoint": STRING,
        "metadata": OBJECT,
        "accessToken": STRING,
        "refreshToken": STRING,
        "secrets": OBJECT_OF_STRINGS,
    },
    "update": {
        "credentialName": STRING,
        "description": STRING,
        "scopes": LIST_OF_STRINGS,
        "metadata": OBJECT,
        "status": STRING,
    },
    "rotate": {
        "accessToken": STRING,
        "refreshToken": STRING,
        "expiresIn": INTEGER,
        "secrets": OBJECT_OF_STRINGS,
    },
    "dek": {"tenantId": [123, 12345678901234567890123456789012, True, ["x"], {"id": "x"}, None]},
}
CASES = [
    pytest.param(body, field, value, id=f"{body}-{field}-{value!r}")
    for body, fields in FIELDS.items()
    for field, values in fields.items()
    for value in values
]


@pytest.fixture
def stored(admin_api):
    response = admin_api.post(URL, store_body(), format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def _send(body: str, field: str, value, *, api, root, stored, tenant):
    if body == "store":
        return api.post(URL, store_body(integrationId="typed") | {field: value}, format="json")
    if body == "update":
        return api.patch(f"{URL}/itsm-prod-001/{stored['id']}", {field: value}, format="json")
    if body == "rotate":
        return api.post(f"{URL}/{stored['id']}/rotate", {field: value}, format="json")
    return root.post("/api/v1/admin/dek/rotate", {field: value}, format="json")


@pytest.mark.parametrize(("body", "field", "value"), CASES)
def test_a_wrong_json_type_is_400_naming_the_field(client_for, admin_api, stored, tenant, body, field, value):
    root = client_for(factories.make_super_admin(username="root", email="root@platform.test"), tenant)
    before = list(Credential.objects.values())
    entries = AuditEntry.objects.count()
    response = _send(body, field, value, api=admin_api, root=root, stored=stored, tenant=tenant)
    error = assert_error(response, 400, "VALIDATION_ERROR")
    named = [key for key in error["details"] if key == field or key.startswith(f"{field}.")]
    assert named, error["details"]
    assert list(Credential.objects.values()) == before and AuditEntry.objects.count() == entries
    assert not DekRotation.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [("store", "integrationId"), ("store", "authType"), ("store", "tokenEndpoint"), ("update", "status")],
)
def test_a_number_for_a_string_says_a_string_is_required(admin_api, stored, tenant, body, field):
    response = _send(body, field, 123, api=admin_api, root=None, stored=stored, tenant=tenant)
    message = assert_error(response, 400, "VALIDATION_ERROR")["details"][field]
    assert "string" in message and "letters" not in message and "Allowed" not in message


def test_an_integral_number_is_still_an_integer(admin_api):
    response = admin_api.post(URL, store_body(integrationId="typed", expiresIn=3600.0), format="json")
    assert response.status_code == 200, response.json()
