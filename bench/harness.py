"""The load harness behind `bench/run` (see docs/performance.md).

It starts loopback fakes (bench/fakes.py: an itdocs platform answering at once, an identity
platform and a document-site platform answering in 20 ms), the service as in production (gunicorn
with WEB_WORKERS x WEB_THREADS, DEBUG off, PostgreSQL and Redis on this machine, a Celery worker),
seeds a tenant (bench/seed.py), then loads each scenario with wrk from a separate process on
loopback, and prints one table: requests/s, p50, p99, errors, and the ratio to the baseline measured
in the same run on the same server; then the hub's overhead, the sitelib listing, ingestion
throughput, the jobs, vector, hybrid and trimmed search at 100,000 chunks, a permissions pass over
10,000 items, and retrieval quality on the labelled set (bench/retrieval).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

from bench.fakes import QuietItdocs, TimedGraph, TimedIdentity, quiet, slowest_chain
from bench.ingestion import ingestion_figures
from bench.openbao import peer_rounds, print_peer, started_openbao
from bench.scenarios import SCENARIOS, Scenario

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PORT = int(os.environ.get("BENCH_PORT", "8089"))
OPENBAO_PORT = int(os.environ.get("BENCH_OPENBAO_PORT", "8210"))
BASE = f"http://127.0.0.1:{PORT}"
# Production's defaults (config/gunicorn.py): 2 processes of 4 threads.
WEB_WORKERS = os.environ.get("BENCH_WEB_WORKERS", "2")
WEB_THREADS = os.environ.get("BENCH_WEB_THREADS", "4")
WRK_THREADS, WRK_CONNECTIONS = "2", "16"
SITES, DRIVES, LATENCY, LISTINGS = 50, 3, 0.02, 5
SITELIB_TID = "bench.onmicrosoft.com"


@dataclass
class Result:
    scenario: Scenario
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    requests: int
    skipped: str = ""  # why the scenario could not be measured
    baseline_rps: float | None = None  # its baseline, measured again just before it


def bench_env(fakes: Fakes | None = None) -> dict:
    env = dict(os.environ)
    env |= {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": "bench-secret-key-not-for-production-0123456789abcdef",
        "VAULT_MASTER_KEYS": "bench1:YmVuY2gtbWFzdGVyLWtleS1ub3QtZm9yLXByb2QhISE=",
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench"),
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9"),
        "CACHE_KEY_PREFIX": "bench",
        "DJANGO_LOG_LEVEL": "WARNING",
        "BENCH_ENDPOINTS": "true",
        "OUTBOUND_ALLOW_PRIVATE_NETWORKS": "true",
        "RATE_LIMIT_PER_KEY": "100000000/m",
        "RATE_LIMIT_PER_TENANT": "100000000/m",
        "VAR_DIR": str(ROOT / "var" / "bench"),
    }
    if fakes is not None:
        env |= {
            "SITELIB_LOGIN_URL": fakes.identity.url,
            "SITELIB_GRAPH_URL": fakes.graph.api_url,
            "OUTBOUND_CA_BUNDLE": fakes.identity.ca_file,
            "BENCH_ITDOCS_URL": fakes.itdocs.url,
            "BENCH_ITDOCS_KEY": fakes.itdocs.api_key,
        }
    return env


@dataclass
class Fakes:
    itdocs: QuietItdocs
    identity: TimedIdentity
    graph: TimedGraph
    configuration_id: str
    markers: dict  # site id or drive id -> site id (bench/fakes.py slowest_chain)


@contextmanager
def started_fakes():
    itdocs = quiet(QuietItdocs().start())
    identity = quiet(TimedIdentity(delay=LATENCY).start())
    graph = quiet(TimedGraph(tokens=identity.issued, delay=LATENCY).start())
    try:
        identity.add_secret_app(SITELIB_TID, "bench-app", "bench-secret")
        markers = {}
        for n in range(SITES):
            site = graph.add_site(f"/sites/site{n:03}", f"Site {n}")
            markers[site.id] = site.id
            for d in range(DRIVES):
                markers[graph.add_drive(site, f"Library {d}").id] = site.id
        config_id = itdocs.add_configuration(itdocs.add_organization("Bench"), "srv-01")
        yield Fakes(itdocs, identity, graph, config_id, markers)
    finally:
        for fake in (graph, identity, itdocs):
            fake.stop()


def run(cmd: list[str], env: dict, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, env=env, check=True, **kw)


def reset_database(env: dict) -> None:
    name = env["DATABASE_URL"].rsplit("/", 1)[1]
    run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c", f"DROP DATABASE IF EXISTS {name}"], env)
    run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c", f"CREATE DATABASE {name}"], env)
    run(["redis-cli", "-u", env["REDIS_URL"], "FLUSHDB"], env, stdout=subprocess.DEVNULL)
    run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], env)


def seed(env: dict) -> dict:
    out = run([sys.executable, "-m", "bench.seed"], env, capture_output=True, text=True).stdout
    context = json.loads(out.strip().splitlines()[-1])
    # Production's autovacuum would have analysed a freshly loaded table long before anyone lists
    # it; without statistics the planner sorts every row of the tenant for a page of 50.
    name = env["DATABASE_URL"].rsplit("/", 1)[1]
    run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-d", name, "-c", "VACUUM ANALYZE"], env)
    return context


@contextmanager
def service(env: dict):
    web = subprocess.Popen(
        [str(BIN / "gunicorn"), "-c", "python:config.gunicorn"],
        cwd=ROOT,
        env=env | {"PORT": str(PORT), "WEB_WORKERS": WEB_WORKERS, "WEB_THREADS": WEB_THREADS},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [str(BIN / "celery"), "-A", "config", "worker", "--loglevel", "WARNING", "--concurrency", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_up()
        yield web, worker
    finally:
        for process in (web, worker):
            process.send_signal(signal.SIGTERM)
        for process in (web, worker):
            process.wait(timeout=30)


def _wait_up() -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(BASE + "/health", timeout=10).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or a first answer still on its way
            pass
        time.sleep(0.3)
    raise SystemExit("the service did not start")


def wait_settled(*roots: subprocess.Popen, quiet_cores: float = 0.15, limit: float = 180) -> float:
    """Wait until the service has finished starting: /health healthy on several answers in a row
    (every web worker has loaded its embedding model; until then it says `degraded`) and the
    processes under `roots` (gunicorn's and Celery's, whose workers load the model too) idle, using
    under `quiet_cores` of CPU over a second. Measuring before that would time requests against
    four processes importing PyTorch. Returns the seconds waited."""
    start = time.monotonic()
    healthy = 0
    while healthy < 4 and time.monotonic() - start < limit:
        status = requests.get(BASE + "/health", timeout=10).json().get("status")
        healthy = healthy + 1 if status == "healthy" else 0
        time.sleep(0.25)
    pids = [root.pid for root in roots]
    while time.monotonic() - start < limit:
        before = _cpu_seconds(pids)
        time.sleep(1)
        if _cpu_seconds(pids) - before < quiet_cores:
            break
    return time.monotonic() - start


def _cpu_seconds(roots: list[int]) -> float:
    """User and system CPU seconds of these processes and their children, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
        pid, ppid = int(stat.parent.name), int(fields[1])
        if pid in roots or ppid in roots:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def load(scenario: Scenario, context: dict, seconds: int) -> Result:
    if scenario.needs and not context.get(scenario.needs):
        return Result(scenario, 0, 0, 0, 0, 0, skipped=context.get(scenario.needs + "_error", "not seeded"))
    context = context | {"i": "{i}", "n": "{n}"}  # left for request.lua to fill per request
    env = dict(os.environ)
    env |= {
        "BENCH_METHOD": scenario.method,
        "BENCH_PATH": scenario.path.format(**context),
        "BENCH_BODY": scenario.body.format(**context) if scenario.body else "",
        "BENCH_HEADERS": "\n".join(f"{k}: {v.format(**context)}" for k, v in scenario.headers.items()),
        "BENCH_PICK": str(scenario.pick or 0),
    }
    if not scenario.body:
        env.pop("BENCH_BODY")
    connections = scenario.connections or int(WRK_CONNECTIONS)
    cmd = [
        "wrk",
        "-t",
        str(min(int(WRK_THREADS), connections)),  # wrk needs a connection per thread
        "-c",
        str(connections),
        "-d",
        f"{seconds}s",
        "--timeout",
        "10s",
        "-s",
        str(ROOT / "bench" / "lua" / "request.lua"),
        context[scenario.base] if scenario.base else BASE,
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    summary = json.loads([line for line in out.splitlines() if line.startswith("{")][-1])
    return Result(
        scenario,
        rps=summary["requests"] / (summary["duration_us"] / 1e6),
        p50_ms=summary["p50_us"] / 1000,
        p99_ms=summary["p99_us"] / 1000,
        errors=summary["errors"],
        requests=summary["requests"],
    )


def paired(scenario: Scenario, baseline: Scenario | None, context: dict, seconds: int, rounds: int) -> Result:
    """The scenario alone, or interleaved with its baseline (B S B S ...) in `rounds` slices of the
    time: the machine is shared, and a ratio of two runs seconds apart, repeated, is steadier than
    one of runs minutes apart. Requests/s are totals over the slices; p50 the median of theirs, p99
    the worst."""
    if baseline is None:
        return load(scenario, context, seconds)
    slice_seconds = max(2, round(seconds / rounds))
    pairs = [
        (load(baseline, context, slice_seconds), load(scenario, context, slice_seconds))
        for _ in range(rounds)
    ]
    runs = [run for _, run in pairs]
    if any(run.skipped for run in runs):
        return runs[0]
    total = Result(
        scenario,
        rps=sum(r.requests for r in runs) / sum(r.requests / r.rps for r in runs if r.rps),
        p50_ms=sorted(r.p50_ms for r in runs)[len(runs) // 2],
        p99_ms=max(r.p99_ms for r in runs),
        errors=sum(r.errors for r in runs),
        requests=sum(r.requests for r in runs),
    )
    bases = [base for base, _ in pairs]
    total.baseline_rps = sum(b.requests for b in bases) / sum(b.requests / b.rps for b in bases if b.rps)
    return total


def peak_rss_mb(master_pid: int) -> float:
    """The highest peak RSS (VmHWM) among the gunicorn workers of this master."""
    peaks = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if fields.get("PPid", "").strip() == str(master_pid) and "VmHWM" in fields:
            peaks.append(int(fields["VmHWM"].split()[0]) / 1024)
    return max(peaks, default=0.0)


def print_table(results: list[Result], extra: list[tuple[str, str]]) -> None:
    header = (
        f"{'scenario':<34} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'base/s':>7} "
        f"{'ratio':>7} {'floor':>7}"
    )
    print(header)
    print("-" * len(header))
    for result in results:
        if result.skipped:
            print(f"{result.scenario.name:<34} not yet measurable: {result.skipped}")
            continue
        base = result.baseline_rps
        base_text = f"{base:.0f}" if base else ""
        ratio = f"{result.rps / base:.2f}" if base else ""
        target = f">={result.scenario.target:.2f}" if result.scenario.target else ""
        print(
            f"{result.scenario.name:<34} {result.rps:>9.0f} {result.p50_ms:>8.2f} {result.p99_ms:>8.2f} "
            f"{result.errors:>7} {base_text:>7} {ratio:>7} {target:>7}"
        )
    for name, value in extra:
        print(f"{name:<34} {value}")


def hub_overhead(results: list[Result]) -> list[tuple[str, str]]:
    """Tool execute through the hub minus the same vendor call made directly, one connection each
    (latency, not throughput): floors p50 at most 6 ms, p99 at most 15 ms."""
    by_name = {r.scenario.name: r for r in results}
    hub, direct = by_name.get("tool execute (hub)"), by_name.get("tool: itdocs fake directly")
    if hub is None or direct is None:
        return []
    if hub.skipped or direct.skipped:
        return [("hub overhead", f"not yet measurable: {hub.skipped or direct.skipped}")]
    return [
        (
            "hub overhead (execute - direct)",
            f"p50 {hub.p50_ms - direct.p50_ms:.2f} ms (floor <= 6), "
            f"p99 {hub.p99_ms - direct.p99_ms:.2f} ms (floor <= 15)",
        )
    ]


def mcp_overhead(results: list[Result]) -> list[tuple[str, str]]:
    """The same tool call through POST /mcp tools/call minus the REST execute, one connection each:
    floor p50 at most 1 ms."""
    by_name = {r.scenario.name: r for r in results}
    mcp, rest = by_name.get("tool call (mcp)"), by_name.get("tool execute (hub)")
    if mcp is None or rest is None:
        return []
    if mcp.skipped or rest.skipped:
        return [("mcp overhead", f"not yet measurable: {mcp.skipped or rest.skipped}")]
    return [
        (
            "mcp overhead (mcp - rest)",
            f"p50 {mcp.p50_ms - rest.p50_ms:.2f} ms (floor <= 1), p99 {mcp.p99_ms - rest.p99_ms:.2f} ms",
        )
    ]


def commit_latency(env: dict, commits: int = 300) -> tuple[str, str]:
    """What one durable commit waits on this machine now, mostly its WAL flush: single-row INSERTs
    into a scratch table, one connection, one at a time. A tool call commits once (its record and
    audit entry), so this much of the hub's overhead is the disk's, not the code's."""
    import psycopg

    url = env["DATABASE_URL"].replace("postgres://", "postgresql://", 1)
    times = []
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS bench_commit (id serial PRIMARY KEY)")
        for _ in range(commits):
            started = time.perf_counter()
            connection.execute("INSERT INTO bench_commit DEFAULT VALUES")
            times.append((time.perf_counter() - started) * 1000)
        connection.execute("DROP TABLE bench_commit")
    times.sort()
    return (
        "PostgreSQL commit (1 connection)",
        f"p50 {times[len(times) // 2]:.2f} ms, p90 {times[len(times) * 9 // 10]:.2f} ms "
        f"({commits} single-row INSERTs, each its own durable commit)",
    )


def sitelib_listing(fakes: Fakes, context: dict) -> tuple[str, str]:
    """POST /v2/sitelib/listing over SITES x DRIVES at LATENCY, one at a time: the median listing
    time beside the sequential sum of its upstream calls, the HTTP requests that carried them (JSON
    batches carry many) and its slowest chain of calls as if each were sent alone (floor <= 1.5x)."""
    headers = {"X-API-Key": context["api_key"], "x-tenantid": context["tenant_id"]}
    body = {
        "authorization": {
            "cloud_tid": SITELIB_TID,
            "client_id": "bench-app",
            "client_secret": "bench-secret",
        },
        "sitelib_auth": False,
    }
    runs = []
    for _ in range(LISTINGS + 1):  # the first one warms the token cache and the connection pools
        for fake in (fakes.identity, fakes.graph):
            fake.reset()
        started = time.perf_counter()
        response = requests.post(BASE + "/v2/sitelib/listing", json=body, headers=headers, timeout=60)
        elapsed = time.perf_counter() - started
        if response.status_code != 200:
            return ("sitelib listing", f"failed: {response.status_code} {response.text[:200]}")
        fakes_used = (fakes.identity, fakes.graph)
        calls = sum(f.calls for f in fakes_used)
        http = calls - sum(f.batched for f in fakes_used) + sum(f.batches for f in fakes_used)
        sequential = sum(f.busy for f in fakes_used)
        runs.append((elapsed, sequential, slowest_chain(fakes_used, fakes.markers), calls, http))
    runs = sorted(runs[1:])
    listing, sequential, chain, calls, http = runs[len(runs) // 2]
    return (
        f"sitelib listing {SITES}x{DRIVES} @{LATENCY * 1000:.0f}ms",
        f"{listing * 1000:.0f} ms (median of {LISTINGS}); {calls} upstream calls in {http} HTTP requests, "
        f"sequential sum {sequential * 1000:.0f} ms, slowest chain {chain * 1000:.0f} ms: "
        f"{listing / chain:.2f}x the chain (floor <= 1.5x)",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="baseline/scenario pairs per scenario")
    parser.add_argument(
        "--peer-rounds", type=int, default=4, help="OpenBao/vault pairs per operation and connection count"
    )
    parser.add_argument("--only", action="append", default=[], help="a scenario's name, or openbao")
    args = parser.parse_args(argv)
    with started_fakes() as fakes:
        return measure(args, fakes)


def vector_search(env: dict, module: str = "bench.vector_search") -> list[tuple[str, str]]:
    """`bench.vector_search` or another module's figures (its own throwaway database), after the
    service has stopped."""
    done = run([sys.executable, "-m", module, "--json"], env, capture_output=True, text=True)
    return [tuple(pair) for pair in json.loads(done.stdout.strip().splitlines()[-1])]


def retrieval(env: dict) -> list[tuple[str, str]]:
    """`bench.retrieval`: the labelled set's quality per mode with the local model (its own
    throwaway database), after the service has stopped."""
    done = run(
        [sys.executable, "-m", "bench.retrieval", "--json"],
        env | {"EMBEDDING_BACKEND": "local"},
        capture_output=True,
        text=True,
    )
    return [tuple(pair) for pair in json.loads(done.stdout.strip().splitlines()[-1])]


def measure(args, fakes: Fakes) -> int:
    env = bench_env(fakes)
    Path(env["VAR_DIR"]).mkdir(parents=True, exist_ok=True)
    reset_database(env)
    context = seed(env) | {"configuration_id": fakes.configuration_id, "itdocs_url": fakes.itdocs.url}
    chosen = [s for s in SCENARIOS if not args.only or s.name in args.only]
    needed = {s.baseline for s in chosen}
    scenarios = [
        s for s in SCENARIOS if s in chosen or (s.baseline_only and (not args.only or s.name in needed))
    ]
    results: list[Result] = []
    extra: list[tuple[str, str]] = []
    by_name = {s.name: s for s in SCENARIOS}
    peer = None
    with service(env) as (web, worker):
        waited = wait_settled(web, worker)
        print(f"service settled in {waited:.0f} s (models loaded, processes idle)", flush=True)
        if not args.only or "openbao" in args.only:
            with started_openbao(OPENBAO_PORT) as bao:  # stopped before the other scenarios
                peer_context = context | {"openbao_url": bao.url, "openbao_token": bao.token}
                peer = (peer_rounds(load, peer_context, args.seconds, args.peer_rounds), bao.version)
            extra.append(audit_verified(env, context["tenant_id"]))
        for scenario in scenarios:
            load(scenario, context, 2)  # warm-up: connections, caches, the database's pages
            baseline = by_name.get(scenario.baseline or "")
            results.append(paired(scenario, baseline, context, args.seconds, args.rounds))
        extra += hub_overhead(results)
        extra += mcp_overhead(results)
        if any(r.scenario.name == "tool execute (hub)" for r in results):
            extra.append(commit_latency(env))
        if not args.only or "sitelib listing" in args.only:
            extra.append(sitelib_listing(fakes, context))
        extra.append(("gunicorn worker peak RSS", f"{peak_rss_mb(web.pid):.0f} MB"))
        if not args.only or "ingestion" in args.only:
            headers = {"X-API-Key": context["api_key"], "x-tenantid": context["tenant_id"]}
            extra += ingestion_figures(
                graph=fakes.graph,
                identity_tid=SITELIB_TID,
                base=BASE,
                headers=headers,
                env=env,
                worker_pid=worker.pid,
            )
        jobs = run(
            [sys.executable, "-m", "bench.jobs", context["tenant_id"]], env, capture_output=True, text=True
        )
        extra += [tuple(pair) for pair in json.loads(jobs.stdout.strip().splitlines()[-1])]
    if not args.only or "vector search" in args.only:
        extra += vector_search(env)
    if not args.only or "permissions pass" in args.only:
        extra += vector_search(env, "bench.permissions_pass")
    if not args.only or "retrieval" in args.only:
        extra += retrieval(env)
    print(
        f"\nbench/run on {os.cpu_count()} cores; gunicorn {WEB_WORKERS} workers x {WEB_THREADS} threads; "
        f"wrk {WRK_THREADS} threads, {WRK_CONNECTIONS} connections, {args.seconds}s per scenario "
        f"(with a baseline: {args.rounds} interleaved rounds; base/s is that baseline's)\n"
    )
    print_table(results, extra)
    if peer is not None:
        print_peer(*peer, rounds=args.peer_rounds, seconds=args.seconds)
    return 0


def audit_verified(env: dict, tenant_id: str) -> tuple[str, str]:
    """`verify_audit_chain` over the bench tenant, after the peer's writes and reads."""
    done = subprocess.run(
        [sys.executable, "manage.py", "verify_audit_chain", "--tenant", tenant_id],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    return ("audit chain after the peer", (done.stdout + done.stderr).strip().splitlines()[-1][:200])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
