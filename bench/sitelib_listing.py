"""The sitelib listing over 50 sites with 3 drives each, against fakes that answer in 20 ms.

Prints the time of the whole endpoint (POST /v2/sitelib/listing through the Django test client:
authentication, tenancy, msal token over HTTPS, site search, sub-sites and drives of every site,
filters, JSON) beside the sequential sum of the upstream calls it made (each call timed inside the
fake, its 20 ms included), and, for reference, the same listing with a pool of one thread.

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

from bench.fakes import TimedGraph, TimedIdentity  # noqa: E402
from integrations.sitelib import SitelibClient  # noqa: E402

TID = "bench.onmicrosoft.com"


def run(client: APIClient, body: dict, fakes, repeat: int) -> tuple[float, int, float]:
    """Median endpoint time (ms), upstream calls per listing, their summed time per listing (ms)."""
    times = []
    for fake in fakes:
        fake.reset()
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.post("/v2/sitelib/listing", body, format="json")
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.content[:300]
    calls = sum(f.calls for f in fakes) // repeat
    busy = sum(f.busy for f in fakes) * 1000 / repeat
    return statistics.median(times), calls, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=50)
    parser.add_argument("--drives", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from adminops.models import Tenant
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
        for n in range(args.sites):
            site = graph.add_site(f"/sites/site{n:03}", f"Site {n}")
            for d in range(args.drives):
                graph.add_drive(site, f"Library {d}")
        tenant = Tenant.objects.create(name="bench-sitelib")
        _, key = make_api_key(tenant, ["knowledge:read"])
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}", HTTP_X_TENANTID=str(tenant.id))
        body = {
            "authorization": {"cloud_tid": TID, "client_id": "bench-app", "client_secret": "bench-secret"},
            "sitelib_auth": False,
        }
        pooled = run(client, body, (identity, graph), args.repeat)
        workers = SitelibClient.max_workers
        SitelibClient.max_workers = 1
        single = run(client, body, (identity, graph), args.repeat)
        SitelibClient.max_workers = workers
    finally:
        graph.stop()
        identity.stop()
        teardown_databases(databases, verbosity=0)
    print(
        f"\nsitelib listing, {args.sites} sites x {args.drives} drives, fakes answering in "
        f"{args.latency * 1000:.0f} ms, median of {args.repeat}\n"
    )
    print(f"{'':34}{'listing ms':>12}{'upstream calls':>16}{'sequential sum ms':>19}")
    print(f"{f'pool of {workers} threads':34}{pooled[0]:>12.0f}{pooled[1]:>16}{pooled[2]:>19.0f}")
    print(f"{'pool of 1 thread (reference)':34}{single[0]:>12.0f}{single[1]:>16}{single[2]:>19.0f}")


if __name__ == "__main__":
    main()
