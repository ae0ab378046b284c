"""Credentials in a listing body are used for that call only: absent from every log record
(DEBUG included), from the response and from the database, whether the call succeeds or fails."""

from __future__ import annotations

import io
import logging

import pytest
from django.core.management import call_command

from tests.knowledge.conftest import CLIENT_ID, CLOUD_TID, itsm_body, sitelib_body, wiki_body

CANARY = "canary-Zq8rT1vW-secret"


def assert_canary_absent(response, caplog) -> None:
    assert CANARY not in response.content.decode()
    assert CANARY not in caplog.text
    assert all(CANARY not in str(record.args) for record in caplog.records)
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    assert CANARY not in dump.getvalue()


@pytest.mark.parametrize("accepted", [True, False])
def test_a_sitelib_client_secret_never_leaks(admin_client, identity, graph, caplog, accepted):
    identity.add_secret_app(CLOUD_TID, "canary-app", CANARY if accepted else "something-else")
    graph.add_drive(graph.add_site("/sites/a", "A"), "Documents")
    body = sitelib_body(authorization={"client_id": "canary-app", "client_secret": CANARY})
    with caplog.at_level(logging.DEBUG):
        response = admin_client.post("/v2/sitelib/listing", body, format="json")
    assert response.status_code == (200 if accepted else 403)
    assert_canary_absent(response, caplog)


def test_a_sitelib_private_key_never_leaks(admin_client, identity, graph, caplog):
    key = f"-----BEGIN PRIVATE KEY-----\n{CANARY}\n-----END PRIVATE KEY-----\n"
    body = sitelib_body(
        authorization={"client_id": CLIENT_ID, "client_secret": "", "thumbprint": "A" * 40, "key": key}
    )
    with caplog.at_level(logging.DEBUG):
        response = admin_client.post("/v2/sitelib/listing", body, format="json")
    assert response.status_code == 422
    assert_canary_absent(response, caplog)


@pytest.mark.parametrize("accepted", [True, False])
def test_a_wiki_api_token_never_leaks(admin_client, wiki, caplog, accepted):
    wiki.add_user("canary@acme.test", CANARY if accepted else "other")
    wiki.add_space("ENG", "Engineering")
    body = wiki_body(wiki, username="canary@acme.test", api_token=CANARY)
    with caplog.at_level(logging.DEBUG):
        response = admin_client.post("/v2/wikispace/space-listing", body, format="json")
    assert response.status_code == (200 if accepted else 403)
    assert_canary_absent(response, caplog)


@pytest.mark.parametrize("accepted", [True, False])
def test_itsm_passwords_and_secrets_never_leak(admin_client, itsm, caplog, accepted):
    itsm.users["canary"] = CANARY if accepted else "other"
    itsm.clients["canary-client"] = CANARY
    body = itsm_body(
        itsm, username="canary", password=CANARY, client_id="canary-client", client_secret=CANARY
    )
    body["refresh_token"] = CANARY
    with caplog.at_level(logging.DEBUG):
        response = admin_client.post("/v2/itsmplatform/kb-listing", body, format="json")
    assert response.status_code == (200 if accepted else 403)
    assert_canary_absent(response, caplog)
