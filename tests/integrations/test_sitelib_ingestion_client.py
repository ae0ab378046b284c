"""The sitelib client's ingestion reads against the fake platform: walking drives and folders, the
change feed, and downloads with every way they fail."""

from __future__ import annotations

import logging
import socket
from datetime import UTC, datetime

import pytest

from core.outbound import OutboundRefused
from integrations.errors import (
    ChangesExpired,
    ContentTooLarge,
    VendorDenied,
    VendorNotFound,
    VendorThrottled,
    VendorTimeout,
    VendorUnreachable,
)
from integrations.sitelib.client import SitelibClient
from integrations.sitelib.files import item_within
from integrations.sitelib.models import DriveItem, SitelibCredentials, drive_named, item_too_large
from tests.fakes.graph import FakeGraph
from tests.fakes.server import FakeVendor, Reply, route

TOKEN = "graph-token"
MAX_BYTES = 1024

pytestmark = pytest.mark.usefixtures("private_ok")


@pytest.fixture
def graph():
    with FakeGraph(tokens={TOKEN}) as fake:
        yield fake


@pytest.fixture
def client(graph):
    with SitelibClient(
        graph_url=graph.api_url,
        login_url="https://login.invalid",
        credentials=SitelibCredentials(cloud_tid="contoso.onmicrosoft.com", client_id="app"),
        access_token=TOKEN,
    ) as client:
        yield client


@pytest.fixture
def tree(graph):
    """/sites/hr: Documents (a file at the root, Policies with a sub-folder, Campaigns) and Archive."""
    hr = graph.add_site("/sites/hr", "HR")
    docs = graph.add_drive(hr, "Documents")
    archive = graph.add_drive(hr, "Archive")
    policies = graph.add_folder(docs, "Policies")
    year = graph.add_folder(docs, "2024", parent=policies)
    campaigns = graph.add_folder(docs, "Campaigns")
    return {
        "site": hr,
        "docs": docs,
        "archive": archive,
        "policies": policies,
        "year": year,
        "campaigns": campaigns,
        "handbook": graph.add_file(docs, "Handbook.txt", b"Welcome aboard", modified="2026-03-01T08:30:00Z"),
        "leave": graph.add_file(docs, "leave.txt", b"Twenty days", parent=policies),
        "travel": graph.add_file(docs, "travel rules.html", b"<p>Fly economy</p>", parent=year),
        "plan": graph.add_file(docs, "plan.txt", b"Launch in May", parent=campaigns),
        "old": graph.add_file(archive, "old.txt", b"Gone by", parent=None),
    }


def drive_of(client: SitelibClient, tree: dict, name: str = "Documents"):
    (site,) = client.site_tree([client.site_by_url(tree["site"].web_url)])
    return next(drive for drive in site.drives if drive.name == name)


def names(items) -> list[str]:
    return sorted(item.name for item in items)


def children_reads(graph: FakeGraph, folder: dict) -> list:
    """The reads of a folder's children (its first page: later pages carry a skip token)."""
    return [r for r in graph.requests_to(rf"/items/{folder['id']}/children$") if "$skiptoken" not in r.query]


# ---- the walk


def test_it_walks_every_folder_of_a_drive_following_every_page(graph, client, tree):
    graph.page_size = 1
    files = list(client.drive_files(drive_of(client, tree)))
    assert names(files) == ["Handbook.txt", "leave.txt", "plan.txt", "travel rules.html"]
    handbook = next(f for f in files if f.name == "Handbook.txt")
    assert handbook == DriveItem(
        id=tree["handbook"]["id"],
        drive_id=tree["docs"].id,
        name="Handbook.txt",
        web_url="https://contoso.sitelib.test/sites/hr/Documents/Handbook.txt",
        size=len(b"Welcome aboard"),
        mime_type="text/plain",
        last_modified=datetime(2026, 3, 1, 8, 30, tzinfo=UTC),
        etag=tree["handbook"]["eTag"],
        ctag=tree["handbook"]["cTag"],
        parent_id=tree["docs"].root_id,
        parent_path="/",
        hashes=tree["handbook"]["file"]["hashes"],
        is_file=True,
    )
    travel = next(f for f in files if f.name == "travel rules.html")
    assert travel.parent_path == "/Policies/2024"
    assert travel.server_path == "/sites/hr/Documents/Policies/2024/travel rules.html"
    assert any("$skiptoken" in r.query for r in graph.requests_to(r"/root/children$"))
    assert [len(children_reads(graph, tree[f])) for f in ("policies", "year", "campaigns")] == [1, 1, 1]


def test_it_reads_each_level_of_folders_in_one_round_of_batches(graph, client, tree):
    for n in range(30):
        team = graph.add_folder(tree["docs"], f"Team {n}")
        graph.add_file(tree["docs"], f"note {n}.txt", b"n", parent=team)
    drive = drive_of(client, tree)
    batches = len(graph.requests_to(r"/\$batch$"))
    files = list(client.drive_files(drive))
    assert len(files) == 4 + 30
    # the root, then 32 folders (two batches of at most 20), then 2024
    sizes = [len(r.json()["requests"]) for r in graph.requests_to(r"/\$batch$")[batches:]]
    assert sorted(sizes) == [1, 1, 12, 20]


def test_files_come_out_before_the_walk_reaches_deeper_folders(graph, client, tree):
    walk = client.drive_files(drive_of(client, tree))
    assert next(walk).name == "Handbook.txt"
    assert children_reads(graph, tree["policies"]) == []
    assert names(walk) == ["leave.txt", "plan.txt", "travel rules.html"]


def test_named_folders_narrow_the_walk_to_what_is_under_them(graph, client, tree):
    drive = drive_of(client, tree)
    by_server_path = client.drive_files(drive, folders=["/sites/hr/Documents/Policies/"])
    assert names(by_server_path) == ["leave.txt", "travel rules.html"]
    assert children_reads(graph, tree["campaigns"]) == []
    assert graph.requests_to(r"/root/children$") == []
    from_the_root_in_any_case = client.drive_files(drive, folders=["policies/2024"])
    assert names(from_the_root_in_any_case) == ["travel rules.html"]
    as_copied_from_a_browser = "https://contoso.sitelib.test/sites/hr/Documents/Policies/2024"
    assert names(client.drive_files(drive, folders=[as_copied_from_a_browser])) == ["travel rules.html"]


def test_nested_named_folders_give_each_file_once(client, tree):
    folders = ["/sites/hr/Documents/Policies", "/sites/hr/Documents/Policies%2F2024", "Policies/2024"]
    assert names(client.drive_files(drive_of(client, tree), folders=folders)) == [
        "leave.txt",
        "travel rules.html",
    ]


def test_a_folder_named_in_another_drive_or_nowhere_yields_nothing(graph, client, tree):
    drive = drive_of(client, tree)
    elsewhere = ["/sites/hr/Archive/Policies", "/sites/other/Documents", "No such folder"]
    assert list(client.drive_files(drive, folders=elsewhere)) == []
    # a path in another drive is never asked for in this one
    assert len(graph.requests_to(rf"/drives/{drive.id}/root:")) == 1


def test_the_drive_itself_named_as_a_folder_is_walked_whole(client, tree):
    assert len(list(client.drive_files(drive_of(client, tree), folders=["/sites/hr/Documents"]))) == 4


def test_named_drives_and_sub_sites_come_from_one_round_of_batches_each(graph, client, tree):
    emea = graph.add_site("/sites/hr/emea", "HR EMEA", parent=tree["site"])
    graph.add_file(graph.add_drive(emea, "Archive"), "emea.txt", b"Hej")
    graph.add_file(graph.add_drive(emea, "Drafts"), "draft.txt", b"wip")
    before = len(graph.requests_to(r"/\$batch$"))
    sites = client.site_tree(
        [client.site_by_url(tree["site"].web_url)],
        drive_kept=lambda site, drive: drive_named(drive, ["ARCHIVE"]),
    )
    assert [(s.name, [d.name for d in s.drives]) for s in sites] == [
        ("HR", ["Archive"]),
        ("HR EMEA", ["Archive"]),
    ]
    assert len(graph.requests_to(r"/\$batch$")) - before == 2
    assert names(client.files_of(sites)) == ["emea.txt", "old.txt"]
    by_id = client.site_tree(sites[:1], drive_kept=lambda site, drive: drive_named(drive, [tree["docs"].id]))
    assert [d.name for d in by_id[0].drives] == ["Documents"]


# ---- the change feed


def test_the_change_feed_reports_changed_files_and_deletions_with_a_token_to_keep(graph, client, tree):
    graph.page_size = 2
    docs = tree["docs"]
    everything, token = client.drive_delta(docs.id, token=None)
    assert names(everything) == ["Handbook.txt", "leave.txt", "plan.txt", "travel rules.html"]
    assert any("$skiptoken" in r.query for r in graph.requests_to(r"/root/delta$"))
    graph.modify_file(docs, tree["handbook"], b"Welcome aboard, again", modified="2026-12-01T09:00:00Z")
    graph.modify_file(docs, tree["handbook"], b"Welcome aboard, third time")
    graph.add_file(docs, "new.txt", b"fresh", parent=tree["campaigns"])
    graph.delete_item(docs, tree["leave"])
    graph.delete_item(docs, tree["year"])
    changes, next_token = client.drive_delta(docs.id, token=token)
    assert next_token != token
    changed = {item.name: item for item in changes if not item.deleted}
    assert set(changed) == {"Handbook.txt", "new.txt"}
    assert changed["Handbook.txt"].size == len(b"Welcome aboard, third time")
    assert changed["Handbook.txt"].server_path == "/sites/hr/Documents/Handbook.txt"
    deleted = {item.id for item in changes if item.deleted}
    assert deleted == {tree["leave"]["id"], tree["year"]["id"], tree["travel"]["id"]}
    assert client.drive_delta(docs.id, token=next_token) == ([], next_token)


def test_changed_files_are_placed_in_named_folders_by_their_web_address(graph, client, tree):
    drive = drive_of(client, tree)
    _, token = client.drive_delta(drive.id, token=None)
    graph.add_file(tree["docs"], "brief.txt", b"b", parent=tree["campaigns"])
    graph.modify_file(tree["docs"], tree["travel"], b"<p>Take the train</p>")
    graph.modify_file(tree["docs"], tree["handbook"], b"Welcome")
    changes, _ = client.drive_delta(drive.id, token=token)
    assert len(changes) == 3
    campaigns = [i.name for i in changes if item_within(i, drive, ["/sites/hr/documents/campaigns"])]
    policies = [i.name for i in changes if item_within(i, drive, ["Policies", "/sites/hr/Archive"])]
    assert (campaigns, policies) == (["brief.txt"], ["travel rules.html"])
    assert all(item_within(i, drive, []) for i in changes)


def test_a_token_taken_before_a_walk_reports_only_later_changes(graph, client, tree):
    token = client.drive_delta_token(tree["docs"].id)
    assert len(list(client.drive_files(drive_of(client, tree)))) == 4
    graph.modify_file(tree["docs"], tree["plan"], b"Launch in June")
    changes, _ = client.drive_delta(tree["docs"].id, token=token)
    assert [(item.name, item.deleted) for item in changes] == [("plan.txt", False)]


def test_a_forgotten_token_asks_for_a_full_walk_and_the_feed_starts_over(graph, client, tree):
    _, token = client.drive_delta(tree["docs"].id, token=None)
    graph.forget_change_tokens(tree["docs"])
    with pytest.raises(ChangesExpired) as raised:
        client.drive_delta(tree["docs"].id, token=token)
    assert (raised.value.status, raised.value.vendor_code) == (410, "resyncRequired")
    fresh = client.drive_delta_token(tree["docs"].id)
    assert client.drive_delta(tree["docs"].id, token=fresh) == ([], fresh)


def test_a_token_that_is_not_this_platforms_link_is_never_followed(graph, client, tree):
    sent = len(graph.received)
    with pytest.raises(ChangesExpired):
        client.drive_delta(
            tree["docs"].id, token="https://elsewhere.example/v1.0/drives/x/root/delta?token=1"
        )
    assert len(graph.received) == sent


# ---- downloads


def download(client: SitelibClient, item: dict, *, timeout_s: float = 5.0, max_bytes: int = MAX_BYTES):
    drive_id = item["parentReference"]["driveId"]
    return client.item_content(drive_id, item["id"], max_bytes=max_bytes, timeout_s=timeout_s)


def test_it_downloads_through_the_redirect_to_the_download_url(graph, client, tree):
    assert download(client, tree["travel"]) == b"<p>Fly economy</p>"
    assert len(graph.content_requests(tree["travel"])) == 1 and len(graph.downloads()) == 1


class DownloadHost(FakeVendor):
    """Where the platform's download URLs point in production: another host than the API's."""

    @route("GET", "/files/(?P<name>[^/]+)")
    def file(self, request, name):
        return Reply(200, f"the bytes of {name}".encode())


def test_the_bearer_token_never_follows_the_redirect_to_the_download_host(graph, client, tree):
    with DownloadHost() as host:
        item = graph.add_file(tree["docs"], "far.txt", b"", download_to=host.url + "/files/far.txt")
        assert download(client, item) == b"the bytes of far.txt"
    assert graph.content_requests(item)[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert [r.path for r in host.received] == ["/files/far.txt"]
    assert "Authorization" not in host.received[0].headers


def test_a_corrupt_file_comes_back_as_the_bytes_it_holds(graph, client, tree):
    files = graph.add_troublesome_files(tree["docs"], oversized_bytes=MAX_BYTES + 1)
    assert download(client, files["corrupt"]) == b"\x00\x01 this is no PDF"


def test_an_oversized_file_is_never_asked_for_when_its_size_is_checked_first(graph, client, tree):
    files = graph.add_troublesome_files(tree["docs"], oversized_bytes=50 * 2**20, stall_s=0)
    fetched = {}
    for item in client.drive_files(drive_of(client, tree)):
        if not item_too_large(item, MAX_BYTES) and item.name != "denied.docx":
            fetched[item.name] = client.item_content(item.drive_id, item.id, max_bytes=MAX_BYTES, timeout_s=5)
    assert "oversized.pdf" not in fetched and len(fetched) == 6
    assert graph.content_requests(files["oversized"]) == []


def test_a_download_larger_than_its_size_said_is_cut_at_the_limit(graph, client, tree):
    liar = graph.add_file(tree["docs"], "small.txt", b"x" * (MAX_BYTES + 1), size=10)
    with pytest.raises(ContentTooLarge):
        download(client, liar)


@pytest.fixture
def refusing_url():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # bound, never listening: connecting to it is refused
        yield f"http://127.0.0.1:{unused.getsockname()[1]}/file"


@pytest.mark.parametrize(
    ("behaviour", "error", "status"),
    [
        ({"stall": 30}, VendorTimeout, None),
        ({"deny": True}, VendorDenied, 403),
        ({"reset": True}, VendorUnreachable, None),
        ({"download_to": "refusing"}, VendorUnreachable, None),
    ],
    ids=["stall-timeout", "403-denied", "reset", "refused"],
)
def test_each_way_a_download_fails_has_its_own_error(
    graph, client, tree, refusing_url, behaviour, error, status
):
    if behaviour.get("download_to"):
        behaviour = {"download_to": refusing_url}
    item = graph.add_file(tree["docs"], "trouble.txt", b"trouble", **behaviour)
    with pytest.raises(error) as raised:
        download(client, item, timeout_s=1.0)
    assert type(raised.value) is error and raised.value.status == status
    assert TOKEN not in raised.value.message


def test_a_refused_token_is_denied(graph, client, tree):
    graph.tokens.clear()
    with pytest.raises(VendorDenied) as raised:
        download(client, tree["plan"])
    assert raised.value.status == 401 and graph.downloads() == []


def test_a_file_deleted_since_discovery_is_not_found(graph, client, tree):
    graph.delete_item(tree["docs"], tree["plan"])
    with pytest.raises(VendorNotFound) as raised:
        download(client, tree["plan"])
    assert raised.value.status == 404


def test_a_throttled_download_is_retried_within_its_time_and_never_waits_past_it(graph, client, tree, caplog):
    caplog.set_level(logging.INFO)
    content = rf"/items/{tree['leave']['id']}/content$"
    graph.queue_reply(Reply(429, {"error": {"code": "TooManyRequests"}}, {"Retry-After": "0"}), path=content)
    assert download(client, tree["leave"]) == b"Twenty days"
    assert len(graph.requests_to(content)) == 2
    busy = Reply(503, {"error": {"code": "serviceNotAvailable"}}, {"Retry-After": "30"})
    graph.queue_reply(busy, path=content)
    with pytest.raises(VendorThrottled):
        download(client, tree["leave"], timeout_s=2.0)
    assert len(graph.requests_to(content)) == 3
    assert TOKEN not in caplog.text


def test_the_guard_refuses_a_download_url_on_a_private_address(graph, client, tree, settings):
    def private_networks_off(item: dict) -> None:
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False

    graph.on_content = private_networks_off  # the API host passed; its download URL is loopback
    with pytest.raises(OutboundRefused):
        download(client, tree["leave"])
    assert len(graph.content_requests(tree["leave"])) == 1
    assert graph.downloads() == []
