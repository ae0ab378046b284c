"""Who may read what a wiki run ingests, in both API versions: who may view the space, narrowed by
the read restrictions of the page and of its ancestors, attachments as their page; a page whose
restrictions cannot be read has no readers and says why; the wiki's groups of a person; the
permissions of a whole space read in a few requests however many pages it has; and, end to end, a
restricted page found by its readers only until a permissions pass sees the restriction lifted."""

from __future__ import annotations

import pytest

from core.audit import system_actor
from core.models import Role
from ingestion.models import Platform, SyncRun
from ingestion.pipeline.run import sync_run_execute
from ingestion.pipeline.sources.wikispace import WikiSource
from ingestion.services.configurations import PlatformAccount, UploadRequest, upload
from integrations.errors import VendorDenied
from knowledge.models import Chunk, Document
from tests import factories
from tests.fakes.wiki_permissions import FakeWikiPermissions
from tests.ingestion.callers import agent_for, agent_sees
from tests.ingestion.platforms import DOMAIN, WIKI_TOKEN, WIKI_USER, failed_files, wiki_upload
from tests.ingestion.runs import search_titles, wait_for_run
from toolhub.services.connections import connection_create

ACTOR = system_actor("tests")


@pytest.fixture(autouse=True)
def _drop_queued_messages():
    yield
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


@pytest.fixture(params=["v2", "v1"])
def wiki(request, platforms_reachable):
    with FakeWikiPermissions(v2=request.param == "v2", page_size=100) as fake:
        fake.add_user(WIKI_USER, WIKI_TOKEN)
        yield fake


def queue_upload(tenant, wiki, space: str) -> SyncRun:
    request = UploadRequest(
        platform=Platform.WIKISPACE,
        platform_domain=DOMAIN,
        scope={"space": space},
        content_restriction={"audience": ["all"], "blacklisted": False, "source_restriction": True},
        use_ocr=False,
        processor_mode="auto",
        incremental=False,
        last_sync=None,
        sync_configuration_id=None,
        job_id=None,
        account=PlatformAccount(
            auth_type="basic_auth",
            metadata={"instance_url": wiki.instance_url, "username": WIKI_USER},
            secrets={"api_token": WIKI_TOKEN},
        ),
        name=f"wiki {space}",
    )
    return upload(tenant=tenant, upload=request, actor=ACTOR, request_id=None)


def run(queued: SyncRun) -> SyncRun:
    assert sync_run_execute(run_id=str(queued.id)) is None
    queued.refresh_from_db()
    return queued


def discovered(run: SyncRun) -> dict:
    """What a permissions pass sees: the configuration's discovery, nothing fetched."""
    source = WikiSource(run.configuration)
    try:
        items = source.discover(incremental=False, since=None, tokens={}).items
    finally:
        source.close()
    return {item.name: item for item in items}


def readers_by_title(tenant) -> dict[str, list[str]]:
    return {d.title: d.readers for d in Document.objects.filter(tenant=tenant, platform_type="wikispace")}


class Board:
    """A space viewed by the staff group and by Carol; board pages restricted within it."""

    def __init__(self, wiki: FakeWikiPermissions) -> None:
        self.alice = wiki.add_person("Alice@Acme.test", "Alice")  # staff and board
        self.bob = wiki.add_person("bob@acme.test", "Bob")  # board, but may not view the space
        self.carol = wiki.add_person("carol@acme.test", "Carol")  # the space names her
        self.dave = wiki.add_person("dave@acme.test", "Dave")  # staff
        self.erin = wiki.add_person("erin@acme.test", "Erin")  # the space names her, no page does
        self.staff, self.board = wiki.add_group("staff"), wiki.add_group("board")
        for person in (self.alice, self.dave):
            wiki.add_member(self.staff, person)
        for person in (self.alice, self.bob):
            wiki.add_member(self.board, person)
        space = wiki.add_space("HAND", "Handbook")
        wiki.grant_space(space, users=[self.carol, self.erin], groups=[self.staff])
        self.canteen = wiki.add_page(space, "Canteen", "<p>The canteen opens at eight.</p>")
        self.minutes = wiki.add_page(space, "Board minutes", "<p>The merger is confidential.</p>")
        wiki.restrict(self.minutes["id"], users=[self.alice, self.bob, self.carol], groups=[self.board])
        self.agenda = wiki.add_page(space, "Agenda", "<p>Item one.</p>", parent_id=self.minutes["id"])
        self.salaries = wiki.add_page(space, "Salaries", "<p>Pay bands.</p>", parent_id=self.minutes["id"])
        wiki.restrict(self.salaries["id"], users=[self.carol, self.dave], groups=[self.board])
        self.deck = wiki.add_attachment(self.minutes["id"], "deck.txt", b"Quarterly numbers.", "text/plain")


def test_a_run_stores_the_readers_the_wiki_grants(tenant, wiki):
    board = Board(wiki)
    open_space = wiki.add_space("OPEN", "Open")  # says nothing about who may view it
    wiki.add_page(open_space, "Lunch menu", "<p>Soup.</p>")

    first, second = run(queue_upload(tenant, wiki, "HAND")), run(queue_upload(tenant, wiki, "OPEN"))

    assert (first.status, first.succeeded, second.succeeded) == ("success", 5, 1)
    staff = f"group:wikispace:{board.staff}"
    assert readers_by_title(tenant) == {
        "Canteen": sorted([staff, "user:carol@acme.test", "user:erin@acme.test"]),  # the space's viewers
        # named or in the board group, and may view the space: Alice (staff) and Carol (named);
        # Bob may not view the space; the board group itself has no space permission
        "Board minutes": sorted(["user:alice@acme.test", "user:carol@acme.test"]),
        "deck.txt": sorted(["user:alice@acme.test", "user:carol@acme.test"]),  # as its page
        "Agenda": sorted(["user:alice@acme.test", "user:carol@acme.test"]),  # inherited
        # and also allowed here: Carol (named); Alice through the board group; Dave is not
        # allowed by the parent's restriction
        "Salaries": sorted(["user:alice@acme.test", "user:carol@acme.test"]),
        "Lunch menu": ["everyone"],
    }


def test_a_group_allowed_at_every_level_and_in_the_space_is_a_reader(tenant, wiki):
    board = Board(wiki)
    wiki.grant_space(next(s for s in wiki.spaces if s.key == "HAND"), groups=[board.board])
    wiki.restrict(board.minutes["id"], groups=[board.board])
    wiki.lift_restriction(board.salaries["id"])

    items = discovered(run(queue_upload(tenant, wiki, "HAND")))

    group = f"group:wikispace:{board.board}"
    assert items["Board minutes"].readers == (group,)
    assert items["Salaries"].readers == (group,)
    assert items["deck.txt"].readers == (group,)


def test_a_page_whose_restrictions_cannot_be_read_has_no_readers_and_says_why(tenant, wiki):
    board = Board(wiki)
    wiki.failing_restrictions.add(board.minutes["id"])

    items = discovered(run(queue_upload(tenant, wiki, "HAND")))

    for title in ("Board minutes", "deck.txt", "Agenda", "Salaries"):  # below it too
        assert items[title].readers is None
        assert "did not answer the read restrictions" in items[title].readers_error
        assert WIKI_TOKEN not in items[title].readers_error
    assert items["Canteen"].readers == tuple(
        sorted([f"group:wikispace:{board.staff}", "user:carol@acme.test", "user:erin@acme.test"])
    )


def test_a_space_open_to_anonymous_users_is_read_by_everyone(tenant, platforms_reachable):
    with FakeWikiPermissions(v2=False) as wiki:  # the v1 space permissions say `anonymousAccess`
        wiki.add_user(WIKI_USER, WIKI_TOKEN)
        board = Board(wiki)
        wiki.grant_space(next(s for s in wiki.spaces if s.key == "HAND"), anonymous=True)
        items = discovered(run(queue_upload(tenant, wiki, "HAND")))

    assert items["Canteen"].readers == ("everyone",)
    # a restriction still narrows it: anyone it names or whose group it names, Bob too now
    assert items["Board minutes"].readers == tuple(
        sorted(
            [
                "user:alice@acme.test",
                "user:bob@acme.test",
                "user:carol@acme.test",
                f"group:wikispace:{board.board}",
            ]
        )
    )


def test_a_reader_whose_email_the_wiki_hides_makes_the_page_unreadable_not_guessed(tenant, wiki):
    board = Board(wiki)
    wiki.hidden_emails.add(board.alice)

    finished = run(queue_upload(tenant, wiki, "HAND"))
    items = discovered(finished)

    assert items["Board minutes"].readers is None
    assert board.alice in items["Board minutes"].readers_error
    assert items["Canteen"].readers is not None  # Alice reads it through the staff group
    wiki.hidden_emails.add(board.erin)  # the space names her; her profile hides her address too
    assert discovered(finished)["Canteen"].readers is None


def test_a_restriction_longer_than_the_listing_shows_is_read_whole(tenant, wiki):
    board = Board(wiki)
    wiki.expansion_limit = 1  # the listing shows one user and one group, then a next link
    wiki.page_size = 2  # and the restriction's own read answers two of each at a time

    items = discovered(run(queue_upload(tenant, wiki, "HAND")))

    assert items["Board minutes"].readers == ("user:alice@acme.test", "user:carol@acme.test")
    asked = wiki.requests_to(rf"/content/{board.minutes['id']}/restriction/byOperation/read$")
    assert {r.query.get("start", ["0"])[0] for r in asked} == {"0", "2"}  # read on, two at a time


def test_a_lifted_restriction_shows_in_the_next_discovery_without_downloading_anything(tenant, wiki):
    board = Board(wiki)
    finished = run(queue_upload(tenant, wiki, "HAND"))
    downloads = wiki.content_downloads()
    assert downloads == 5

    wiki.lift_restriction(board.minutes["id"])
    items = discovered(finished)

    space_viewers = tuple(
        sorted([f"group:wikispace:{board.staff}", "user:carol@acme.test", "user:erin@acme.test"])
    )
    assert items["Board minutes"].readers == space_viewers
    assert items["Agenda"].readers == space_viewers
    assert wiki.content_downloads() == downloads


def test_the_permissions_of_a_space_cost_the_same_requests_for_four_pages_as_for_forty(tenant, wiki):
    board = Board(wiki)
    finished = run(queue_upload(tenant, wiki, "HAND"))
    wiki.received.clear()
    discovered(finished)
    few = len(wiki.permission_requests())

    space = next(s for s in wiki.spaces if s.key == "HAND")
    for n in range(36):
        page = wiki.add_page(space, f"Note {n}", "<p>n</p>", parent_id=board.minutes["id"] if n % 2 else None)
        if n % 3 == 0:
            wiki.restrict(page["id"], users=[board.alice, board.carol], groups=[board.staff])
    wiki.received.clear()
    items = discovered(finished)

    assert len(items) == 41 and all(item.readers is not None for item in items.values())
    assert len(wiki.permission_requests()) == few <= 6


def test_member_groups_are_the_wiki_groups_of_the_person_with_that_email(tenant, wiki):
    board = Board(wiki)
    source = WikiSource(run(queue_upload(tenant, wiki, "HAND")).configuration)
    try:
        assert source.member_groups("alice@acme.test") == {
            f"group:wikispace:{board.staff}",
            f"group:wikispace:{board.board}",
        }
        assert source.member_groups("carol@acme.test") == set()  # in no group
        assert source.member_groups("nobody@acme.test") == set()  # no such account
        wiki.hidden_emails.add(board.bob)
        assert source.member_groups("bob@acme.test") == set()  # the wiki does not show it is Bob
    finally:
        source.close()


def test_member_groups_raise_the_wikis_refusal(tenant, wiki):
    Board(wiki)
    source = WikiSource(run(queue_upload(tenant, wiki, "HAND")).configuration)
    wiki.forbidden.add(WIKI_USER)
    try:
        with pytest.raises(VendorDenied):
            source.member_groups("alice@acme.test")
    finally:
        source.close()


# ---- end to end: through the API, a worker, search and an agent


PAYROLL = "sparrow day salaries"


@pytest.mark.django_db(transaction=True)
def test_a_restricted_page_is_found_by_its_readers_only_until_a_pass_lifts_it(
    client_for, tenant, wiki, finished_runs, celery_worker_thread
):
    connection_create(tenant=tenant, actor=ACTOR, name="Knowledge", domain="knowledge", connector="knowledge")
    anna, bob = wiki.add_person("anna@acme.test", "Anna"), wiki.add_person("bob@acme.test", "Bob")
    staff, finance = wiki.add_group("staff"), wiki.add_group("finance")
    for person in (anna, bob):
        wiki.add_member(staff, person)
    wiki.add_member(finance, anna)
    space = wiki.add_space("HAND", "Handbook")
    wiki.grant_space(space, groups=[staff, finance])  # a group must view the space to be a reader
    wiki.add_page(space, "Canteen", "<p>The canteen opens at eight.</p>")
    page = wiki.add_page(space, "Payroll calendar", "<p>Salaries are paid on the sparrow day.</p>")
    wiki.restrict(page["id"], groups=[finance])
    denied = wiki.add_page(space, "Vault", "<p>The vault room keeps the contracts.</p>")
    wiki.failing_restrictions.add(denied["id"])
    integrator = factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator")
    admin_api = client_for(integrator, tenant)

    response = admin_api.post("/v2/wikispace/upload", wiki_upload(tenant, wiki, "HAND"), format="json")
    assert response.status_code == 202, response.json()
    run = wait_for_run(admin_api, finished_runs, response.json()["data"]["sync_run_id"], "wikispace")
    assert (run["status"], run["succeeded"], run["failed"]) == ("partial", 2, 1), run
    [(key, failure)] = failed_files(admin_api, tenant, "wikispace").items()
    assert key.endswith(f"/pages/{denied['id']}") and failure == ("ACCESS_DENIED", 1)

    anna_user = factories.make_user(
        tenant, [Role.INTEGRATION_VIEWER], username="anna", email="anna@acme.test"
    )
    bob_user = factories.make_user(tenant, [Role.TENANT_ADMIN], username="bob", email="bob@acme.test")
    _, reader_key = factories.make_api_key(tenant, ["knowledge:read"])
    _, all_key = factories.make_api_key(tenant, ["knowledge:read", "knowledge:all"])
    bobs_agent = agent_for(client_for, tenant, bob_user, client_for(bob_user, tenant))
    payroll = Document.objects.get(title="Payroll calendar")

    def found(principal, words: str = PAYROLL, title: str = "Payroll calendar") -> bool:
        return search_titles(client_for(principal, tenant), tenant, words) == [title]

    assert found(anna_user) and found(all_key)  # in the finance group of the wiki; knowledge:all
    assert agent_sees(bobs_agent, PAYROLL, payroll) == (False, False)  # neither searched nor read
    assert not found(bob_user) and not found(reader_key)
    vault = "vault room contracts"  # no readers: knowledge:all callers only
    assert found(all_key, vault, "Vault") and not found(anna_user, vault, "Vault")

    chunks_before = set(Chunk.objects.filter(document=payroll).values_list("id", flat=True))
    downloads_before = wiki.content_downloads()
    wiki.lift_restriction(page["id"])  # the payroll calendar is the space's again
    response = admin_api.post(f"/v2/sync-configurations/{run['sync_configuration_id']}/permissions-sync")
    assert response.status_code == 202 and response.json()["message"] == "Permissions pass started"
    passed = wait_for_run(admin_api, finished_runs, response.json()["data"]["sync_run_id"], "wikispace")
    assert (passed["kind"], passed["status"], passed["chunks_written"]) == ("permissions", "partial", 0)
    assert passed["succeeded"] == 1 and passed["failed"] == 1  # the calendar's new readers; Vault

    assert agent_sees(bobs_agent, PAYROLL, payroll) == (True, True)
    assert found(bob_user) and found(anna_user)
    assert not found(reader_key)
    assert wiki.content_downloads() == downloads_before > 0  # nothing downloaded again
    assert set(Chunk.objects.filter(document=payroll).values_list("id", flat=True)) == chunks_before
