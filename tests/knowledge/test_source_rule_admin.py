"""Operators keep the source rules in the Django admin; the listing applies what they saved."""

from __future__ import annotations

import pytest

from knowledge.models import SourceRule
from tests import factories


@pytest.fixture
def console(client, db):
    client.force_login(factories.make_super_admin(username="root", email="root@ops.test"))
    return client


def test_an_operator_adds_a_block_rule_for_a_site(console, tenant):
    response = console.post(
        "/admin/knowledge/sourcerule/add/",
        {
            "tenant": tenant.id,
            "kind": "block",
            "target": "site",
            "value": "https://contoso.sitelib.test/sites/finance",
            "audiences": "[]",
            "note": "ledgers stay out",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    rule = SourceRule.objects.get(tenant=tenant)
    assert (rule.kind, rule.target, rule.audiences) == ("block", "site", [])
    assert (
        "contoso.sitelib.test/sites/finance" in console.get("/admin/knowledge/sourcerule/").content.decode()
    )


@pytest.mark.parametrize(
    ("value", "audiences"),
    [
        ("contoso.sitelib.test/sites/finance", "[]"),  # a site rule needs a URL
        ("https://contoso.sitelib.test/sites/finance", '"finance"'),  # audiences is a list
        ("https://contoso.sitelib.test/sites/finance", "[1, 2]"),  # of names
    ],
)
def test_the_admin_refuses_a_malformed_rule(console, tenant, value, audiences):
    response = console.post(
        "/admin/knowledge/sourcerule/add/",
        {"tenant": tenant.id, "kind": "allow", "target": "site", "value": value, "audiences": audiences},
    )
    assert response.status_code == 200  # the form again, with its errors
    assert SourceRule.objects.count() == 0


def test_the_same_rule_cannot_be_saved_twice_for_a_tenant(console, tenant, other_tenant):
    fields = {"kind": "block", "target": "drive", "value": "b!drive-1", "audiences": "[]"}
    assert (
        console.post("/admin/knowledge/sourcerule/add/", {"tenant": tenant.id, **fields}).status_code == 302
    )
    assert (
        console.post("/admin/knowledge/sourcerule/add/", {"tenant": tenant.id, **fields}).status_code == 200
    )
    assert (
        console.post("/admin/knowledge/sourcerule/add/", {"tenant": other_tenant.id, **fields}).status_code
        == 302
    )
    assert SourceRule.objects.count() == 2


def test_an_operator_blocks_a_url_prefix_and_finds_it_by_its_target(console, tenant):
    fields = {"tenant": tenant.id, "kind": "block", "audiences": "[]"}
    url_rule = {**fields, "target": "url", "value": "https://wiki.test/spaces/HR"}
    assert console.post("/admin/knowledge/sourcerule/add/", url_rule).status_code == 302
    site_rule = {**fields, "target": "site", "value": "https://contoso.sitelib.test/sites/finance"}
    assert console.post("/admin/knowledge/sourcerule/add/", site_rule).status_code == 302
    console.get("/admin/knowledge/sourcerule/")  # shows (and so clears) the "added" messages
    page = console.get("/admin/knowledge/sourcerule/", {"target__exact": "url"}).content.decode()
    assert "wiki.test/spaces/HR" in page and "sites/finance" not in page
    assert "URL prefix (any platform)" in page


@pytest.mark.parametrize(
    ("kind", "value"),
    [("block", "wiki.test/spaces/HR"), ("allow", "https://wiki.test/spaces/HR")],
)
def test_the_admin_refuses_a_url_rule_that_could_not_apply(console, tenant, kind, value):
    response = console.post(
        "/admin/knowledge/sourcerule/add/",
        {"tenant": tenant.id, "kind": kind, "target": "url", "value": value, "audiences": "[]"},
    )
    assert response.status_code == 200  # the form again, with its errors
    assert SourceRule.objects.count() == 0
