"""A permissions pass (DESIGN section 19) over 10,000 indexed document-site files: items per second.

The document-site platform is the loopback fake of the tests (tests/fakes/graph.py, with its
identity platform), started in this process: one site, one library of `--files` files in folders
of 100. What an earlier run indexed is seeded directly, in bulk as bench.vector_search seeds: a
document for each file, keyed as the sitelib source keys it (`<drive id>/<item id>`), written by
the sync configuration, readable by the site's members (what the platform gave every file then),
with CHUNKS_PER_DOCUMENT chunks each. Then, at the source, one folder in ten is restricted to a
group, one file in fifty outside those folders to one person and one in a hundred shared by a link
for the organisation; and one permissions run of the configuration is executed in this process
(`sync_run_execute`, what the worker's task calls), timed from its start to its end: it lists the
library, reads the files' permissions in JSON batches of 20 and gives each document (and its
chunks) the readers found. Printed: the indexed items it went through per second, with the count
of documents whose readers changed; the run fails loudly unless exactly the changed files got new
readers (the figure is of a pass that did its work).

    .venv/bin/python -m bench.permissions_pass [--files 10000] [--json]

Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/bench; a throwaway test
database is created and dropped) and the broker the service uses (REDIS_URL; the queued run's
message is purged: the run is executed here). `--json` prints one last line of [name, figure]
pairs for bench/run.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdef0123456789abcdef")
os.environ.setdefault("VAULT_MASTER_KEYS", "bench1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench")

import django

django.setup()

import numpy as np  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import (  # noqa: E402
    override_settings,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)

from config.celery import app  # noqa: E402
from core.audit import system_actor  # noqa: E402
from ingestion.models import SyncConfiguration, SyncRun  # noqa: E402
from ingestion.pipeline.run import sync_run_execute  # noqa: E402
from ingestion.pipeline.sources.sitelib import CONTENT_TYPE, PLATFORM  # noqa: E402
from ingestion.services.runs import sync_run_queue  # noqa: E402
from knowledge.embeddings import LOCAL_MODEL_NAME  # noqa: E402
from knowledge.models import Chunk, Document  # noqa: E402
from knowledge.vectors.audience import readers_tags  # noqa: E402
from knowledge.vectors.lexical import chunk_terms  # noqa: E402
from knowledge.vectors.prefixes import url_key  # noqa: E402
from knowledge.vectors.store import CHUNKS_PER_INSERT  # noqa: E402
from tests import factories  # noqa: E402
from tests.fakes.graph import FakeGraph  # noqa: E402
from tests.fakes.identity import FakeIdentity  # noqa: E402
from tests.knowledge.conftest import CLIENT_ID, CLOUD_TID, SECRET  # noqa: E402
from vault.services.credentials import credential_store  # noqa: E402

DOMAIN = "acme.example.com"
FILES_PER_FOLDER = 100
CHUNKS_PER_DOCUMENT = 3
DIMENSION = 384


def group(g: dict) -> str:
    return f"group:sitelib:{g['id']}"


def library(graph: FakeGraph, files: int):
    """One site with one library of `files` files in folders of FILES_PER_FOLDER: (site, drive,
    [(folder, its files)])."""
    site = graph.add_site("/sites/handbook", "Handbook")
    drive = graph.add_drive(site, "Documents")
    folders = []
    for first in range(0, files, FILES_PER_FOLDER):
        folder = graph.add_folder(drive, f"Folder {first // FILES_PER_FOLDER}")
        folders.append(
            (
                folder,
                [
                    graph.add_file(drive, f"Note {n}.txt", f"Note {n}.".encode(), parent=folder)
                    for n in range(first, min(files, first + FILES_PER_FOLDER))
                ],
            )
        )
    return site, drive, folders


def configure(tenant, site) -> SyncConfiguration:
    credential_store(
        tenant=tenant,
        actor=system_actor("bench"),
        integration_id=f"sitelib-{DOMAIN}",
        name="document sites",
        auth_type="oauth2_client_credentials",
        metadata={"cloud_tid": CLOUD_TID, "client_id": CLIENT_ID},
        secrets={"client_secret": SECRET},
    )
    return SyncConfiguration.objects.create(
        tenant=tenant,
        platform=PLATFORM,
        name="handbook",
        integration_id=f"sitelib-{DOMAIN}",
        platform_domain=DOMAIN,
        scope={"site_urls": [site.web_url], "sub_sites": [], "drives": [], "folders": [], "pages": []},
        content_restriction={"audience": ["all"]},
    )


def seed(tenant, configuration: SyncConfiguration, drive, files: list[dict], readers: list[str]) -> None:
    """What an earlier run indexed of `files`: their documents with `readers`, and their chunks."""
    rng = np.random.default_rng(5)
    tags = readers_tags(readers)
    for first in range(0, len(files), 1000):
        batch = files[first : first + 1000]
        documents = Document.objects.bulk_create(
            Document(
                tenant=tenant,
                platform_type=PLATFORM,
                content_type=CONTENT_TYPE,
                source_id=f"{drive.id}/{item['id']}",
                source_url=item["webUrl"],
                source_url_key=url_key(item["webUrl"]),
                title=item["name"],
                content_hash="0" * 64,
                audience=["all"],
                readers=readers,
                sync_configuration_id=configuration.public_id,
                chunk_count=CHUNKS_PER_DOCUMENT,
            )
            for item in batch
        )
        vectors = rng.standard_normal((len(documents) * CHUNKS_PER_DOCUMENT, DIMENSION)).astype(np.float32)
        Chunk.objects.bulk_create(
            (
                Chunk(
                    document=document,
                    tenant=tenant,
                    ordinal=ordinal,
                    text=f"{document.title} part {ordinal}",
                    model=LOCAL_MODEL_NAME,
                    dimension=DIMENSION,
                    audience="|all|",
                    readers=tags,
                    terms=chunk_terms(title=document.title, text=f"{document.title} part {ordinal}"),
                    embedding=vectors[n * CHUNKS_PER_DOCUMENT + ordinal],
                )
                for n, document in enumerate(documents)
                for ordinal in range(CHUNKS_PER_DOCUMENT)
            ),
            batch_size=CHUNKS_PER_INSERT,
        )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE knowledge_document")
        cursor.execute("VACUUM ANALYZE knowledge_chunk")


def changes_upstream(graph: FakeGraph, drive, folders) -> dict[str, list[str]]:
    """Restrict and share some of the files at the source: their keys -> the readers the platform
    now gives them."""
    finance = graph.add_group("Finance")
    changed = {}
    for n, (folder, files) in enumerate(folders):
        if n % 10 == 0:
            graph.restrict(drive, folder, groups=[finance])
            changed |= {f"{drive.id}/{item['id']}": [group(finance)] for item in files}
            continue
        for m, item in enumerate(files):
            if m % 50 == 7:
                graph.restrict(drive, item, users=[f"owner{n}@contoso.test"])
                changed[f"{drive.id}/{item['id']}"] = [f"user:owner{n}@contoso.test"]
            elif m % 100 == 31:
                graph.share_link(drive, item, "organization")
                changed[f"{drive.id}/{item['id']}"] = None  # everyone, beside what it inherits
    return changed


def measure(files: int) -> list[tuple[str, str]]:
    tenant = factories.make_tenant("bench")
    with FakeIdentity() as identity, FakeGraph(tokens=identity.issued) as graph:
        identity.add_secret_app(CLOUD_TID, CLIENT_ID, SECRET)
        with override_settings(
            OUTBOUND_ALLOW_PRIVATE_NETWORKS=True,
            OUTBOUND_CA_BUNDLE=identity.ca_file,
            SITELIB_LOGIN_URL=identity.url,
            SITELIB_GRAPH_URL=graph.api_url,
        ):
            site, drive, folders = library(graph, files)
            configuration = configure(tenant, site)
            members = [group(site.members)]
            seed(tenant, configuration, drive, [item for _, items in folders for item in items], members)
            changed = changes_upstream(graph, drive, folders)
            run = sync_run_queue(
                configuration=configuration,
                kind="permissions",
                incremental=False,
                actor=system_actor("bench"),
            )
            with app.connection_for_write() as broker:
                broker.default_channel.queue_purge(app.conf.task_default_queue)
            started = time.perf_counter()
            sync_run_execute(run_id=str(run.id))
            seconds = time.perf_counter() - started
            requests = len(graph.requests_to(r"/permissions$|/\$batch$"))
    run.refresh_from_db()
    check(run, changed, members, files)
    return [
        (
            f"permissions pass {files:,} items",
            f"{files / seconds:.0f} items/s ({seconds:.1f} s; {run.succeeded:,} documents got new "
            f"readers, {run.skipped:,} unchanged; {requests} permission requests)",
        )
    ]


def check(run: SyncRun, changed: dict[str, list[str] | None], members: list[str], files: int) -> None:
    """The pass did its work: every file went through it, the changed ones (only they) got the
    readers the platform gives them now."""
    stored = dict(Document.objects.values_list("source_id", "readers"))
    wrong = [
        key
        for key, readers in stored.items()
        if readers
        != (
            changed[key]
            if key in changed and changed[key] is not None
            else sorted(["everyone", *members])
            if key in changed
            else members
        )
    ]
    if run.status != SyncRun.Status.SUCCESS or run.succeeded != len(changed) or wrong:
        raise SystemExit(
            f"the permissions pass did not do its work: {run.status}, {run.succeeded} changed of "
            f"{len(changed)} expected, {len(wrong)} documents with other readers ({run.error})"
        )
    if run.succeeded + run.skipped != files:
        raise SystemExit(f"the pass went through {run.succeeded + run.skipped} items of {files}")
    stale = sum(
        chunk != readers_tags(document)
        for chunk, document in Chunk.objects.values_list("readers", "document__readers").iterator()
    )
    if stale:
        raise SystemExit(f"{stale} chunks kept their documents' old readers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="end with one JSON line for bench/run")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        raise SystemExit("bench.permissions_pass needs PostgreSQL (DATABASE_URL)")
    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False, serialized_aliases=[])
    try:
        figures = measure(args.files)
    finally:
        connection.close()
        teardown_databases(databases, verbosity=0)
    for name, value in figures:
        print(f"{name:<34} {value}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
