"""The sitelib listing over 50 sites with 3 drives each, against fakes that answer in 20 ms.

Prints the time of the whole endpoint (POST /v2/sitelib/listing through the Django test client:
authentication, tenancy, msal token over HTTPS, site search, sub-sites and drives of every site in
JSON batches, filters, JSON) beside the sequential sum of the upstream calls it made (each call
timed inside the fake, its 20 ms included; a batched call counts as the call it is), the HTTP
requests that carried them, the slowest chain of dependent calls (bench/fakes.py slowest_chain,
the harness's reference: target under 1.5x), and, for reference, the same listing with a pool of
one thread.

    .venv/bin/python -m bench.sitelib_listing [--sites 50] [--drives 3] [--latency 0.02] [--repeat 5]

Runs on DATABASE_URL's engine (a throwaway test database is created and dropped).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdef0123456789abcdef")
os.environ.setdefault("VAULT_MASTER_KEYS", "bench1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.test.utils import setup_databases, setup_test_environment, teardown_databases  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from bench.fakes import TimedGraph, TimedIdentity, slowest_chain  # noqa: E402
from integrations.sitelib.client import SitelibClient  # noqa: E402

TID = "bench.onmicrosoft.com"


def run(
    client: APIClient, body: dict, fakes, markers: dict, repeat: int
) -> tuple[float, int, int, float, float]:
    """Medians over `repeat` listings: endpoint time (ms), upstream calls, HTTP requests carrying
    them, their summed time (ms), the slowest chain (ms)."""
    runs = []
    for _ in range(repeat):
        for fake in fakes:
            fake.reset()
        started = time.perf_counter()
        response = client.post("/v2/sitelib/listing", body, format="json")
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, response.content[:300]
        calls = sum(f.calls for f in fakes)
        batches = sum(f.batches for f in fakes)
        http = calls - sum(f.batched for f in fakes) + batches
        runs.append(
            (elapsed, calls, http, sum(f.busy for f in fakes) * 1000, slowest_chain(fakes, markers) * 1000)
        )
    return tuple(statistics.median(column) for column in zip(*runs, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=50)
    parser.add_argument("--drives", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from core.models import Tenant
    from tests.factories import make_api_key

    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False, serialized_aliases=[])
    identity = TimedIdentity(delay=args.latency).start()
    graph = TimedGraph(tokens=identity.issued, delay=args.latency).start()
    try:
        settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
        settings.OUTBOUND_CA_BUNDLE = identity.ca_file
        settings.SITELIB_LOGIN_URL = identity.url
        settings.SITELIB_GRAPH_URL = graph.api_url
        identity.add_secret_app(TID, "bench-app", "bench-secret")
        markers = {}  # as in bench/harness.py: a site or drive id in a path -> its site
        for n in range(args.sites):
            site = graph.add_site(f"/sites/site{n:03}", f"Site {n}")
            markers[site.id] = site.id
            for d in range(args.drives):
                markers[graph.add_drive(site, f"Library {d}").id] = site.id
        tenant = Tenant.objects.create(name="bench-sitelib")
        _, key = make_api_key(tenant, ["knowledge:read"])
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}", HTTP_X_TENANTID=str(tenant.id))
        body = {
            "authorization": {"cloud_tid": TID, "client_id": "bench-app", "client_secret": "bench-secret"},
            "sitelib_auth": False,
        }
        run(client, body, (identity, graph), markers, 1)  # warm-up: imports, first connections
        pooled = run(client, body, (identity, graph), markers, args.repeat)
        workers = SitelibClient.max_workers
        SitelibClient.max_workers = 1
        single = run(client, body, (identity, graph), markers, args.repeat)
        SitelibClient.max_workers = workers
    finally:
        graph.stop()
        identity.stop()
        teardown_databases(databases, verbosity=0)
    print(
        f"\nsitelib listing, {args.sites} sites x {args.drives} drives, fakes answering in "
        f"{args.latency * 1000:.0f} ms, median of {args.repeat}\n"
    )
    print(
        f"{'':30}{'listing ms':>11}{'calls':>7}{'HTTP':>6}{'sequential ms':>15}{'chain ms':>10}{'x chain':>9}"
    )
    for name, (listing, calls, http, busy, chain) in (
        (f"pool of {workers} threads", pooled),
        ("pool of 1 thread (reference)", single),
    ):
        ratio = listing / chain
        print(f"{name:30}{listing:>11.0f}{calls:>7.0f}{http:>6.0f}{busy:>15.0f}{chain:>10.0f}{ratio:>9.2f}")


if __name__ == "__main__":
    main()
