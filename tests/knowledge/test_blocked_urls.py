"""Blocked URL prefixes: a tenant's block rules of target `url` (any platform) and `site` tell
ingestion which items to skip, when the run asks for the block list (`blacklisted`)."""

from __future__ import annotations

import pytest

from knowledge.models import SourceRule
from knowledge.selectors import source_rules_get

ARTICLE = "https://acme.itsm.test/kb_view.do?sysparm_article=KB0010001"
SPACE = "https://wiki.test/spaces/HR"
SITE = "https://contoso.sitelib.test/sites/finance"


def rule(tenant, value: str, *, target: str = "url", kind: str = "block", audiences=()) -> SourceRule:
    return SourceRule.objects.create(
        tenant=tenant, kind=kind, target=target, value=value, audiences=list(audiences)
    )


def rules_of(tenant, audience=("all",), blacklisted: bool = True):
    return source_rules_get(
        tenant=tenant, audience=list(audience), blacklisted=blacklisted, source_restriction=False
    )


@pytest.mark.parametrize(
    ("url", "blocked"),
    [
        (SPACE, True),
        (f"{SPACE}/pages/1/Salaries", True),
        ("https://WIKI.test/spaces/hr/pages/2", True),
        (f"{SPACE}?preview=1", True),
        (f"{SPACE}#top", True),
        (f"{SPACE}X/pages/3", False),
        ("https://wiki.test/spaces/IT/pages/4", False),
        (ARTICLE, True),
        (f"{ARTICLE}#att-1", True),
        (f"{ARTICLE}2", False),
    ],
)
def test_a_blocked_url_prefix_covers_the_items_under_it(tenant, url, blocked):
    rule(tenant, f"{SPACE}/")
    rule(tenant, ARTICLE)
    assert rules_of(tenant).url_blocked(url) is blocked


def test_the_rules_name_their_blocked_prefixes_in_folded_form(tenant):
    rule(tenant, f"{SPACE}/")
    rule(tenant, ARTICLE)
    assert rules_of(tenant).block_urls == (ARTICLE.casefold(), SPACE.casefold())


@pytest.mark.parametrize(
    ("url", "blocked"),
    [
        (f"{SITE}/Shared%20Documents/Ledger.xlsx", True),
        (f"{SITE}/sub/Shared%20Documents/Plan.docx", True),
        (f"{SITE}?web=1", True),
        (f"{SITE}-archive/Shared%20Documents/Old.docx", False),
    ],
)
def test_a_blocked_site_blocks_the_items_under_it(tenant, url, blocked):
    rule(tenant, SITE, target="site")
    assert rules_of(tenant).url_blocked(url) is blocked


def test_nothing_is_blocked_unless_the_block_list_is_asked_for(tenant):
    rule(tenant, SPACE)
    rule(tenant, SITE, target="site")
    rules = rules_of(tenant, blacklisted=False)
    assert not rules.url_blocked(f"{SPACE}/pages/1")
    assert not rules.url_blocked(f"{SITE}/Shared/a.docx")


@pytest.mark.parametrize(
    ("audience", "blocked"),
    [(["finance"], True), (["Finance", "hr"], True), (["hr"], False), (["all"], True), ([], True)],
)
def test_a_rule_with_audiences_blocks_only_for_them(tenant, audience, blocked):
    rule(tenant, SPACE, audiences=["finance"])
    assert rules_of(tenant, audience).url_blocked(f"{SPACE}/pages/1") is blocked


def test_allow_rules_drive_rules_and_other_tenants_rules_block_no_url(tenant, other_tenant):
    rule(tenant, SITE, target="site", kind="allow")
    rule(tenant, "b!drive-1", target="drive")
    rule(other_tenant, SPACE)
    rules = rules_of(tenant)
    assert not rules.url_blocked(f"{SITE}/Shared/a.docx")
    assert not rules.url_blocked(f"{SPACE}/pages/1")
    assert not rules.url_blocked("b!drive-1")


def test_a_url_prefix_rule_leaves_the_listings_sites_alone(tenant):
    """The listing's site and drive rules are unchanged: a URL prefix hides no site."""
    rule(tenant, SITE)
    rules = rules_of(tenant)
    assert rules.url_blocked(f"{SITE}/Shared/a.docx")
    assert not rules.site_blocked(SITE)
    assert rules.drive_visible(SITE, "b!drive-1")
