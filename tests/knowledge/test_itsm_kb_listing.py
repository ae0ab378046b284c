"""POST /v2/itsmplatform/kb-listing against the fake ITSM instance (HTTPS, OAuth password grant)."""

from __future__ import annotations

import pytest

from tests.fakes.itsm import FakeItsm
from tests.fakes.server import Reply
from tests.helpers import TIMESTAMP, assert_v2_detail, assert_v2_validation
from tests.knowledge.conftest import itsm_body

URL = "/v2/itsmplatform/kb-listing"


@pytest.fixture
def bases(itsm):
    itsm.page_size = 2
    it = itsm.add_kb("IT", description="How-tos", articles=12)
    hr = itsm.add_kb("HR", articles=3)
    old = itsm.add_kb("Archive", active=False)
    return itsm, [it, hr, old]


def test_it_lists_knowledge_bases_with_article_counts(admin_client, bases):
    itsm, (it, hr, old) = bases
    response = admin_client.post(URL, itsm_body(itsm), format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["success"] is True and TIMESTAMP.match(body["timestamp"])
    assert body["data"] == {
        "knowledge_bases": [
            {
                "sys_id": it.sys_id,
                "title": "IT",
                "description": "How-tos",
                "article_count": 12,
                "active": True,
            },
            {"sys_id": hr.sys_id, "title": "HR", "description": "", "article_count": 3, "active": True},
            {
                "sys_id": old.sys_id,
                "title": "Archive",
                "description": "",
                "article_count": 0,
                "active": False,
            },
        ],
        "total": 3,
    }
    grant = itsm.requests_to(r"/oauth_token\.do$")[0].form()
    assert grant["grant_type"] == "password" and grant["username"] == "svc.kb"
    assert len(itsm.requests_to(r"/kb_knowledge_base$")) == 2  # paged


def test_a_refresh_token_is_used_when_given(admin_client, bases):
    itsm, _ = bases
    itsm.refresh_tokens.add("refresh-1")
    response = admin_client.post(URL, itsm_body(itsm, refresh_token="refresh-1"), format="json")
    assert response.status_code == 200
    assert [r.form()["grant_type"] for r in itsm.requests_to(r"/oauth_token\.do$")] == ["refresh_token"]


def test_a_refused_refresh_token_falls_back_to_the_password(admin_client, bases):
    itsm, _ = bases
    response = admin_client.post(URL, itsm_body(itsm, refresh_token="expired"), format="json")
    assert response.status_code == 200
    grants = [r.form()["grant_type"] for r in itsm.requests_to(r"/oauth_token\.do$")]
    assert grants == ["refresh_token", "password"]


def test_wrong_credentials_are_403(admin_client, bases):
    itsm, _ = bases
    assert_v2_detail(admin_client.post(URL, itsm_body(itsm, password="wrong"), format="json"), 403)
    assert itsm.requests_to(r"/api/now") == []


def test_a_failing_instance_is_502(admin_client, bases):
    itsm, _ = bases
    itsm.queue_reply(Reply(500, {"error": {"message": "boom"}}), path="/api/now/", times=5)
    assert_v2_detail(admin_client.post(URL, itsm_body(itsm), format="json"), 502)


def test_an_unreachable_instance_is_502(admin_client, bases):
    itsm, _ = bases
    itsm.stop()
    assert_v2_detail(admin_client.post(URL, itsm_body(itsm), format="json"), 502)


def test_an_instance_that_keeps_throttling_is_429(admin_client, bases):
    itsm, _ = bases
    itsm.queue_reply(
        Reply(429, {"error": {"message": "slow"}}, {"Retry-After": "0"}), path="/api/now/", times=10
    )
    assert_v2_detail(admin_client.post(URL, itsm_body(itsm), format="json"), 429)


def test_a_private_instance_is_refused_before_any_connection(admin_client, settings):
    with FakeItsm() as canary:
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
        response = admin_client.post(URL, itsm_body(canary), format="json")
        assert_v2_validation(response, ["body", "itsmplatform_domain"], "value_error.url.host")
        assert canary.received == []


@pytest.mark.parametrize(
    ("override", "loc", "type_"),
    [
        (
            {"itsmplatform_domain": "http://acme.service-now.test"},
            ["body", "itsmplatform_domain"],
            "value_error.url.scheme",
        ),
        (
            {"itsmplatform_domain": "acme.test/path?x"},
            ["body", "itsmplatform_domain"],
            "value_error.url.host",
        ),
        ({"password": ["x"]}, ["body", "password"], "type_error.str"),
    ],
)
def test_malformed_bodies_answer_422_naming_the_field(admin_client, itsm, override, loc, type_):
    assert_v2_validation(admin_client.post(URL, itsm_body(itsm, **override), format="json"), loc, type_)


def test_every_field_is_required_even_an_empty_refresh_token(admin_client, itsm):
    body = itsm_body(itsm)
    del body["refresh_token"]
    assert_v2_validation(
        admin_client.post(URL, body, format="json"), ["body", "refresh_token"], "value_error.missing"
    )


def test_the_domain_may_carry_an_https_scheme(admin_client, bases):
    itsm, _ = bases
    response = admin_client.post(URL, itsm_body(itsm, itsmplatform_domain=itsm.url + "/"), format="json")
    assert response.status_code == 200


def test_it_needs_the_integration_admin_role(client_for, tenant, teammate, itsm):
    assert_v2_detail(client_for(teammate, tenant).post(URL, itsm_body(itsm), format="json"), 403)
