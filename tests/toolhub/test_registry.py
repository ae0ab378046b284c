"""The registry and GET /api/v1/tools: the shipped tools over five domains, checked schemas."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from tests import factories
from tests.helpers import assert_tool_error
from tests.toolhub.support import assert_tool_ok
from toolhub.models import ApprovalPolicy
from toolhub.registry import Tool, registry_problems, tool_lookup, tool_register, tools_all


def test_the_shipped_tools_cover_five_domains_and_pass_the_start_up_check():
    tools = tools_all()
    assert len(tools) >= 12
    assert {t.domain for t in tools} == {"itsm", "wiki", "documents", "itdocs", "knowledge"}
    assert registry_problems() == []


def test_every_example_of_a_tool_is_a_valid_input():
    examples = [(t, example) for t in tools_all() for example in t.input_schema.get("examples", [])]
    assert len(examples) >= 6
    for tool, example in examples:
        assert list(tool.input_validator.iter_errors(example)) == [], (tool.key, example)


def test_every_tool_that_writes_has_examples():
    writers = [t.key for t in tools_all() if t.risk_level != "read" and t.domain in ("documents", "itdocs")]
    assert len(writers) == 7
    assert [key for key in writers if not tool_lookup(key).input_schema.get("examples")] == []


def test_each_domain_with_a_privileged_operation_has_one_admin_tool():
    admin = {t.key for t in tools_all() if t.risk_level == "admin"}
    assert admin == {"documents.item.share", "wiki.space_permission.add", "itsm.user_role.grant"}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {
                "input_schema": {
                    "type": "object",
                    "properties": {"a": {"type": "nonsense"}},
                    "additionalProperties": False,
                }
            },
            "input schema",
        ),
        ({"input_schema": {"type": "object"}}, "additionalProperties"),
        ({"risk_level": "spicy"}, "risk level"),
        ({"key": "Bad Key"}, "key"),
        ({"key": "itsm.user.role.grant"}, "<domain>.<resource>.<verb>"),
        (
            {"output_schema": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}},
            "nullable",
        ),
        ({"implementations": {"wikispace": None}}, "connectors"),
    ],
)
def test_a_bad_definition_is_refused_at_registration(change, problem):
    fields = {
        "key": "itsm.test.thing",
        "name": "t",
        "description": "t",
        "domain": "itsm",
        "risk_level": "read",
        "version": "1",
        "input_schema": {"type": "object", "additionalProperties": False},
        "output_schema": {"type": "object"},
        "implementations": {"itsmplatform": None},
    } | change
    with pytest.raises(ImproperlyConfigured, match=problem):
        tool_register(Tool(**fields))


def test_patterns_that_named_the_renamed_tools_name_them_now(tenant):
    migration = importlib.import_module("toolhub.migrations.0006_tool_keys_of_three_parts")
    patterns = ["itsm.user.role.*", "wiki.*"]
    key, _raw = factories.make_api_key(tenant, ["tools:execute"], tool_patterns=patterns)
    policy = ApprovalPolicy.objects.create(tenant=tenant, always_gate=["wiki.space.permission.add"])
    migration.rename_patterns(apps, None)
    key.refresh_from_db(), policy.refresh_from_db()
    assert key.tool_patterns == ["itsm.user_role.*", "wiki.*"]
    assert policy.always_gate == ["wiki.space_permission.add"]


def test_any_member_lists_tools_and_filters_by_domain(client_for, tenant, teammate):
    client = client_for(teammate, tenant)
    data = assert_tool_ok(client.get("/api/v1/tools"))["data"]
    assert data["total"] == len(data["tools"]) >= 12
    assert "input_schema" not in data["tools"][0]
    wiki = assert_tool_ok(client.get("/api/v1/tools?domain=wiki"))["data"]["tools"]
    assert {t["tool_key"] for t in wiki} == {
        "wiki.page.search",
        "wiki.page.get",
        "wiki.page.create",
        "wiki.page.delete",
        "wiki.space_permission.add",
    }
    assert_tool_error(client.get("/api/v1/tools?domain=crm"), 400, "INVALID_PARAMETER")


def test_a_tool_definition_has_its_schemas_risk_and_connectors(client_for, tenant, exec_key):
    data = assert_tool_ok(client_for(exec_key, tenant).get("/api/v1/tools/itsm.incident.delete"))["data"]
    assert data["risk_level"] == "destructive" and data["connectors"] == ["itsmplatform"]
    assert data["input_schema"]["additionalProperties"] is False and data["output_schema"]["type"] == "object"


def test_an_unknown_tool_is_tool_not_found(client_for, tenant, teammate):
    assert_tool_error(client_for(teammate, tenant).get("/api/v1/tools/nope.nope.nope"), 404, "TOOL_NOT_FOUND")


def test_tools_need_a_member_of_the_tenant(client_for, tenant, outsider):
    assert_tool_error(client_for(outsider, tenant).get("/api/v1/tools"), 403, "FORBIDDEN")
    assert_tool_error(client_for(None, tenant).get("/api/v1/tools"), 401, "UNAUTHORIZED")
