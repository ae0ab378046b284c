"""wiki.space_permission.add (risk `admin`) against a fake wiki, through the real client and POST
/api/v1/tools/{key}/execute: it waits for an approver, then grants one permission in a space
through the v1 API and answers it."""

from __future__ import annotations

import base64

import pytest

from tests.fakes.server import Reply
from tests.fakes.wiki_tools import FakeWikiTools
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential

URL = EXEC_URL.format("wiki.space_permission.add")
GROUP = {"type": "group", "identifier": "engineering-leads"}
CREATE_PAGE = {"key": "create", "target": "page"}


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


@pytest.fixture
def grant(client_for, tenant, approver, executor, wiki):
    """Execute the tool with `input` under `key`, approving its call first when it is gated."""

    def run(key="grant-1", **input):
        body = {"input": {"space_key": "ENG", "subject": GROUP, "operation": CREATE_PAGE, **input}}
        body["idempotency_key"] = key
        response = executor.post(URL, body, format="json")
        if response.status_code != 202:
            return response
        approval_id = response.json()["error"]["details"]["approval_id"]
        assert_tool_ok(
            client_for(approver, tenant).post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")
        )
        return executor.post(URL, body, format="json")

    return run


def _grants(wiki):
    return wiki.requests_to("/permission$")


def test_it_grants_a_group_a_permission_in_a_space(grant, wiki):
    data = assert_tool_ok(grant())["data"]
    assert data == {
        "id": "4096",
        "space_key": "ENG",
        "subject": {"type": "group", "identifier": "engineering-leads"},
        "operation": {"key": "create", "target": "page"},
    }
    [sent] = _grants(wiki)
    assert (sent.method, sent.path) == ("POST", "/wiki/rest/api/space/ENG/permission")
    assert sent.json() == {"subject": GROUP, "operation": CREATE_PAGE}
    assert sent.headers["Authorization"] == "Basic " + base64.b64encode(b"bot@acme.test:api-token").decode()
    assert [(p["space_key"], p["operation"]) for p in wiki.space_permissions] == [("ENG", CREATE_PAGE)]


def test_it_grants_a_user_read_access(grant, wiki):
    user = {"type": "user", "identifier": "5b10ac8d82e05b22cc7d4ef5"}
    data = assert_tool_ok(grant(subject=user, operation={"key": "read", "target": "space"}))["data"]
    assert (data["subject"], data["operation"]) == (user, {"key": "read", "target": "space"})


def test_the_call_waits_for_an_approver_and_sends_nothing_before(executor, wiki):
    body = {"input": {"space_key": "ENG", "subject": GROUP, "operation": CREATE_PAGE}}
    gate = assert_tool_error(
        executor.post(URL, body | {"idempotency_key": "g"}, format="json"), 202, "APPROVAL_REQUIRED"
    )
    assert gate["details"]["approval_id"]
    error = assert_tool_error(executor.post(URL, body, format="json"), 422, "INVALID_INPUT")
    assert error["details"]["errors"][0]["path"] == "/idempotency_key"
    assert _grants(wiki) == [] and wiki.space_permissions == []


def test_an_approved_grant_runs_once_and_replays(grant, wiki):
    assert_tool_ok(grant())
    assert grant()["Idempotent-Replayed"] == "true"
    assert len(_grants(wiki)) == 1


@pytest.mark.parametrize(
    ("input", "path", "keyword"),
    [
        ({"operation": {"key": "create", "target": "space"}}, "/input/operation", "oneOf"),
        ({"operation": {"key": "own", "target": "space"}}, "/input/operation/key", "enum"),
        ({"operation": {"key": "read"}}, "/input/operation/target", "required"),
        ({"subject": {"type": "role", "identifier": "x"}}, "/input/subject/type", "enum"),
        ({"subject": {"type": "user", "identifier": ""}}, "/input/subject/identifier", "minLength"),
        ({"subject": {**GROUP, "name": "x"}}, "/input/subject", "additionalProperties"),
        ({"space_key": "ENG/../X"}, "/input/space_key", "pattern"),
        ({"anonymous": True}, "/input", "additionalProperties"),
    ],
)
def test_bad_input_is_422_and_never_reaches_the_wiki(executor, wiki, input, path, keyword):
    body = {"input": {"space_key": "ENG", "subject": GROUP, "operation": CREATE_PAGE, **input}}
    error = assert_tool_error(
        executor.post(URL, body | {"idempotency_key": "k"}, format="json"), 422, "INVALID_INPUT"
    )
    assert {"path": path, "keyword": keyword} in [
        {"path": e["path"], "keyword": e["keyword"]} for e in error["details"]["errors"]
    ]
    assert wiki.received == []


def test_an_unknown_space_is_an_upstream_404(grant, wiki):
    error = assert_tool_error(grant(space_key="NOPE"), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 404 and error["details"]["vendor_code"] == "404"


def test_a_permission_already_granted_is_the_wikis_400(grant, wiki):
    assert_tool_ok(grant(key="first"))
    error = assert_tool_error(grant(key="second"), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 400 and len(wiki.space_permissions) == 1


def test_an_account_without_space_admin_is_refused_by_the_wiki(grant, wiki):
    wiki.queue_reply(
        Reply(403, {"statusCode": 403, "message": "Not permitted to administer space ENG"}),
        path="/permission$",
    )
    error = assert_tool_error(grant(), 502, "UPSTREAM_ERROR")
    assert error["details"] | {"message": ""} == {"status": 403, "vendor_code": "403", "message": ""}
    assert wiki.space_permissions == []


def test_the_tool_is_admin_and_documents_its_input(client_for, tenant, exec_key):
    tool = assert_tool_ok(client_for(exec_key, tenant).get("/api/v1/tools/wiki.space_permission.add"))["data"]
    assert tool["risk_level"] == "admin" and tool["connectors"] == ["wikispace"]
    assert tool["input_schema"]["additionalProperties"] is False and tool["input_schema"]["examples"]
