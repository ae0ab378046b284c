"""The wiki tools against a fake wiki, through the real client (basic auth from the vault)."""

from __future__ import annotations

import base64

import pytest

from tests.fakes.wiki_tools import FakeWikiTools
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential


@pytest.fixture
def wiki(loopback, tenant):
    with FakeWikiTools() as fake:
        fake.add_user("bot@acme.test", "api-token")
        fake.space = fake.add_space("ENG", "Engineering")
        fake.add_space("HR", "People")
        pair = base64.b64encode(b"bot@acme.test:api-token").decode()
        make_credential(tenant, "wiki-prod-001", auth_type="basic_auth", access_token=pair)
        make_connection(
            tenant, fake.instance_url, integration_id="wiki-prod-001", domain="wiki", connector="wikispace"
        )
        yield fake


def _run(client, tool, **body):
    return client.post(EXEC_URL.format(tool), body, format="json")


def test_it_searches_pages_in_a_space(executor, wiki):
    wiki.add_page(wiki.space, "Runbook: VPN", "<p>Restart the vpn gateway</p>")
    wiki.add_page(wiki.space, "Lunch menu", "<p>soup</p>")
    data = assert_tool_ok(
        _run(executor, "wiki.page.search", input={"query": 'vpn "gateway', "space_key": "ENG"})
    )["data"]
    assert data["count"] == 0  # the quote is part of the phrase, not the end of the CQL string
    data = assert_tool_ok(_run(executor, "wiki.page.search", input={"query": "vpn", "space_key": "ENG"}))[
        "data"
    ]
    assert [p["title"] for p in data["pages"]] == ["Runbook: VPN"]
    assert data["pages"][0]["web_url"].endswith("/wiki/spaces/ENG/pages/65536")
    cql = wiki.requests_to("content/search")[-1].query["cql"][0]
    assert cql == 'type = page AND text ~ "vpn" AND space = "ENG"'


def test_it_gets_a_page_with_its_body(executor, wiki):
    page = wiki.add_page(wiki.space, "Runbook", "<p>steps</p>")
    data = assert_tool_ok(_run(executor, "wiki.page.get", input={"page_id": page["id"]}))["data"]
    assert data["body"] == "<p>steps</p>" and data["version"] == 1 and data["space_id"] == str(wiki.space.id)


def test_it_creates_a_page_and_reports_a_duplicate_title(executor, wiki):
    body = {"space_id": str(wiki.space.id), "title": "Postmortem", "body": "<p>what happened</p>"}
    created = assert_tool_ok(_run(executor, "wiki.page.create", input=body))["data"]
    assert wiki.pages[created["id"]]["title"] == "Postmortem"
    error = assert_tool_error(_run(executor, "wiki.page.create", input=body), 502, "UPSTREAM_ERROR")
    assert (
        error["details"]["status"] == 400 and error["details"]["vendor_code"] == "INVALID_REQUEST_PARAMETER"
    )


def test_a_refused_account_is_an_upstream_error(executor, wiki):
    wiki.users["bot@acme.test"] = "revoked"
    error = assert_tool_error(_run(executor, "wiki.page.get", input={"page_id": "1"}), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 401
