"""The wiki client's reads for knowledge ingestion against the fake wiki, in the v2 API and in the
v1 API of an instance without v2: a space's pages, their bodies and attachments, and downloads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from integrations.errors import ContentTooLarge, VendorDenied, VendorNotFound, VendorUnavailable
from integrations.wikispace import WikiClient, WikiPage
from tests.fakes.wiki_content import FakeWikiContent

USER, TOKEN = "ada@acme.test", "wiki-token-1"
CREATED = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)  # when the fake's pages are first made
MB = 1024 * 1024

pytestmark = pytest.mark.usefixtures("private_ok")


@pytest.fixture(params=["v2", "v1"])
def wiki(request):
    with FakeWikiContent(v2=request.param == "v2", page_size=2) as fake:
        fake.add_user(USER, TOKEN)
        fake.add_user("bob@acme.test", "wiki-token-2")
        yield fake


@pytest.fixture
def eng(wiki):
    """ENG with five pages, and a page elsewhere that must never show up in ENG."""
    space = wiki.add_space("ENG", "Engineering")
    for number in range(1, 6):
        wiki.add_page(space, f"Runbook {number}", f"<p>Step {number}</p>")
    wiki.add_page(wiki.add_space("OPS", "Operations"), "Elsewhere", "<p>not ENG</p>")
    return space


def client_for(wiki, *, username=USER, token=TOKEN) -> WikiClient:
    return WikiClient(base_url=wiki.instance_url, username=username, api_token=token)


@pytest.fixture
def client(wiki):
    with client_for(wiki) as client:
        yield client


def page_titled(client, title: str, space_key: str = "ENG") -> WikiPage:
    return next(page for page in client.space_pages(space_key) if page.title == title)


# ---- pages
def test_it_lists_every_current_page_of_the_space_across_listing_pages(client, wiki, eng):
    pages = client.space_pages("ENG")
    assert [page.title for page in pages] == [f"Runbook {n}" for n in range(1, 6)]
    first = pages[0]
    assert first == WikiPage(
        id=first.id,
        title="Runbook 1",
        space_key="ENG",
        version=1,
        modified=CREATED,
        web_path=f"/spaces/ENG/pages/{first.id}",
    )
    listing = r"/wiki/api/v2/spaces/[0-9]+/pages$" if wiki.v2 else r"/wiki/rest/api/content$"
    assert len(wiki.requests_to(listing)) == 3  # five pages, two an answer


def test_a_deleted_page_leaves_the_listing(client, wiki, eng):
    gone = page_titled(client, "Runbook 2")
    wiki.delete_page(gone.id)
    assert "Runbook 2" not in [page.title for page in client.space_pages("ENG")]


def test_an_unknown_space_is_not_found(client, eng):
    with pytest.raises(VendorNotFound, match="no space 'NOPE'"):
        client.space_pages("NOPE")


def test_a_space_hidden_from_the_account_is_not_found(client, wiki):
    secret = wiki.add_space("~bob", "Bob", type="personal", visible_to={"bob@acme.test"})
    wiki.add_page(secret, "Diary", "<p>private</p>")
    with pytest.raises(VendorNotFound, match="no space '~bob'"):
        client.space_pages("~bob")
    with client_for(wiki, username="bob@acme.test", token="wiki-token-2") as bobs:
        assert [page.title for page in bobs.space_pages("~bob")] == ["Diary"]


def test_a_wrong_api_token_is_denied(wiki, eng):
    with client_for(wiki, token="nope") as client, pytest.raises(VendorDenied):
        client.space_pages("ENG")


# ---- bodies
def test_the_body_of_a_page_is_its_storage_format(client, eng):
    assert client.page_body(page_titled(client, "Runbook 3")) == "<p>Step 3</p>"


def test_an_edited_page_has_a_new_version_and_the_new_body(client, wiki, eng):
    before = page_titled(client, "Runbook 1")
    wiki.edit_page(before.id, body="<p>Step 1, revised</p>", title="Runbook one")
    after = page_titled(client, "Runbook one")
    assert (after.id, after.version) == (before.id, 2)
    assert after.modified.tzinfo == UTC and abs(after.modified - datetime.now(UTC)) < timedelta(minutes=1)
    assert client.page_body(after) == "<p>Step 1, revised</p>"


def test_the_body_of_a_deleted_page_is_not_found(client, wiki, eng):
    page = page_titled(client, "Runbook 4")
    wiki.delete_page(page.id)
    with pytest.raises(VendorNotFound):
        client.page_body(page)


def test_a_failing_body_read_is_unavailable_and_asked_once(client, wiki, eng):
    page = page_titled(client, "Runbook 5")
    wiki.failing_bodies.add(page.id)
    with pytest.raises(VendorUnavailable):
        client.page_body(page)
    assert wiki.body_requests(page.id) == 1


def test_a_fresh_client_reads_a_known_page_without_listing_first(wiki, eng):
    with client_for(wiki) as lister:
        page = page_titled(lister, "Runbook 2")
    with client_for(wiki) as reader:
        assert reader.page_body(page) == "<p>Step 2</p>"
        assert reader.page_attachments(page) == []


# ---- attachments
@pytest.fixture
def runbook(client, wiki, eng) -> WikiPage:
    """Runbook 1 with three files: a replaced PDF, a PNG, and one since deleted."""
    page = page_titled(client, "Runbook 1")
    pdf = wiki.add_attachment(page.id, "steps v1.pdf", b"%PDF-1.7 old", "application/pdf")
    wiki.add_attachment(page.id, "diagram.png", b"\x89PNG" + b"\0" * 60, "image/png")
    wiki.replace_attachment(pdf["id"], b"%PDF-1.7 the new steps")
    wiki.delete_attachment(wiki.add_attachment(page.id, "old.txt", b"stale", "text/plain")["id"])
    wiki.add_attachment(page.id, "notes.txt", b"plain notes", "text/plain")
    return page


def test_attachments_are_listed_with_their_sizes_and_versions(client, wiki, runbook):
    found = {a.title: a for a in client.page_attachments(runbook)}
    assert sorted(found) == ["diagram.png", "notes.txt", "steps v1.pdf"]  # two listing pages
    pdf = found["steps v1.pdf"]
    assert (pdf.page_id, pdf.media_type, pdf.size, pdf.version) == (
        runbook.id,
        "application/pdf",
        len(b"%PDF-1.7 the new steps"),
        2,
    )
    assert (found["diagram.png"].size, found["diagram.png"].version) == (64, 1)
    assert abs(pdf.modified - datetime.now(UTC)) < timedelta(minutes=1)
    assert pdf.web_path.endswith(f"?preview=/{runbook.id}/{pdf.id}/steps%20v1.pdf")


def test_an_attachment_downloads_as_its_current_bytes(client, wiki, runbook):
    found = {a.title: a for a in client.page_attachments(runbook)}
    pdf = found["steps v1.pdf"]
    assert client.attachment_content(pdf, max_bytes=MB, timeout_s=10) == b"%PDF-1.7 the new steps"
    assert wiki.download_requests(pdf.id) == 1
    assert wiki.requests_to("/download/")[0].headers["Authorization"].startswith("Basic ")


def test_a_download_past_the_limit_is_content_too_large(client, runbook):
    png = next(a for a in client.page_attachments(runbook) if a.title == "diagram.png")
    with pytest.raises(ContentTooLarge):
        client.attachment_content(png, max_bytes=63, timeout_s=10)


def test_a_download_with_a_wrong_token_is_denied(client, wiki, runbook):
    notes = next(a for a in client.page_attachments(runbook) if a.title == "notes.txt")
    with client_for(wiki, token="nope") as intruder, pytest.raises(VendorDenied):
        intruder.attachment_content(notes, max_bytes=MB, timeout_s=10)


def test_a_failing_download_is_unavailable(client, wiki, runbook):
    notes = next(a for a in client.page_attachments(runbook) if a.title == "notes.txt")
    wiki.failing_downloads.add(notes.id)
    with pytest.raises(VendorUnavailable):
        client.attachment_content(notes, max_bytes=MB, timeout_s=10)


def test_the_attachments_of_a_deleted_page_are_not_found(client, wiki, runbook):
    wiki.delete_page(runbook.id)
    with pytest.raises(VendorNotFound):
        client.page_attachments(runbook)


# ---- the API version
def test_the_api_version_is_learnt_once_per_client(client, wiki, eng):
    pages = client.space_pages("ENG")
    client.page_body(pages[0])
    client.page_attachments(pages[0])
    assert [space.key for space in client.spaces()] == ["ENG", "OPS"]
    if wiki.v2:
        assert wiki.requests_to(r"/wiki/rest/api/") == []
    else:
        assert len(wiki.requests_to(r"/wiki/api/v2/")) == 1
