"""POST /v2/sitelib/listing against the fake identity platform (HTTPS, msal) and the fake
document-site API."""

from __future__ import annotations

import pytest

from core.models import Role
from knowledge.models import SourceRule
from tests import factories
from tests.fakes.server import Reply
from tests.helpers import TIMESTAMP, assert_v2_detail, assert_v2_validation
from tests.knowledge.conftest import CERT_CLIENT_ID, CLOUD_TID, sitelib_body

URL = "/v2/sitelib/listing"


@pytest.fixture
def estate(graph):
    """Two top-level sites (one with a sub-site), three drives, folders and a file."""
    marketing = graph.add_site("/sites/marketing", "Marketing")
    docs = graph.add_drive(marketing, "Documents")
    graph.add_drive(marketing, "Brand Assets")
    graph.add_folder(docs, "Policies", child_count=4)
    graph.add_folder(docs, "Campaigns", child_count=2)
    graph.add_file(docs, "readme.docx")
    emea = graph.add_site("/sites/marketing/emea", "Marketing EMEA", parent=marketing)
    graph.add_drive(emea, "Documents")
    finance = graph.add_site("/sites/finance", "Finance")
    graph.add_drive(finance, "Ledgers")
    return {"marketing": marketing, "emea": emea, "finance": finance, "docs": docs}


def names(response) -> list[str]:
    return [site["name"] for site in response.json()["data"]["sites"]]


def test_it_lists_every_site_its_sub_sites_and_drives_with_a_client_secret(admin_client, identity, estate):
    response = admin_client.post(URL, sitelib_body(), format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert set(body) == {"success", "data", "timestamp"} and body["success"] is True
    assert TIMESTAMP.match(body["timestamp"])
    assert body["data"]["total"] == 3
    marketing = body["data"]["sites"][0]
    assert marketing == {
        "id": estate["marketing"].id,
        "name": "Marketing",
        "url": "https://contoso.sitelib.test/sites/marketing",
        "drives": [
            {"id": estate["docs"].id, "name": "Documents", "driveType": "documentLibrary"},
            {"id": estate["marketing"].drives[1].id, "name": "Brand Assets", "driveType": "documentLibrary"},
        ],
    }
    assert names(response) == ["Marketing", "Marketing EMEA", "Finance"]
    token_form = identity.token_requests()[0].form()
    assert token_form["grant_type"] == "client_credentials" and token_form["client_id"]
    assert "client_assertion" not in token_form


def test_it_lists_with_a_certificate_instead_of_a_secret(admin_client, identity, estate, app_certificate):
    body = sitelib_body(
        authorization={
            "client_id": CERT_CLIENT_ID,
            "client_secret": "",
            "thumbprint": app_certificate.thumbprint,
            "key": app_certificate.private_key_pem,
        }
    )
    response = admin_client.post(URL, body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["data"]["total"] == 3
    form = identity.token_requests()[0].form()
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert "client_secret" not in form


def test_it_follows_every_next_link_to_the_end(admin_client, graph):
    graph.page_size = 2
    for n in range(5):
        site = graph.add_site(f"/sites/team{n}", f"Team {n}")
        for d in range(3):
            graph.add_drive(site, f"Library {d}")
    response = admin_client.post(URL, sitelib_body(), format="json")
    data = response.json()["data"]
    assert data["total"] == 5
    assert all(len(site["drives"]) == 3 for site in data["sites"])
    assert any("$skiptoken" in r.query for r in graph.requests_to(r"/v1\.0/sites$"))
    assert any("$skiptoken" in r.query for r in graph.requests_to(r"/drives$"))


def test_it_asks_the_platform_about_many_sites_in_a_handful_of_batches(admin_client, graph):
    sites = [graph.add_site(f"/sites/team{n:02}", f"Team {n}") for n in range(45)]
    for site in sites:
        graph.add_drive(site, "Documents")
    graph.add_drive(graph.add_site("/sites/team00/emea", "Team 0 EMEA", parent=sites[0]), "Documents")
    response = admin_client.post(URL, sitelib_body(), format="json")
    data = response.json()["data"]
    assert data["total"] == 46 and all(len(site["drives"]) == 1 for site in data["sites"])
    # 90 reads (45 sub-site lists, 45 drive lists) in 5 batches, then the sub-site's drives in one
    sizes = sorted(len(r.json()["requests"]) for r in graph.requests_to(r"/v1\.0/\$batch$"))
    assert sizes == [1, 10, 20, 20, 20, 20]


def test_it_retries_a_throttled_call_honouring_retry_after(admin_client, graph, estate):
    graph.queue_reply(
        Reply(429, {"error": {"code": "TooManyRequests"}}, {"Retry-After": "1"}), path=r"/drives$"
    )
    response = admin_client.post(URL, sitelib_body(site_urls=[estate["finance"].web_url]), format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["data"]["sites"][0]["drives"][0]["name"] == "Ledgers"
    assert len(graph.requests_to(r"/drives$")) == 2


def test_it_answers_429_when_the_platform_keeps_throttling(admin_client, graph, estate):
    graph.queue_reply(Reply(429, {"error": {"code": "TooManyRequests"}}, {"Retry-After": "0"}), times=50)
    response = admin_client.post(URL, sitelib_body(), format="json")
    assert "throttl" in assert_v2_detail(response, 429)
    assert int(response["Retry-After"]) >= 1


def test_site_urls_resolve_only_the_named_sites_and_their_sub_sites(admin_client, graph, estate):
    response = admin_client.post(
        URL, sitelib_body(site_urls=[estate["marketing"].web_url + "/"]), format="json"
    )
    assert names(response) == ["Marketing", "Marketing EMEA"]
    assert graph.requests_to(r"/sites/contoso\.sitelib\.test$") == []
    assert graph.requests_to(r"/v1\.0/sites$") == []


def test_an_unknown_site_url_is_a_validation_error_on_that_item(admin_client, graph, estate):
    body = sitelib_body(site_urls=[estate["finance"].web_url, "https://contoso.sitelib.test/sites/nothing"])
    response = admin_client.post(URL, body, format="json")
    assert_v2_validation(response, ["body", "site_urls", 1])


def test_named_sub_sites_narrow_the_sub_sites_listed(admin_client, graph, estate):
    other = graph.add_site("/sites/marketing/apac", "Marketing APAC", parent=estate["marketing"])
    graph.add_drive(other, "Documents")
    by_name = admin_client.post(URL, sitelib_body(sub_sites=["marketing apac"]), format="json")
    assert names(by_name) == ["Marketing", "Marketing APAC", "Finance"]
    by_url = admin_client.post(URL, sitelib_body(sub_sites=[estate["emea"].web_url]), format="json")
    assert names(by_url) == ["Marketing", "Marketing EMEA", "Finance"]


def test_the_drives_filter_matches_a_name_or_an_id_and_drops_sites_without_them(admin_client, estate):
    ledgers = estate["finance"].drives[0].id
    response = admin_client.post(URL, sitelib_body(drives=["brand assets", ledgers]), format="json")
    sites = response.json()["data"]["sites"]
    assert [(s["name"], [d["name"] for d in s["drives"]]) for s in sites] == [
        ("Marketing", ["Brand Assets"]),
        ("Finance", ["Ledgers"]),
    ]


def test_folders_come_inside_their_drive_only_when_asked_for(admin_client, graph, estate):
    plain = admin_client.post(URL, sitelib_body(), format="json")
    assert all("folders" not in d for s in plain.json()["data"]["sites"] for d in s["drives"])
    assert graph.requests_to(r"/root/children$") == []

    asked = admin_client.post(
        URL, sitelib_body(site_urls=[estate["marketing"].web_url], folders=["Policies"]), format="json"
    )
    documents = asked.json()["data"]["sites"][0]["drives"][0]
    assert documents["folders"] == [
        {
            "id": estate["docs"].items[0]["id"],
            "name": "Policies",
            "path": "/sites/marketing/Documents/Policies",
            "webUrl": "https://contoso.sitelib.test/sites/marketing/Documents/Policies",
            "childCount": 4,
        }
    ]
    every = admin_client.post(
        URL, sitelib_body(site_urls=[estate["marketing"].web_url], folders=["*"]), format="json"
    )
    folders = every.json()["data"]["sites"][0]["drives"][0]["folders"]
    assert [f["name"] for f in folders] == ["Policies", "Campaigns"]  # the file is not a folder


def test_the_block_list_applies_when_blacklisted_is_asked_for(admin_client, tenant, estate):
    SourceRule.objects.create(tenant=tenant, kind="block", target="site", value=estate["marketing"].web_url)
    SourceRule.objects.create(
        tenant=tenant, kind="block", target="drive", value=estate["finance"].drives[0].id
    )
    off = admin_client.post(URL, sitelib_body(), format="json")
    assert names(off) == ["Marketing", "Marketing EMEA", "Finance"]
    top_level = admin_client.post(URL, sitelib_body(blacklisted=True), format="json")
    nested = admin_client.post(
        URL, sitelib_body(content_restriction={"audience": ["all"], "blacklisted": True}), format="json"
    )
    for response in (top_level, nested):
        assert [(s["name"], s["drives"]) for s in response.json()["data"]["sites"]] == [("Finance", [])]


def test_the_allow_list_applies_when_source_restriction_is_asked_for(admin_client, tenant, estate):
    SourceRule.objects.create(tenant=tenant, kind="allow", target="site", value=estate["emea"].web_url)
    SourceRule.objects.create(tenant=tenant, kind="allow", target="drive", value=estate["docs"].id)
    response = admin_client.post(URL, sitelib_body(source_restriction=True), format="json")
    sites = response.json()["data"]["sites"]
    assert [(s["name"], [d["name"] for d in s["drives"]]) for s in sites] == [
        ("Marketing", ["Documents"]),  # only its allowed drive
        ("Marketing EMEA", ["Documents"]),  # the whole sub-site is allowed
    ]


def test_rules_for_an_audience_apply_only_to_that_audience(admin_client, tenant, estate):
    SourceRule.objects.create(
        tenant=tenant, kind="block", target="site", value=estate["finance"].web_url, audiences=["interns"]
    )
    for audience, expected in ((["sales"], True), (["interns"], False), (["all"], False)):
        body = sitelib_body(blacklisted=True, content_restriction={"audience": audience})
        listed = "Finance" in names(admin_client.post(URL, body, format="json"))
        assert listed is expected, audience


def test_another_tenants_rules_never_apply(admin_client, other_tenant, estate):
    SourceRule.objects.create(
        tenant=other_tenant, kind="block", target="site", value=estate["finance"].web_url
    )
    SourceRule.objects.create(
        tenant=other_tenant, kind="allow", target="site", value=estate["finance"].web_url
    )
    response = admin_client.post(URL, sitelib_body(blacklisted=True, source_restriction=True), format="json")
    assert names(response) == ["Marketing", "Marketing EMEA", "Finance"]


# ---- errors from the platform


def test_a_wrong_client_secret_is_403(admin_client, graph):
    response = admin_client.post(URL, sitelib_body(authorization={"client_secret": "wrong"}), format="json")
    assert "invalid_client" in assert_v2_detail(response, 403)
    assert graph.received == []


def test_an_unknown_directory_tenant_is_403(admin_client, graph):
    body = sitelib_body(authorization={"cloud_tid": "unknown.onmicrosoft.com"})
    assert_v2_detail(admin_client.post(URL, body, format="json"), 403)


def test_a_certificate_the_platform_does_not_know_is_403(admin_client, graph):
    from tests.fakes.certificates import make_app_certificate

    stranger = make_app_certificate("stranger")
    body = sitelib_body(
        authorization={
            "client_id": CERT_CLIENT_ID,
            "client_secret": "",
            "thumbprint": stranger.thumbprint,
            "key": stranger.private_key_pem,
        }
    )
    assert_v2_detail(admin_client.post(URL, body, format="json"), 403)


def test_the_platform_denying_access_to_a_site_is_403(admin_client, graph, estate):
    graph.queue_reply(
        Reply(403, {"error": {"code": "accessDenied", "message": "Access denied"}}), path="/drives$"
    )
    assert assert_v2_detail(admin_client.post(URL, sitelib_body(), format="json"), 403) == "Access denied"


def test_a_failing_platform_is_502(admin_client, graph, estate):
    graph.queue_reply(Reply(500, {"error": {"code": "generalException"}}), path="/drives$", times=5)
    assert_v2_detail(admin_client.post(URL, sitelib_body(), format="json"), 502)


def test_a_failing_identity_platform_is_502(admin_client, identity, graph):
    identity.queue_reply(Reply(500, "oops"), path="/oauth2/v2.0/token")
    assert_v2_detail(admin_client.post(URL, sitelib_body(), format="json"), 502)


def test_an_unreachable_platform_is_502(admin_client, graph, settings):
    graph.stop()
    assert "could not be reached" in assert_v2_detail(
        admin_client.post(URL, sitelib_body(), format="json"), 502
    )


# ---- validation


@pytest.mark.parametrize(
    ("body", "loc", "type_"),
    [
        ({"authorization": None}, ["body", "authorization"], "type_error.none.not_allowed"),
        ({"site_urls": "https://x.test"}, ["body", "site_urls"], "type_error.list"),
        ({"site_urls": ["ftp://x.test/sites/a"]}, ["body", "site_urls", 0], "value_error.url.scheme"),
        ({"blacklisted": "maybe"}, ["body", "blacklisted"], "type_error.bool"),
        (
            {"content_restriction": {"audience": "all"}},
            ["body", "content_restriction", "audience"],
            "type_error.list",
        ),
        ({"authorization": {"cloud_tid": "not a tenant/../x"}}, ["body", "authorization", "cloud_tid"], None),
        ({"authorization": {"client_secret": ""}}, ["body", "authorization", "client_secret"], None),
        ({"authorization": {"thumbprint": "abc", "key": "k"}}, ["body", "authorization", "thumbprint"], None),
        ({"authorization": {"thumbprint": "A" * 40}}, ["body", "authorization", "key"], None),
    ],
)
def test_malformed_bodies_answer_422_naming_the_field(admin_client, body, loc, type_):
    assert_v2_validation(admin_client.post(URL, sitelib_body(**body), format="json"), loc, type_)


def test_a_missing_field_is_value_error_missing(admin_client):
    body = sitelib_body()
    del body["authorization"]["cloud_tid"]
    assert_v2_validation(
        admin_client.post(URL, body, format="json"),
        ["body", "authorization", "cloud_tid"],
        "value_error.missing",
    )
    assert_v2_validation(
        admin_client.post(URL, {}, format="json"), ["body", "authorization"], "value_error.missing"
    )


def test_sitelib_auth_is_needed_inside_authorization_or_at_the_top_level(admin_client, graph, estate):
    body = sitelib_body()
    del body["authorization"]["sitelib_auth"]
    missing = admin_client.post(URL, body, format="json")
    assert_v2_validation(missing, ["body", "authorization", "sitelib_auth"], "value_error.missing")
    body["sitelib_auth"] = True
    assert admin_client.post(URL, body, format="json").status_code == 200


def test_a_key_that_is_not_a_pem_private_key_is_422_before_any_call(admin_client, identity):
    body = sitelib_body(
        authorization={"client_secret": "", "thumbprint": "A" * 40, "key": "-----BEGIN nothing"}
    )
    assert_v2_validation(admin_client.post(URL, body, format="json"), ["body", "authorization", "key"])
    assert identity.received == []


# ---- access


def test_it_needs_the_integration_admin_role(client_for, tenant, teammate):
    assert_v2_detail(client_for(teammate, tenant).post(URL, sitelib_body(), format="json"), 403)


def test_it_needs_authentication(client_for, tenant):
    assert_v2_detail(client_for(None, tenant).post(URL, sitelib_body(), format="json"), 401)


def test_an_api_key_with_knowledge_read_may_list(client_for, tenant, estate):
    _, raw = factories.make_api_key(tenant, scopes=["knowledge:read"])
    response = client_for(raw, tenant).post(URL, sitelib_body(), format="json")
    assert response.status_code == 200 and response.json()["data"]["total"] == 3


def test_a_tenant_admin_may_list(client_for, tenant, estate):
    user = factories.make_user(tenant, [Role.TENANT_ADMIN], username="boss", email="boss@acme.test")
    assert client_for(user, tenant).post(URL, sitelib_body(), format="json").status_code == 200


def test_the_cloud_tid_may_be_a_domain(admin_client, identity, estate):
    identity.add_secret_app("acme.onmicrosoft.com", "domain-app", "domain-secret")
    body = sitelib_body(
        authorization={
            "cloud_tid": "acme.onmicrosoft.com",
            "client_id": "domain-app",
            "client_secret": "domain-secret",
        }
    )
    assert admin_client.post(URL, body, format="json").status_code == 200
    assert CLOUD_TID not in identity.token_requests()[0].path


def test_the_pool_threads_never_open_a_database_connection(admin_client, tenant, estate):
    import threading

    from django.db.backends.signals import connection_created

    opened_in: list[str] = []

    def record(sender, connection, **kwargs):
        opened_in.append(threading.current_thread().name)

    SourceRule.objects.create(tenant=tenant, kind="block", target="drive", value="b!none")
    connection_created.connect(record)
    try:
        response = admin_client.post(URL, sitelib_body(blacklisted=True, folders=["*"]), format="json")
    finally:
        connection_created.disconnect(record)
    assert response.status_code == 200
    assert not [name for name in opened_in if name.startswith("sitelib-io")]


def test_a_throttled_token_request_is_retried(admin_client, identity, estate):
    identity.queue_reply(
        Reply(429, {"error": "temporarily_unavailable"}, {"Retry-After": "0"}), path="/token$"
    )
    response = admin_client.post(URL, sitelib_body(), format="json")
    assert response.status_code == 200, response.json()
    assert len(identity.token_requests()) == 2


def test_a_root_site_url_resolves_the_hosts_root_site(admin_client, graph, estate):
    root = graph.add_site("/", "Contoso")
    graph.add_drive(root, "Documents")
    response = admin_client.post(URL, sitelib_body(site_urls=["https://contoso.sitelib.test"]), format="json")
    assert names(response) == ["Contoso"]
    assert len(graph.requests_to(r"/v1\.0/sites/contoso\.sitelib\.test$")) == 1
