"""wiki.page.delete against a fake wiki, through the real client: gated by approval, the page goes to
the trash once."""

from __future__ import annotations

import base64

import pytest

from tests.fakes.wiki_tools import FakeWikiTools
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential

URL = EXEC_URL.format("wiki.page.delete")


@pytest.fixture
def wiki(loopback, tenant):
    with FakeWikiTools() as fake:
        fake.add_user("bot@acme.test", "api-token")
        fake.space = fake.add_space("ENG", "Engineering")
        pair = base64.b64encode(b"bot@acme.test:api-token").decode()
        make_credential(tenant, "wiki-prod-001", auth_type="basic_auth", access_token=pair)
        make_connection(
            tenant, fake.instance_url, integration_id="wiki-prod-001", domain="wiki", connector="wikispace"
        )
        yield fake


def _delete(client, page_id, key="delete-1"):
    return client.post(URL, {"input": {"page_id": page_id}, "idempotency_key": key}, format="json")


def _approve(client_for, approver, tenant, response):
    approval_id = assert_tool_error(response, 202, "APPROVAL_REQUIRED")["details"]["approval_id"]
    assert_tool_ok(
        client_for(approver, tenant).post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")
    )


def test_a_page_goes_to_the_trash_after_approval(client_for, tenant, approver, executor, wiki):
    page = wiki.add_page(wiki.space, "Old runbook", "<p>obsolete</p>")
    _approve(client_for, approver, tenant, _delete(executor, page["id"]))
    assert wiki.requests_to("/api/v2/pages") == []

    data = assert_tool_ok(_delete(executor, page["id"]))["data"]
    assert data == {"page_id": page["id"], "deleted": True}
    assert _delete(executor, page["id"])["Idempotent-Replayed"] == "true"
    [sent] = wiki.requests_to("/api/v2/pages")
    assert (sent.method, sent.path) == ("DELETE", f"/wiki/api/v2/pages/{page['id']}")
    assert wiki.pages[page["id"]]["status"] == "trashed"


def test_a_missing_page_is_an_upstream_404(client_for, tenant, approver, executor, wiki):
    _approve(client_for, approver, tenant, _delete(executor, "999"))
    error = assert_tool_error(_delete(executor, "999"), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 404 and error["details"]["vendor_code"] == "NOT_FOUND"


def test_a_page_id_is_digits(executor, wiki):
    error = assert_tool_error(_delete(executor, "../spaces"), 422, "INVALID_INPUT")
    assert error["details"]["errors"][0]["path"] == "/input/page_id"
    assert wiki.received == []
