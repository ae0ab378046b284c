"""/v2/knowledge/source-rules: the tenant's block and allow lists and blocked URL prefixes, listed,
added and removed through the API, audited, and never another tenant's."""

from __future__ import annotations

import uuid

import pytest

from core.models import AuditEntry, Role
from knowledge.models import SourceRule
from knowledge.selectors import source_rules_get
from tests import factories
from tests.helpers import TIMESTAMP, assert_v2_detail, assert_v2_validation

URL = "/v2/knowledge/source-rules"
SPACE = "https://wiki.test/spaces/HR"
SITE = "https://contoso.sitelib.test/sites/finance"


@pytest.fixture
def api(client_for, tenant):
    """An integration admin: the least role that may change the rules."""
    user = factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator", email="i@acme.test")
    return client_for(user, tenant)


@pytest.fixture
def viewer(client_for, tenant):
    user = factories.make_user(tenant, [Role.INTEGRATION_VIEWER], username="viewer", email="v@acme.test")
    return client_for(user, tenant)


@pytest.fixture
def outsider_api(client_for, outsider, other_tenant):
    return client_for(outsider, other_tenant)


def data_of(response, status: int = 200):
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"success", "data", "timestamp"} and body["success"] is True, body
    assert TIMESTAMP.match(body["timestamp"])
    return body["data"]


def create(api, **fields):
    return api.post(URL, {"kind": "block", "target": "url", "value": SPACE, **fields}, format="json")


def test_a_blocked_url_prefix_is_added_and_answered_with_its_id(api, tenant):
    response = create(api, audiences=["finance"], note="salaries stay out")
    rule = data_of(response, 201)
    stored = SourceRule.objects.get(tenant=tenant)
    assert rule == {
        "rule_id": f"srule-{stored.id}",
        "kind": "block",
        "target": "url",
        "value": SPACE,
        "audiences": ["finance"],
        "note": "salaries stay out",
        "created_at": rule["created_at"],
    }
    assert TIMESTAMP.match(rule["created_at"])


def test_an_added_rule_blocks_ingestion_of_the_items_under_it(api, tenant):
    data_of(create(api), 201)
    rules = source_rules_get(tenant=tenant, audience=["all"], blacklisted=True, source_restriction=False)
    assert rules.url_blocked(f"{SPACE}/pages/1/Salaries")


def test_adding_a_rule_is_audited(api, tenant):
    rule = data_of(create(api), 201)
    entry = AuditEntry.objects.get(action="SOURCE_RULE_CREATED")
    assert (entry.tenant_id, entry.resource["id"]) == (tenant.id, rule["rule_id"])
    assert entry.actor["name"] == "integrator"
    assert entry.details == {"kind": "block", "target": "url", "value": SPACE, "audiences": []}


def test_the_list_shows_the_tenants_rules_and_narrows_by_kind_and_target(api, tenant, other_tenant):
    data_of(create(api), 201)
    data_of(create(api, kind="allow", target="site", value=SITE), 201)
    data_of(create(api, target="drive", value="b!drive-1"), 201)
    SourceRule.objects.create(tenant=other_tenant, kind="block", target="url", value="https://globex.test/x")
    listed = data_of(api.get(URL))
    assert listed["total"] == 3
    assert [(r["kind"], r["target"], r["value"]) for r in listed["rules"]] == [
        ("allow", "site", SITE),
        ("block", "drive", "b!drive-1"),
        ("block", "url", SPACE),
    ]
    assert [r["value"] for r in data_of(api.get(URL, {"kind": "block"}))["rules"]] == ["b!drive-1", SPACE]
    assert data_of(api.get(URL, {"kind": "block", "target": "url"}))["total"] == 1


def test_a_viewer_may_list_the_rules_but_not_change_them(api, viewer, tenant):
    rule = data_of(create(api), 201)
    assert data_of(viewer.get(URL))["total"] == 1
    assert_v2_detail(create(viewer, value="https://wiki.test/spaces/IT"), 403)
    assert_v2_detail(viewer.delete(f"{URL}/{rule['rule_id']}"), 403)
    assert SourceRule.objects.filter(tenant=tenant).count() == 1


def test_an_api_key_without_knowledge_write_may_not_add_a_rule(client_for, tenant):
    _key, raw = factories.make_api_key(tenant, ["knowledge:read"])
    assert_v2_detail(create(client_for(raw, tenant)), 403)
    assert not SourceRule.objects.exists()


def test_an_api_key_with_knowledge_write_may_add_one(client_for, tenant):
    _key, raw = factories.make_api_key(tenant, ["knowledge:write"])
    data_of(create(client_for(raw, tenant)), 201)
    assert AuditEntry.objects.get(action="SOURCE_RULE_CREATED").actor["type"] == "api_key"


@pytest.mark.parametrize(
    ("fields", "loc", "type_"),
    [
        ({"value": "wiki.test/spaces/HR"}, ["body", "value"], "value_error.url"),
        ({"value": "ftp://wiki.test/spaces/HR"}, ["body", "value"], "value_error.url"),
        ({"target": "site", "value": "sites/finance"}, ["body", "value"], "value_error.url"),
        ({"kind": "allow"}, ["body", "kind"], "value_error"),
        ({"kind": "deny"}, ["body", "kind"], "value_error.const"),
        ({"target": "folder"}, ["body", "target"], "value_error.const"),
        ({"value": ""}, ["body", "value"], "value_error.any_str.min_length"),
        ({"value": "https://x.test/" + "a" * 2048}, ["body", "value"], "value_error.any_str.max_length"),
        ({"audiences": "finance"}, ["body", "audiences"], "type_error.list"),
        ({"audiences": ["finance", " "]}, ["body", "audiences", 1], "value_error.any_str.min_length"),
    ],
)
def test_a_rule_that_could_not_apply_is_refused_with_the_field_named(api, fields, loc, type_):
    assert_v2_validation(create(api, **fields), loc, type_)
    assert not SourceRule.objects.exists()
    assert not AuditEntry.objects.filter(action="SOURCE_RULE_CREATED").exists()


@pytest.mark.parametrize("missing", ["kind", "target", "value"])
def test_a_missing_field_is_named(api, missing):
    body = {"kind": "block", "target": "url", "value": SPACE}
    del body[missing]
    assert_v2_validation(api.post(URL, body, format="json"), ["body", missing], "value_error.missing")


def test_the_same_rule_twice_is_a_conflict(api, tenant):
    data_of(create(api), 201)
    detail = assert_v2_detail(create(api, note="again"), 409)
    assert "already has" in detail and SPACE in detail
    assert SourceRule.objects.filter(tenant=tenant).count() == 1
    assert AuditEntry.objects.filter(action="SOURCE_RULE_CREATED").count() == 1


def test_another_tenant_may_have_the_same_rule(api, outsider_api, other_tenant):
    data_of(create(api), 201)
    data_of(create(outsider_api), 201)
    assert SourceRule.objects.filter(tenant=other_tenant).count() == 1


@pytest.mark.parametrize("kind", ["wrong", "BLOCK", ""])
def test_a_filter_outside_its_set_is_a_query_error(api, kind):
    assert_v2_validation(api.get(URL, {"kind": kind}), ["query", "kind"], "value_error.const")


def test_a_rule_is_removed_by_its_id_and_the_removal_is_audited(api, tenant):
    rule = data_of(create(api), 201)
    removed = data_of(api.delete(f"{URL}/{rule['rule_id']}"))
    assert removed == {"rule_id": rule["rule_id"], "deleted_at": removed["deleted_at"]}
    assert TIMESTAMP.match(removed["deleted_at"])
    assert not SourceRule.objects.exists()
    entry = AuditEntry.objects.get(action="SOURCE_RULE_DELETED")
    assert (entry.resource["id"], entry.details["value"]) == (rule["rule_id"], SPACE)
    rules = source_rules_get(tenant=tenant, audience=["all"], blacklisted=True, source_restriction=False)
    assert not rules.url_blocked(f"{SPACE}/pages/1")


def test_a_rule_is_removed_by_its_bare_uuid_too(api):
    rule = data_of(create(api), 201)
    data_of(api.delete(f"{URL}/{rule['rule_id'].removeprefix('srule-')}"))
    assert not SourceRule.objects.exists()


@pytest.mark.parametrize("rule_id", [f"srule-{uuid.uuid4()}", "not-an-id", "srule-"])
def test_an_unknown_rule_is_404(api, rule_id):
    assert_v2_detail(api.delete(f"{URL}/{rule_id}"), 404)


def test_a_second_removal_is_404(api):
    rule = data_of(create(api), 201)
    data_of(api.delete(f"{URL}/{rule['rule_id']}"))
    assert_v2_detail(api.delete(f"{URL}/{rule['rule_id']}"), 404)
    assert AuditEntry.objects.filter(action="SOURCE_RULE_DELETED").count() == 1


def test_another_tenants_rule_is_404_and_stays(api, outsider_api, tenant):
    rule = data_of(create(api), 201)
    assert_v2_detail(outsider_api.delete(f"{URL}/{rule['rule_id']}"), 404)
    assert data_of(outsider_api.get(URL)) == {"rules": [], "total": 0}
    assert SourceRule.objects.filter(tenant=tenant).count() == 1
    assert not AuditEntry.objects.filter(action="SOURCE_RULE_DELETED").exists()
