"""The ITSM client's knowledge reads against the fake instance over HTTPS: published articles of
chosen knowledge bases, articles by id in batches, their attachments and bounded downloads, with
each way of signing in."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from integrations.errors import ContentTooLarge, VendorDenied, VendorNotFound, VendorUnavailable
from integrations.itsm import ARTICLE_BASE_FIELDS, ArticleAttachment, ItsmClient, ItsmCredentials
from tests.fakes.itsm_content import FakeItsmContent

TOKEN = "itsm-token-1"
PDF = "application/pdf"

pytestmark = pytest.mark.usefixtures("private_ok")


@pytest.fixture
def itsm(settings):
    with FakeItsmContent() as fake:
        fake.users["svc.kb"] = "itsm-password-1"
        fake.clients["kb-client"] = "kb-client-secret"
        fake.bearer(TOKEN)
        settings.OUTBOUND_CA_BUNDLE = fake.ca_file
        yield fake


@pytest.fixture
def client(itsm):
    with ItsmClient(instance=itsm.domain, access_token=TOKEN) as client:
        yield client


@pytest.fixture
def bases(itsm):
    return itsm.add_kb("IT"), itsm.add_kb("HR")


def sent_queries(itsm, path=r"/api/now/table/kb_knowledge$") -> list[str]:
    return [r.query["sysparm_query"][0] for r in itsm.requests_to(path)]


def test_it_reads_the_published_articles_of_the_chosen_knowledge_bases(client, itsm, bases):
    it, hr = bases
    vpn = itsm.add_article(it, "VPN from home", "Install the client.")
    itsm.add_article(hr, "Leave", "Twenty days.")
    [article] = client.articles(knowledge_bases=[it.sys_id])
    assert (article.sys_id, article.number, article.title) == (vpn["sys_id"], vpn["number"], "VPN from home")
    assert article.number.startswith("KB00100") and article.knowledge_base == it.sys_id
    stamp = datetime.strptime(vpn["sys_updated_on"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    assert article.updated == stamp and article.updated.tzinfo is not None
    assert sorted(article.fields) == sorted(ARTICLE_BASE_FIELDS)  # no text unless asked for
    assert sent_queries(itsm) == [f"workflow_state=published^kb_knowledge_baseIN{it.sys_id}"]


def test_no_knowledge_base_named_reads_every_knowledge_base(client, itsm, bases):
    it, hr = bases
    itsm.add_article(it, "VPN", "a")
    itsm.add_article(hr, "Leave", "b")
    assert [a.title for a in client.articles(knowledge_bases=[])] == ["VPN", "Leave"]
    assert sent_queries(itsm) == ["workflow_state=published"]


def test_unpublished_articles_are_left_out(client, itsm, bases):
    it, _ = bases
    itsm.add_article(it, "Draft", "a", workflow_state="draft")
    retired = itsm.add_article(it, "Old", "b")
    itsm.retire_article(retired["sys_id"])
    itsm.add_article(it, "Live", "c")
    assert [a.title for a in client.articles(knowledge_bases=[it.sys_id])] == ["Live"]


def test_it_pages_past_one_page(client, itsm, bases):
    it, _ = bases
    itsm.page_size = 2
    for n in range(5):
        itsm.add_article(it, f"Article {n}", "x")
    assert len(client.articles(knowledge_bases=[it.sys_id])) == 5
    offsets = [r.query["sysparm_offset"][0] for r in itsm.requests_to(r"/api/now/table/kb_knowledge$")]
    assert offsets == ["0", "2", "4"]


def test_it_returns_every_field_asked_for_as_text(client, itsm, bases):
    it, _ = bases
    itsm.add_article(it, "VPN", "<p>Install</p>", can_read_user_criteria="crit-a,crit-b", u_market="EU")
    fields = ["text", "can_read_user_criteria", "u_market", "number"]
    [article] = client.articles(knowledge_bases=[it.sys_id], fields=fields)
    assert article.fields["text"] == "<p>Install</p>"
    assert article.fields["can_read_user_criteria"] == "crit-a,crit-b" and article.fields["u_market"] == "EU"
    sent = itsm.requests_to(r"/api/now/table/kb_knowledge$")[0].query["sysparm_fields"][0]
    assert sent.split(",") == [*ARTICLE_BASE_FIELDS, "text", "can_read_user_criteria", "u_market"]


def test_it_reads_articles_by_id_at_most_a_hundred_a_request(client, itsm, bases):
    it, _ = bases
    ids = [itsm.add_article(it, f"Article {n}", f"body {n}")["sys_id"] for n in range(250)]
    articles = client.articles_by_id([*ids, "0" * 32], fields=["text"])
    assert sorted(a.sys_id for a in articles) == sorted(ids)  # the unknown id is simply absent
    assert {a.fields["text"] for a in articles} == {f"body {n}" for n in range(250)}
    batches = [q.removeprefix("sys_idIN").split(",") for q in sent_queries(itsm)]
    assert [len(batch) for batch in batches] == [100, 100, 51]
    assert sorted(itsm.fetched_article_ids()) == sorted(ids)


def test_articles_by_id_are_read_whatever_their_state(client, itsm, bases):
    it, _ = bases
    retired = itsm.add_article(it, "Old", "b")
    itsm.retire_article(retired["sys_id"])
    [article] = client.articles_by_id([retired["sys_id"]], fields=["workflow_state"])
    assert article.fields["workflow_state"] == "retired"


def test_ids_that_are_not_plain_tokens_never_reach_the_query(client, itsm, bases):
    it, _ = bases
    vpn = itsm.add_article(it, "VPN", "a")
    found = client.articles_by_id([vpn["sys_id"], "x^ORsys_id!=y", "a,b", vpn["sys_id"]], fields=[])
    assert [a.sys_id for a in found] == [vpn["sys_id"]]
    assert sent_queries(itsm) == [f"sys_idIN{vpn['sys_id']}"]
    assert client.articles(knowledge_bases=["x^ORactive=true"]) == []  # never widened to every base
    assert len(itsm.requests_to(r"/api/now/table/kb_knowledge$")) == 1


def test_an_edit_is_a_later_update_even_within_the_same_second(client, itsm, bases):
    it, _ = bases
    vpn = itsm.add_article(it, "VPN", "old")
    [before] = client.articles_by_id([vpn["sys_id"]], fields=["text"])
    itsm.edit_article(vpn["sys_id"], text="new")
    [after] = client.articles_by_id([vpn["sys_id"]], fields=["text"])
    assert after.updated > before.updated and after.fields["text"] == "new"


def test_it_lists_the_attachments_of_the_articles_named(client, itsm, bases):
    it, _ = bases
    vpn, leave, bare = (itsm.add_article(it, t, "x") for t in ("VPN", "Leave", "Bare"))
    guide = itsm.add_attachment(vpn, "guide.pdf", b"%PDF-1.7 guide", PDF)
    itsm.add_attachment(leave, "form.docx", b"PK form", "application/octet-stream")
    found = client.article_attachments([vpn["sys_id"], bare["sys_id"]])
    stamp = datetime.strptime(guide["sys_updated_on"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    assert found == [ArticleAttachment(guide["sys_id"], vpn["sys_id"], "guide.pdf", PDF, 14, stamp)]
    assert sent_queries(itsm, r"/api/now/attachment$") == [
        f"table_name=kb_knowledge^table_sys_idIN{vpn['sys_id']},{bare['sys_id']}"
    ]


def test_attachments_are_read_in_batches_and_pages(client, itsm, bases):
    it, _ = bases
    itsm.page_size = 2
    articles = [itsm.add_article(it, f"Article {n}", "x") for n in range(101)]
    for article in articles[:3] + articles[-1:]:
        itsm.add_attachment(article, "a.txt", b"a", "text/plain")
    found = client.article_attachments([a["sys_id"] for a in articles])
    assert len(found) == 4
    # the first batch of 100 ids holds three files (two pages), the second one file (one page)
    offsets = [r.query["sysparm_offset"][0] for r in itsm.requests_to(r"/api/now/attachment$")]
    assert offsets == ["0", "2", "0"]


def test_it_downloads_an_attachment(client, itsm, bases):
    it, _ = bases
    guide = itsm.add_attachment(itsm.add_article(it, "VPN", "x"), "guide.pdf", b"%PDF-1.7 guide", PDF)
    [attachment] = client.article_attachments([guide["table_sys_id"]])
    assert client.attachment_content(attachment, max_bytes=1024, timeout_s=5) == b"%PDF-1.7 guide"
    assert itsm.download_requests(guide["sys_id"]) == 1
    assert itsm.received[-1].headers["Authorization"] == f"Bearer {TOKEN}"


def test_an_oversized_attachment_is_content_too_large(client, itsm, bases):
    it, _ = bases
    big = itsm.add_attachment(itsm.add_article(it, "VPN", "x"), "big.bin", b"x" * 2048, PDF)
    [attachment] = client.article_attachments([big["table_sys_id"]])
    with pytest.raises(ContentTooLarge):
        client.attachment_content(attachment, max_bytes=1024, timeout_s=5)


def test_a_failing_or_vanished_download_is_a_vendor_error(client, itsm, bases):
    it, _ = bases
    article = itsm.add_article(it, "VPN", "x")
    broken = itsm.add_attachment(article, "broken.pdf", b"x", PDF)
    gone = itsm.add_attachment(article, "gone.pdf", b"y", PDF)
    broken_one, gone_one = client.article_attachments([article["sys_id"]])
    itsm.failing_downloads.add(broken["sys_id"])
    itsm.delete_attachment(gone["sys_id"])
    with pytest.raises(VendorUnavailable):
        client.attachment_content(broken_one, max_bytes=1024, timeout_s=5)
    with pytest.raises(VendorNotFound):
        client.attachment_content(gone_one, max_bytes=1024, timeout_s=5)


def test_a_refresh_token_grant_signs_the_reads(itsm, bases):
    it, _ = bases
    itsm.refresh_tokens.add("refresh-1")
    guide = itsm.add_attachment(itsm.add_article(it, "VPN", "x"), "guide.pdf", b"guide", PDF)
    credentials = ItsmCredentials("svc.kb", "itsm-password-1", "kb-client", "kb-client-secret", "refresh-1")
    with ItsmClient(instance=itsm.domain, credentials=credentials) as client:
        assert [a.title for a in client.articles(knowledge_bases=[it.sys_id])] == ["VPN"]
        [attachment] = client.article_attachments([guide["table_sys_id"]])
        assert client.attachment_content(attachment, max_bytes=1024, timeout_s=5) == b"guide"
    assert [r.form()["grant_type"] for r in itsm.requests_to(r"/oauth_token\.do$")] == ["refresh_token"]


def test_basic_auth_signs_the_reads(itsm, bases):
    it, _ = bases
    guide = itsm.add_attachment(itsm.add_article(it, "VPN", "x"), "guide.pdf", b"guide", PDF)
    with ItsmClient(instance=itsm.domain, basic_auth=("svc.kb", "itsm-password-1")) as client:
        assert [a.title for a in client.articles_by_id([guide["table_sys_id"]], fields=[])] == ["VPN"]
        [attachment] = client.article_attachments([guide["table_sys_id"]])
        assert client.attachment_content(attachment, max_bytes=1024, timeout_s=5) == b"guide"
    assert itsm.requests_to(r"/oauth_token\.do$") == []
    assert all(r.headers["Authorization"].startswith("Basic ") for r in itsm.received)


def test_a_refused_token_is_vendor_denied(itsm, bases):
    it, _ = bases
    guide = itsm.add_attachment(itsm.add_article(it, "VPN", "x"), "guide.pdf", b"guide", PDF)
    with ItsmClient(instance=itsm.domain, access_token="revoked") as client:
        with pytest.raises(VendorDenied) as denied:
            client.articles(knowledge_bases=[it.sys_id])
        assert denied.value.status == 401 and denied.value.message == "User Not Authenticated"
        attachment = ArticleAttachment(guide["sys_id"], guide["table_sys_id"], "guide.pdf", PDF, 5, None)
        with pytest.raises(VendorDenied):
            client.attachment_content(attachment, max_bytes=1024, timeout_s=5)


def test_the_tool_hubs_search_still_answers_on_the_same_instance(client, itsm, bases):
    it, _ = bases
    itsm.add_article(it, "VPN from home", "Install the client.")
    itsm.add_article(it, "Leave", "Twenty days.")
    assert [row["short_description"] for row in client.knowledge_search(text="vpn", limit=5)] == [
        "VPN from home"
    ]
