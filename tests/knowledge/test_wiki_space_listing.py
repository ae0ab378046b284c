"""POST /v2/wikispace/space-listing against the fake wiki (v2 API with cursor paging, v1 fallback)."""

from __future__ import annotations

import pytest

from tests.fakes.server import FakeVendor, Reply
from tests.helpers import assert_v2_detail, assert_v2_validation
from tests.knowledge.conftest import wiki_body

URL = "/v2/wikispace/space-listing"


@pytest.fixture
def spaces(wiki):
    wiki.page_size = 2
    wiki.add_space("ENG", "Engineering")
    wiki.add_space("HR", "People", status="archived")
    wiki.add_space("~ada", "Ada Lovelace", type="personal", visible_to={"ada@acme.test"})
    wiki.add_space("~bob", "Bob", type="personal", visible_to={"bob@acme.test"})
    wiki.add_space("OPS", "Operations", type="collaboration")
    return wiki


EXPECTED = [
    {"key": "ENG", "name": "Engineering", "type": "global", "status": "current"},
    {"key": "HR", "name": "People", "type": "global", "status": "archived"},
    {"key": "~ada", "name": "Ada Lovelace", "type": "personal", "status": "current"},
    {"key": "OPS", "name": "Operations", "type": "global", "status": "current"},
]


def test_it_lists_the_spaces_the_account_can_see_following_the_cursor(admin_client, spaces):
    response = admin_client.post(URL, wiki_body(spaces), format="json")
    assert response.status_code == 200, response.json()
    assert response.json() == {"spaces": EXPECTED}  # the bare object, not the /v2 envelope
    v2_calls = spaces.requests_to(r"/wiki/api/v2/spaces$")
    assert len(v2_calls) == 2 and "cursor" in v2_calls[1].query
    assert v2_calls[0].headers["Authorization"].startswith("Basic ")
    assert spaces.requests_to(r"/rest/api/space") == []


def test_it_falls_back_to_the_v1_api_when_v2_is_absent(admin_client, spaces):
    spaces.v2 = False
    response = admin_client.post(URL, wiki_body(spaces), format="json")
    assert response.json() == {"spaces": EXPECTED}
    assert len(spaces.requests_to(r"/wiki/rest/api/space$")) == 2


def test_a_wrong_api_token_is_403(admin_client, spaces):
    response = admin_client.post(URL, wiki_body(spaces, api_token="nope"), format="json")
    assert_v2_detail(response, 403)


def test_an_account_without_wiki_access_is_403(admin_client, spaces):
    spaces.forbidden.add("ada@acme.test")
    assert_v2_detail(admin_client.post(URL, wiki_body(spaces), format="json"), 403)


def test_a_failing_wiki_is_502(admin_client, spaces):
    spaces.queue_reply(Reply(500, "<html>oops</html>"), path="/spaces", times=5)
    assert_v2_detail(admin_client.post(URL, wiki_body(spaces), format="json"), 502)


def test_an_unreachable_wiki_is_502(admin_client, spaces):
    spaces.stop()
    assert_v2_detail(admin_client.post(URL, wiki_body(spaces), format="json"), 502)


def test_a_url_without_any_wiki_api_is_502(admin_client, spaces):
    spaces.v2 = False
    body = wiki_body(spaces, instance_url=spaces.url + "/elsewhere")
    assert_v2_detail(admin_client.post(URL, body, format="json"), 502)


def test_a_wiki_that_keeps_throttling_is_429(admin_client, spaces):
    spaces.queue_reply(Reply(429, {"message": "Rate limited"}, {"Retry-After": "0"}), times=10)
    response = admin_client.post(URL, wiki_body(spaces), format="json")
    assert_v2_detail(response, 429)
    assert response["Retry-After"]


def test_a_private_instance_url_is_refused_before_any_connection(admin_client, settings):
    with FakeVendor() as canary:
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
        body = {
            "instance_url": canary.url + "/wiki",
            "web_url_instance": canary.url,
            "username": "ada@acme.test",
            "api_token": "wiki-token-1",
        }
        response = admin_client.post(URL, body, format="json")
        assert_v2_validation(response, ["body", "instance_url"], "value_error.url.host")
        assert canary.received == []


@pytest.mark.parametrize(
    ("override", "loc", "type_"),
    [
        ({"api_token": None}, ["body", "api_token"], "type_error.none.not_allowed"),
        ({"username": {"name": "ada"}}, ["body", "username"], "type_error.str"),
        ({"instance_url": "ftp://wiki.acme.test/wiki"}, ["body", "instance_url"], "value_error.url.scheme"),
        ({"web_url_instance": "https://"}, ["body", "web_url_instance"], "value_error.url.host"),
    ],
)
def test_malformed_bodies_answer_422_naming_the_field(admin_client, wiki, override, loc, type_):
    assert_v2_validation(admin_client.post(URL, wiki_body(wiki, **override), format="json"), loc, type_)
    assert wiki.received == []


def test_every_field_is_required(admin_client, wiki):
    response = admin_client.post(URL, {}, format="json")
    for field in ("instance_url", "web_url_instance", "username", "api_token"):
        assert_v2_validation(response, ["body", field], "value_error.missing")


def test_it_needs_the_integration_admin_role(client_for, tenant, teammate, wiki):
    assert_v2_detail(client_for(teammate, tenant).post(URL, wiki_body(wiki), format="json"), 403)
    assert wiki.received == []
