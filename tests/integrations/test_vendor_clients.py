"""The vendor clients on their own (as the tool hub will use them): status mapping, the bounded
fan-out, one token per client, and the sitelib client over the fakes."""

from __future__ import annotations

import threading
import time
from urllib.parse import urljoin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from integrations.base import VendorClient
from integrations.errors import (
    CredentialsInvalid,
    VendorDenied,
    VendorNotFound,
    VendorRejected,
    VendorThrottled,
    VendorUnavailable,
)
from integrations.sitelib.client import SitelibClient
from integrations.sitelib.models import SitelibCredentials
from tests.fakes.graph import FakeGraph
from tests.fakes.identity import FakeIdentity
from tests.fakes.server import FakeVendor, Reply, route

TID = "contoso.onmicrosoft.com"


class Statuses(FakeVendor):
    @route("GET", r"/status/(?P<code>\d+)")
    def status(self, request, code):
        return Reply(int(code), {"message": f"status {code}"}, {"Retry-After": "0"})


class Counting(FakeVendor):
    """Records the most requests it ever had in flight at once."""

    def __init__(self, **kw):
        super().__init__(latency=0.05, **kw)
        self.in_flight = 0
        self.peak = 0
        self._count_lock = threading.Lock()

    def handle(self, request):
        with self._count_lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            time.sleep(0.05)  # overlap the requests so the peak is observable
            return Reply(200, {"ok": True})
        finally:
            with self._count_lock:
                self.in_flight -= 1


pytestmark = pytest.mark.usefixtures("private_ok")


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (401, VendorDenied),
        (403, VendorDenied),
        (404, VendorNotFound),
        (400, VendorRejected),
        (429, VendorThrottled),
        (500, VendorUnavailable),
        (502, VendorUnavailable),
    ],
)
def test_vendor_statuses_become_typed_errors(status, error):
    with Statuses() as fake:
        client = VendorClient(base_url=fake.url, session_options={"retries": 1})
        with client, pytest.raises(error) as raised:
            client.get_json(f"/status/{status}")
    assert raised.value.status == status and raised.value.platform == "vendor"


def test_an_unreachable_vendor_is_unavailable():
    fake = Statuses().start()
    fake.stop()
    with VendorClient(base_url=fake.url) as client, pytest.raises(VendorUnavailable):
        client.get_json("/status/200")


def test_the_fan_out_keeps_order_and_stays_within_its_pool():
    with Counting() as fake:
        client = VendorClient(base_url=fake.url)
        client.max_workers = 3
        with client:
            results = client.fan_out(lambda n: (n, client.get_json(f"/item/{n}")["ok"]), range(12))
    assert results == [(n, True) for n in range(12)]
    assert 1 < fake.peak <= 3


def test_the_fan_out_raises_the_first_failure():
    with Statuses() as fake, VendorClient(base_url=fake.url) as client, pytest.raises(VendorDenied):
        client.fan_out(lambda code: client.get_json(f"/status/{code}"), [200, 403, 200])


def test_the_sitelib_client_takes_one_token_for_many_concurrent_calls(settings):
    with FakeIdentity() as identity:
        identity.add_secret_app(TID, "app", "secret")
        settings.OUTBOUND_CA_BUNDLE = identity.ca_file
        with FakeGraph(tokens=identity.issued) as graph:
            sites = [graph.add_site(f"/sites/s{n}", f"S{n}") for n in range(6)]
            for site in sites:
                graph.add_drive(site, "Documents")
            credentials = SitelibCredentials(cloud_tid=TID, client_id="app", client_secret="secret")
            with SitelibClient(
                graph_url=graph.api_url, login_url=identity.url, credentials=credentials
            ) as client:
                listed = client.sites_all()
                drives = client.fan_out(lambda s: client.drives(s.id), listed)
    assert [s.name for s in listed] == [f"S{n}" for n in range(6)]
    assert all(len(d) == 1 and d[0].name == "Documents" for d in drives)
    assert len(identity.token_requests()) == 1


def test_sitelib_credentials_do_not_show_their_secrets():
    credentials = SitelibCredentials(
        cloud_tid=TID, client_id="app", client_secret="hunter2", private_key="pem"
    )
    assert "hunter2" not in repr(credentials) and "pem" not in repr(credentials)


def test_unusable_sitelib_credentials_name_the_field():
    client = SitelibClient(
        graph_url="https://graph.invalid/v1.0",
        login_url="https://login.invalid",
        credentials=SitelibCredentials(cloud_tid="not/a tenant", client_id="app", client_secret="x"),
    )
    with pytest.raises(CredentialsInvalid) as raised:
        client.token()
    assert raised.value.field == "cloud_tid"


@settings(max_examples=400, deadline=None)
@given(
    base=st.sampled_from(
        [
            "https://vendor.example",
            "https://vendor.example/",
            "https://vendor.example/api/v2",
            "https://vendor.example/a/./b",
            "https://vendor.example/a//b",
            "https://vendor.example/api?tenant=1",
            "http://vendor.example:8080/x;p",
        ]
    ),
    path=st.text(alphabet="ab/.?:%;=&#@~-_", max_size=14),
)
def test_a_path_joins_its_base_as_urljoin_joins_it(base, path):
    expected = (
        path
        if path.startswith(("http://", "https://"))
        else urljoin(base.rstrip("/") + "/", path.lstrip("/"))
    )
    assert VendorClient(base_url=base).url(path) == expected


def test_a_path_with_a_query_joins_under_the_base():
    client = VendorClient(base_url="https://vendor.example/api/v2/")
    assert (
        client.url("/configurations/5000?include=flex")
        == "https://vendor.example/api/v2/configurations/5000?include=flex"
    )
