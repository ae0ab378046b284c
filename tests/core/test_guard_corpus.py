"""The outbound guard against a corpus of SSRF forms, with OUTBOUND_ALLOW_PRIVATE_NETWORKS off
(the default): every one is refused before a connection is made."""

from __future__ import annotations

import pytest

from core.outbound import OutboundRefused, guard_url, outbound_session
from tests.fakes.server import FakeVendor, Reply, route

CORPUS = [
    # loopback, in every spelling the resolver accepts
    "http://127.0.0.1/",
    "http://127.0.0.1:8000/admin/",
    "https://127.0.0.1:443/",
    "http://127.1/",
    "http://127.0.1/",
    "http://127.255.255.254/",
    "http://2130706433/",  # decimal
    "http://017700000001/",  # octal
    "http://0177.0.0.1/",  # octal dotted
    "http://0x7f000001/",  # hex
    "http://0x7f.0x0.0x0.0x1/",  # hex dotted
    "http://0x7f.1/",
    "http://0/",
    "http://0.0.0.0/",
    "http://user:password@127.0.0.1/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::]/",
    # IPv6 that embeds IPv4 loopback or metadata
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    # private ranges
    "http://10.0.0.1/",
    "http://10.255.255.255/",
    "http://172.16.0.1/",
    "http://172.31.255.254/",
    "http://192.168.0.1/",
    "http://192.168.1.1:8080/",
    "http://100.64.0.1/",  # carrier-grade NAT
    "http://[fc00::1]/",
    "http://[fd12:3456:789a::1]/",
    # link-local and cloud metadata
    "http://169.254.0.1/",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://169.254.170.2/v2/credentials",  # container credentials
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]/",
    "http://metadata.google.internal/computeMetadata/v1/",  # does not resolve here: refused too
    # reserved, multicast, broadcast, benchmarking
    "http://192.0.0.1/",
    "http://198.18.0.1/",
    "http://224.0.0.1/",
    "http://239.255.255.250/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://[ff02::1]/",
    # names that resolve to loopback on this machine
    "http://localhost/",
    "http://LOCALHOST:8080/",
    "http://localhost./",
    "http://vm/",
    # not http at all
    "file:///etc/passwd",
    "gopher://127.0.0.1:6379/_INFO",
    "ftp://10.0.0.1/",
    "dict://127.0.0.1:11211/stat",
    "http:///nohost",
]


def test_the_corpus_is_big_enough():
    assert len(CORPUS) >= 40 and len(set(CORPUS)) == len(CORPUS)


@pytest.mark.parametrize("url", CORPUS)
def test_the_guard_refuses(url, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    with pytest.raises(OutboundRefused):
        guard_url(url)


def test_public_addresses_pass():
    guard_url("https://93.184.216.34/")
    guard_url("https://[2606:2800:220:1:248:1893:25c8:1946]/")


class Bouncer(FakeVendor):
    """Redirects to `target`. When it is hit it turns the guard's address rule back on, standing in
    for a public server (reachable) that redirects to a private one (which must not be)."""

    def __init__(self, settings, target: str) -> None:
        super().__init__()
        self.settings = settings
        self.target = target

    @route("GET", "/start")
    def bounce(self, request):
        self.settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
        return Reply(302, "", {"Location": self.target})


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.1:{port}/stolen",
        "http://localhost:{port}/stolen",
        "http://2130706433:{port}/stolen",
        "http://[::ffff:127.0.0.1]:{port}/stolen",
        "http://169.254.169.254/latest/meta-data/",
    ],
)
def test_a_redirect_to_a_private_address_is_refused_before_connecting(settings, target):
    with FakeVendor() as canary:
        port = canary.url.rsplit(":", 1)[1]
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
        with Bouncer(settings, target.format(port=port)) as bouncer:
            with pytest.raises(OutboundRefused):
                outbound_session().get(bouncer.url + "/start")
            assert len(bouncer.received) == 1
        assert canary.received == []
