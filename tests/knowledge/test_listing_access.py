"""Who may call the listings: the tenant's integration admins and knowledge-scoped keys only."""

from __future__ import annotations

import pytest

from tests import factories
from tests.helpers import assert_v2_detail
from tests.knowledge.conftest import itsm_body, sitelib_body, wiki_body


@pytest.fixture
def calls(graph, wiki, itsm):
    """(url, body, fake) for each listing, all with valid platform credentials."""
    graph.add_drive(graph.add_site("/sites/a", "A"), "Documents")
    wiki.add_space("ENG", "Engineering")
    itsm.add_kb("IT")
    return [
        ("/v2/sitelib/listing", sitelib_body(), graph),
        ("/v2/wikispace/space-listing", wiki_body(wiki), wiki),
        ("/v2/itsmplatform/kb-listing", itsm_body(itsm), itsm),
    ]


def test_an_admin_of_another_tenant_cannot_list_in_ours(client_for, tenant, outsider, calls):
    for url, body, fake in calls:
        assert_v2_detail(client_for(outsider, tenant).post(url, body, format="json"), 403)
        assert fake.received == []


def test_a_key_without_the_knowledge_scope_is_refused(client_for, tenant, calls):
    _, raw = factories.make_api_key(tenant, scopes=["vault:read"])
    for url, body, fake in calls:
        assert_v2_detail(client_for(raw, tenant).post(url, body, format="json"), 403)
        assert fake.received == []


def test_a_knowledge_key_lists_on_all_three(client_for, tenant, calls):
    _, raw = factories.make_api_key(tenant, scopes=["knowledge:read"])
    for url, body, _fake in calls:
        assert client_for(raw, tenant).post(url, body, format="json").status_code == 200, url


def test_a_missing_tenant_header_is_400(client_for, owner, calls):
    for url, body, _fake in calls:
        response = client_for(owner, None).post(url, body, format="json")
        assert_v2_detail(response, 400)
