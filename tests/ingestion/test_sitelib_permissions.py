"""Who may read each document-site file (DESIGN §19), as a run captures it from the platform's
permissions: restricted, inherited, shared with everyone and shared by link; a file whose
permissions the platform will not list; the groups a person belongs to; how few requests it takes
(JSON batches of 20, counted on the fake); and, end to end, a restricted file found by its readers
only until a permissions pass sees the restriction lifted.

What a site gives its files by default (tests/fakes/graph_permissions.py): the site is connected to
a directory group, "Handbook Members", whose members may edit everything in it, and its owners are
the site group "Handbook Owners"; a file inherits both from its folders, its library and its site.
The platform does not say who is in a site group, so that one admits nobody."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.audit import system_actor
from core.models import Role
from ingestion.models import SyncConfiguration, SyncRun
from ingestion.pipeline.run import PERMISSIONS_BATCH, sync_run_execute
from ingestion.pipeline.sources.sitelib import SitelibSource
from ingestion.services.runs import sync_run_queue
from integrations.errors import VendorUnavailable
from knowledge.models import Chunk, Document
from tests import factories
from tests.fakes.server import Reply
from tests.ingestion.callers import agent_for, agent_sees
from tests.ingestion.conftest import DOMAIN
from tests.ingestion.platforms import failed_files
from tests.ingestion.runs import search_titles, wait_for_run
from toolhub.services.connections import connection_create


@pytest.fixture(autouse=True)
def _drop_queued_messages():
    yield
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


@pytest.fixture
def site(graph):
    site = graph.add_site("/sites/handbook", "Handbook")
    return site, graph.add_drive(site, "Documents")


def add(graph, drive, name: str, *, parent=None) -> dict:
    return graph.add_file(drive, name, f"{name} says hello to its readers.".encode(), parent=parent)


def configure(tenant, site) -> SyncConfiguration:
    return SyncConfiguration.objects.create(
        tenant=tenant,
        platform="sitelib",
        name="handbook",
        integration_id=f"sitelib-{DOMAIN}",
        platform_domain=DOMAIN,
        scope={"site_urls": [site.web_url], "sub_sites": [], "drives": [], "folders": [], "pages": []},
        content_restriction={"audience": ["all"]},
    )


def run_now(configuration, *, incremental=False) -> SyncRun:
    run = sync_run_queue(
        configuration=configuration, kind="ingest", incremental=incremental, actor=system_actor("tests")
    )
    assert sync_run_execute(run_id=str(run.id)) is None
    run.refresh_from_db()
    return run


def discovered(configuration) -> dict[str, tuple]:
    """file name -> (readers, why none) as a full discovery finds them (what a permissions pass
    reads), fetching no content."""
    source = SitelibSource(configuration)
    try:
        found = source.discover(incremental=False, since=None, tokens={})
    finally:
        source.close()
    return {item.name: (item.readers, item.readers_error) for item in found.items}


def stored_readers() -> dict[str, list[str]]:
    return dict(Document.objects.values_list("title", "readers"))


def group(g: dict) -> str:
    return f"group:sitelib:{g['id']}"


# ---- what a run stores


def test_a_run_stores_the_readers_the_platform_grants_each_file(tenant, app_registration, graph, site):
    handbook, drive = site
    members = group(handbook.members)
    hr_team = graph.add_group("HR Team", members=["hana@contoso.test"])
    hr = graph.add_folder(drive, "HR")
    reviews = graph.add_folder(drive, "Reviews", parent=hr)
    add(graph, drive, "Welcome.txt")
    add(graph, drive, "Salaries.txt", parent=hr)
    add(graph, drive, "Review.txt", parent=reviews)
    board = add(graph, drive, "Board.txt")
    news = add(graph, drive, "News.txt")
    flyer = add(graph, drive, "Flyer.txt")
    plan = add(graph, drive, "Plan.txt")
    graph.restrict(drive, hr, groups=[hr_team], users=["Payroll@Contoso.test"])
    graph.add_user("ceo@contoso.test", upn="c.eo@contoso.onmicrosoft.com")
    graph.restrict(drive, board, users=["ceo@contoso.test"])
    graph.share_link(drive, news, "organization")
    graph.share_link(drive, flyer, "anonymous")
    graph.share_link(drive, plan, "users", users=["ann@contoso.test", "bob@contoso.test"])

    run = run_now(configure(tenant, handbook))

    assert run.succeeded == 7
    assert stored_readers() == {
        "Welcome.txt": [members],  # inherited from the site; its owners' site group admits nobody
        "Salaries.txt": [group(hr_team), "user:payroll@contoso.test"],  # inherited from HR/
        "Review.txt": [group(hr_team), "user:payroll@contoso.test"],  # from HR/, two levels up
        "Board.txt": ["user:c.eo@contoso.onmicrosoft.com", "user:ceo@contoso.test"],  # e-mail and UPN
        "News.txt": ["everyone", members],  # a link for the whole organisation
        "Flyer.txt": ["everyone", members],  # a link for anyone
        "Plan.txt": [members, "user:ann@contoso.test", "user:bob@contoso.test"],  # a link for two
    }


def test_a_file_whose_permissions_cannot_be_read_has_no_readers_and_says_why(
    tenant, app_registration, graph, site
):
    handbook, drive = site
    for name, status in {"Denied.txt": 403, "Gone.txt": 404, "Broken.txt": 500}.items():
        graph.fail_permissions(add(graph, drive, name), status)
    add(graph, drive, "Fine.txt")

    found = discovered(configure(tenant, handbook))

    assert found["Fine.txt"] == ((group(handbook.members),), "")
    for name in ("Denied.txt", "Gone.txt", "Broken.txt"):
        readers, why = found[name]
        assert readers is None and why.startswith("The platform would not list the file's permissions")
    assert "(403)" in found["Denied.txt"][1] and "(500)" in found["Broken.txt"][1]


def test_a_throttled_permissions_read_inside_a_batch_is_retried_after_its_retry_after(
    tenant, app_registration, graph, site
):
    handbook, drive = site
    files = [add(graph, drive, f"Note {n}.txt") for n in range(3)]
    throttled = Reply(
        429, {"error": {"code": "TooManyRequests", "message": "Slow down"}}, {"Retry-After": "0"}
    )
    graph.queue_reply(throttled, path=rf"/items/{files[1]['id']}/permissions$")

    found = discovered(configure(tenant, handbook))

    assert {readers for readers, _ in found.values()} == {(group(handbook.members),)}
    asked = [r.path.split("/")[-2] for r in graph.permission_requests()]
    assert sorted(asked) == sorted([files[0]["id"], files[1]["id"], files[1]["id"], files[2]["id"]])


# ---- how many requests


def test_permissions_are_read_in_json_batches_of_at_most_20(tenant, app_registration, graph, site):
    handbook, drive = site
    for n in range(45):
        add(graph, drive, f"Note {n:02d}.txt")

    run = run_now(configure(tenant, handbook))

    assert run.succeeded == 45
    assert len(graph.permission_requests()) == 45  # one read per file, every one inside a batch
    assert [r for r in graph.permission_requests() if r.peer is not None] == []
    assert sorted(len(b.json()["requests"]) for b in graph.permission_batches()) == [5, 20, 20]


def test_an_incremental_run_reads_the_permissions_of_the_changed_files_only(
    tenant, app_registration, graph, site
):
    handbook, drive = site
    files = [add(graph, drive, f"Note {n}.txt") for n in range(5)]
    configuration = configure(tenant, handbook)
    run_now(configuration)
    before = len(graph.permission_requests())
    graph.modify_file(drive, files[2], b"Note 2 now says something else.")

    run_now(configuration, incremental=True)

    asked = graph.permission_requests()[before:]
    assert [r.path.split("/")[-2] for r in asked] == [files[2]["id"]]


# ---- a change upstream


def test_a_permissions_pass_sees_a_restriction_lifted_upstream_without_downloading(
    tenant, app_registration, graph, site
):
    handbook, drive = site
    secret = add(graph, drive, "Secret.txt")
    graph.restrict(drive, secret, users=["ceo@contoso.test"])
    configuration = configure(tenant, handbook)
    run_now(configuration)
    assert stored_readers() == {"Secret.txt": ["user:ceo@contoso.test"]}
    downloads = len(graph.downloads())

    graph.lift_restriction(drive, secret)

    assert discovered(configuration) == {"Secret.txt": ((group(handbook.members),), "")}
    assert downloads > 0 and len(graph.downloads()) == downloads


def test_a_permissions_pass_over_several_transactions_gives_each_file_its_readers_once(
    tenant, app_registration, graph, site
):
    handbook, drive = site
    files = [add(graph, drive, f"Note {n:03d}.txt") for n in range(2 * PERMISSIONS_BATCH + 30)]
    configuration = configure(tenant, handbook)
    run_now(configuration)
    restricted, denied = files[5], files[PERMISSIONS_BATCH + 7]
    graph.restrict(drive, restricted, users=["ceo@contoso.test"])
    graph.fail_permissions(denied, 403)
    downloads = len(graph.downloads())

    permissions = sync_run_queue(
        configuration=configuration, kind="permissions", incremental=False, actor=system_actor("tests")
    )
    with CaptureQueriesContext(connection) as statements:
        assert sync_run_execute(run_id=str(permissions.id)) is None
    permissions.refresh_from_db()

    # Recorded by the batch: about one statement a file (its failed-file record's removal).
    assert len(statements) <= 1.5 * len(files)
    counts = (permissions.processed, permissions.succeeded, permissions.skipped, permissions.failed)
    assert counts == (len(files), 1, len(files) - 2, 1)
    assert sorted(permissions.items.values_list("item_key", flat=True)) == sorted(
        f"{drive.id}/{f['id']}" for f in files
    )
    readers = stored_readers()
    assert readers.pop(restricted["name"]) == ["user:ceo@contoso.test"]
    assert readers.pop(denied["name"]) == []
    assert set(map(tuple, readers.values())) == {(group(handbook.members),)}
    assert len(graph.downloads()) == downloads


# ---- a person's groups


def test_member_groups_are_the_directory_groups_of_the_person_nested_ones_included(
    tenant, app_registration, graph, site
):
    handbook, _ = site
    ann = graph.add_user("ann@contoso.test", upn="ann.lee@contoso.onmicrosoft.com", roles=["Global Reader"])
    finance = graph.add_group("Finance", members=[ann])
    managers = graph.add_group("Managers", members=[finance])
    everyone_else = graph.add_group("Sales", members=["bob@contoso.test"])
    graph.add_member(handbook.members, managers)
    graph.page_size = 2  # three groups and a directory role: two pages
    source = SitelibSource(configure(tenant, handbook))
    try:
        by_upn = source.member_groups("ann.lee@contoso.onmicrosoft.com")
        by_mail = source.member_groups("Ann@Contoso.test")  # not her UPN: found by her e-mail
        stranger = source.member_groups("nobody@contoso.test")
    finally:
        source.close()
    assert by_upn == by_mail == {group(finance), group(managers), group(handbook.members)}
    assert group(everyone_else) not in by_upn
    assert stranger == set()


def test_member_groups_raise_when_the_directory_cannot_answer(tenant, app_registration, graph, site):
    handbook, _ = site
    graph.add_user("ann@contoso.test")
    graph.queue_reply(
        Reply(500, {"error": {"code": "generalException", "message": "Oops"}}),
        path="transitiveMemberOf",
        times=10,
    )
    source = SitelibSource(configure(tenant, handbook))
    try:
        with pytest.raises(VendorUnavailable):
            source.member_groups("ann@contoso.test")
    finally:
        source.close()


# ---- end to end: through the API, a worker, search and an agent


PAYROLL = "sparrow day salaries"


@pytest.mark.django_db(transaction=True)
def test_a_restricted_file_is_found_by_its_readers_only_until_a_pass_lifts_it(
    client_for, tenant, app_registration, graph, site, finished_runs, celery_worker_thread
):
    handbook, drive = site
    connection_create(
        tenant=tenant,
        actor=system_actor("tests"),
        name="Knowledge",
        domain="knowledge",
        connector="knowledge",
    )
    anna, bob = graph.add_user("anna@acme.test"), graph.add_user("bob@acme.test")
    finance = graph.add_group("Finance", members=[anna])
    for person in (anna, bob):  # both may read what the site gives its members
        graph.add_member(handbook.members, person)
    add(graph, drive, "Welcome.txt")
    payroll_file = graph.add_file(drive, "Payroll.txt", b"Salaries are paid on the sparrow day.")
    graph.restrict(drive, payroll_file, groups=[finance])
    denied = add(graph, drive, "Denied.txt")
    graph.fail_permissions(denied, 403)
    integrator = factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="integrator")
    admin_api = client_for(integrator, tenant)

    response = admin_api.post("/v2/sitelib/upload", sitelib_upload(tenant, handbook), format="json")
    assert response.status_code == 202, response.json()
    run = wait_for_run(admin_api, finished_runs, response.json()["data"]["sync_run_id"])
    assert (run["status"], run["succeeded"], run["failed"]) == ("partial", 2, 1), run
    assert failed_files(admin_api, tenant, "sitelib") == {f"{drive.id}/{denied['id']}": ("ACCESS_DENIED", 1)}

    anna_user = factories.make_user(
        tenant, [Role.INTEGRATION_VIEWER], username="anna", email="anna@acme.test"
    )
    bob_user = factories.make_user(tenant, [Role.TENANT_ADMIN], username="bob", email="bob@acme.test")
    _, reader_key = factories.make_api_key(tenant, ["knowledge:read"])
    _, all_key = factories.make_api_key(tenant, ["knowledge:read", "knowledge:all"])
    bobs_agent = agent_for(client_for, tenant, bob_user, client_for(bob_user, tenant))
    payroll = Document.objects.get(title="Payroll.txt")

    def found(principal) -> bool:
        return search_titles(client_for(principal, tenant), tenant, PAYROLL) == ["Payroll.txt"]

    assert found(anna_user) and found(all_key)  # in Finance on the platform; knowledge:all
    assert agent_sees(bobs_agent, PAYROLL, payroll) == (False, False)  # neither searched nor read
    assert not found(bob_user) and not found(reader_key)
    denied_words = "Denied.txt says hello"  # no readers: knowledge:all callers only
    assert search_titles(client_for(all_key, tenant), tenant, denied_words) == ["Denied.txt"]
    assert search_titles(client_for(anna_user, tenant), tenant, denied_words) != ["Denied.txt"]

    chunks_before = set(Chunk.objects.filter(document=payroll).values_list("id", flat=True))
    downloads_before = len(graph.downloads())
    graph.lift_restriction(drive, payroll_file)  # Payroll.txt inherits the site's members again
    response = admin_api.post(f"/v2/sync-configurations/{run['sync_configuration_id']}/permissions-sync")
    assert response.status_code == 202 and response.json()["message"] == "Permissions pass started"
    passed = wait_for_run(admin_api, finished_runs, response.json()["data"]["sync_run_id"])
    assert (passed["kind"], passed["status"], passed["chunks_written"]) == ("permissions", "partial", 0)
    assert passed["succeeded"] == 1 and passed["failed"] == 1  # Payroll.txt's new readers; Denied.txt

    assert agent_sees(bobs_agent, PAYROLL, payroll) == (True, True)
    assert found(bob_user) and found(anna_user)
    assert not found(reader_key)
    assert len(graph.downloads()) == downloads_before > 0  # nothing downloaded again
    assert set(Chunk.objects.filter(document=payroll).values_list("id", flat=True)) == chunks_before


def sitelib_upload(tenant, site) -> dict:
    return {
        "sitelib_auth": False,
        "content_restriction": {"audience": ["all"], "blacklisted": False, "source_restriction": False},
        "vectordb_config": {"platform_domain": DOMAIN, "tenant_id": str(tenant.id)},
        "sync_config": {
            "sync_configuration_id": "",
            "incremental": False,
            "last_sync": "",
            "processor_mode": "auto",
            "use_ocr": False,
        },
        "job_id": "",
        "site_urls": [site.web_url],
        "drives": [],
        "folders": [],
        "pages": [],
        "sub_sites": [],
    }
