"""A planted canary secret appears nowhere but in the decrypted GET: not in other responses, logs,
audit rows or any table's rows, in plain, base64 or hex form."""

import base64
import logging

import pytest
from django.db import connection

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_ok
from tests.vault.conftest import URL, store_body

pytestmark = pytest.mark.django_db
CANARY = "CANARY-7f3a9c1e-do-not-leak"


def forms(secret: str) -> list[str]:
    raw = secret.encode()
    return [
        secret,
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        raw.hex(),
        raw.hex().upper(),
    ]


def leaks(text: str) -> list[str]:
    return [form for form in forms(CANARY) if form in text]


def every_row_of_every_table() -> str:
    dump = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 (table names from the schema)
            dump.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(dump)


def test_the_canary_never_leaks(admin_api, client_for, tenant, caplog, oauth_provider):
    caplog.set_level(logging.DEBUG)
    oauth_provider.valid_refresh_tokens.add(CANARY + "-refresh")
    bodies: list[str] = []

    def call(response, *, secret_ok: bool = False):
        if not secret_ok:
            bodies.append(response.content.decode())
        return response

    body = store_body(
        authType="oauth2_bearer",
        accessToken=CANARY,
        refreshToken=CANARY + "-refresh",
        secrets={"clientSecret": CANARY},
        tokenEndpoint=oauth_provider.token_url,
        expiresIn=7200,
    )
    stored = assert_ok(call(admin_api.post(URL, body, format="json")))
    item = f"{URL}/itsm-prod-001/{stored['id']}"
    call(admin_api.post(URL, body, format="json"))  # 409
    call(admin_api.post(URL, body | {"authType": "nope"}, format="json"))  # 422
    call(admin_api.get(URL))
    call(admin_api.get(f"{URL}/itsm-prod-001/details"))
    call(admin_api.patch(item, {"description": "changed", "metadata": {"k": "v"}}, format="json"))
    call(admin_api.patch(item, {"accessToken": CANARY}, format="json"))  # 422
    decrypted = call(admin_api.get(f"{URL}/itsm-prod-001"), secret_ok=True)
    assert decrypted.json()["data"]["accessToken"] == CANARY  # the one place it may appear
    _, viewer_key = factories.make_api_key(tenant, ["vault:read"])
    call(client_for(viewer_key, tenant).get(f"{URL}/itsm-prod-001"))  # 403
    call(admin_api.post(f"{URL}/{stored['id']}/rotate", {"accessToken": CANARY + "-2"}, format="json"))
    call(admin_api.post(f"{URL}/{stored['id']}/rotate", {}, format="json"))  # a real refresh upstream
    call(admin_api.delete(item))
    call(admin_api.delete(item))  # 409

    assert not leaks("\n".join(bodies)), "a response carried the canary"
    assert not leaks(caplog.text), "a log line carried the canary"
    audit = "\n".join(repr((e.actor, e.resource, e.details)) for e in AuditEntry.objects.all())
    assert AuditEntry.objects.filter(action__startswith="CREDENTIAL_").count() >= 6
    assert not leaks(audit), "an audit entry carried the canary"
    assert not leaks(every_row_of_every_table()), "a table row carried the canary"
    # The refresh sent the refresh token upstream: the canary did reach the provider (as it must).
    assert oauth_provider.token_calls()[0].form()["refresh_token"] == CANARY + "-refresh"


def test_the_canary_is_not_in_the_database_while_the_credential_lives(admin_api):
    assert_ok(
        admin_api.post(URL, store_body(accessToken=CANARY, secrets={"password": CANARY}), format="json")
    )
    assert not leaks(every_row_of_every_table())
