"""Whole-process cost of gno commands with and without a resident owner, and 16 clients at once.

Two gno homes over the same vault (the first `--notes` notes of dwarves-brain, sorted by path)
and the same `--facts` memory facts:

* **owned**: notes and memory embedded (MiniLM), a `gno daemon` owns it, so every command is
  answered by its warm worker. Timed: `gno recall --json` (hybrid: the memory has vectors),
  `gno query --json`, `gno ask --json`, and `gno mcp` from spawn to the first tool result (raw
  JSON-RPC over the pipe: initialize, initialized, tools/call gno_search);
* **cold**: no vectors and no owner. Timed: the lexical commands `recall --json`, `remember`
  (a proposal: it writes nothing), `get`, `multi-get`, `ls`, `status`, `changes`, `links`,
  `backlinks`.

Every round runs `python -c pass` and each command back to back (interleaved, so the machine's
load is the same for all); the ratios are medians over `python -c pass`'s median. Before timing,
recall, query and ask through the owner are compared with `GNO_NO_DAEMON=1` (durations and
receipts masked): the run fails if they differ.

`--clients 16` then runs that many CLI clients at once against the owner, each `--per-client`
commands cycling recall, query and `remember --add` (a unique fact each); reported: errors,
p50/p95 per command, and lost writes (every remembered fact must be found by `recall`).

Usage::

    nice -n 10 python bench/resident.py [--rounds 15] [--clients 16] [--per-client 6] [--cache DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cold_start import TOPICS, build_home, copy_vault, ensure_compiled, env_for, lexical_commands, run, timed

DEFAULT_DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
GNO = str(Path(sys.executable).with_name("gno"))
TARGETS = {"recall": 4.0, "query": 4.0, "ask": 10.0, "mcp": 15.0, "lexical": 4.0}
VOLATILE = re.compile(r'"(?:elapsedMs|issuedAt|digest|durationMs)": [^,\n]+|receipt [0-9a-f]{12}')
def start_owner(home: Path) -> subprocess.Popen[bytes]:
    env = env_for(home)
    log = open(home / "daemon.out", "ab")  # noqa: SIM115 - the daemon's output for the run
    proc = subprocess.Popen([GNO, "daemon", "--no-sync-on-start"], env=env, stdout=log, stderr=log)
    sock = home / "data" / "run" / "gno.sock"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if sock.exists() and "answering commands" in (home / "data" / "daemon.log").read_text(errors="replace"):
            return proc
        if proc.poll() is not None:
            raise SystemExit(f"the daemon exited: {(home / 'daemon.out').read_text()[-800:]}")
        time.sleep(0.2)
    raise SystemExit("the daemon never answered")


def mcp_first_result(env: dict[str, str]) -> float:
    """Spawn `gno mcp`, send initialize + one tools/call at once; seconds until the call's result."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "gno_search", "arguments": {
            "query": "design"}}},
    ]
    started = time.perf_counter()
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL}
    proc = subprocess.Popen([GNO, "mcp"], env=env, **pipes)  # type: ignore[call-overload]
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            msg = json.loads(line)
            if msg.get("id") == 2:
                elapsed = time.perf_counter() - started
                if "error" in msg or msg["result"].get("isError"):
                    raise SystemExit(f"gno mcp tool call failed: {msg}")
                return elapsed
        raise SystemExit("gno mcp ended before the tool result")
    finally:
        proc.stdin.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def same_results(owned: Path, cmds: dict[str, list[str]]) -> dict[str, bool]:
    out = {}
    for name, args in cmds.items():
        served = run(args, env_for(owned)).stdout
        local = run(args, env_for(owned, GNO_NO_DAEMON="1")).stdout
        out[name] = VOLATILE.sub("", served) == VOLATILE.sub("", local)
        if not out[name]:
            raise SystemExit(f"{name}: the owner's answer differs from GNO_NO_DAEMON=1")
    return out


def concurrency(owned: Path, clients: int, per_client: int) -> dict[str, object]:
    env = env_for(owned)
    lat: dict[str, list[float]] = {"recall": [], "query": [], "remember": []}
    errors: list[str] = []
    written: list[str] = []
    lock = threading.Lock()

    def client(c: int) -> None:
        for i in range(per_client):
            kind = ("recall", "query", "remember")[(c + i) % 3]
            if kind == "recall":
                args = ["recall", TOPICS[(c + i) % len(TOPICS)], "-s", "team", "--json"]
            elif kind == "query":
                args = ["query", "design research interviews", "--json"]
            else:
                text = f"Concurrent client {c} write {i} keeps marker zq{c}x{i}."
                args = ["remember", text, "-s", "load", "--add", "--json"]
            started = time.perf_counter()
            proc = subprocess.run([GNO, *args], env=env, capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - started
            with lock:
                lat[kind].append(elapsed)
                if proc.returncode != 0:
                    errors.append(f"{kind}: {proc.returncode} {proc.stderr[-300:]}{proc.stdout[-300:]}")
                elif kind == "remember":
                    written.append(f"zq{c}x{i}")

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    wall = time.perf_counter() - started
    listed = run(["ls", "memory", "--json"], env_for(owned, GNO_NO_DAEMON="1")).stdout
    texts = "".join(p.read_text() for p in (owned / "memory").rglob("*.md"))
    lost = [m for m in written if m not in texts]  # on disk
    indexed = sum(1 for m in written if run(["search", m, "--json"], env).stdout.count(m) > 0)
    return {
        "clients": clients,
        "commands": sum(len(v) for v in lat.values()),
        "wallSeconds": round(wall, 2),
        "errors": errors,
        "writes": len(written),
        "lostWrites": lost,
        "writesIndexed": indexed,
        "writesListed": sum(1 for m in written if m in listed),
        "p50Ms": {k: round(statistics.median(v) * 1000, 1) for k, v in lat.items() if v},
        "p95Ms": {k: round(pct(v, 0.95) * 1000, 1) for k, v in lat.items() if v},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "gno-bench-resident")
    ap.add_argument("--notes", type=int, default=60)
    ap.add_argument("--facts", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--per-client", type=int, default=6)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    vault = copy_vault(args.datasets, args.cache / "vault", args.notes)
    owned, cold = args.cache / "owned", args.cache / "cold"
    build_home(owned, vault, args.facts, embed=True)
    build_home(cold, vault, args.facts, embed=False)
    compiled = ensure_compiled()
    owner = start_owner(owned)
    try:
        served = {
            "recall": ["recall", "deploys", "-s", "team", "--json"],
            "query": ["query", "design research interviews", "--json"],
            "ask": ["ask", "what is the idea behind jobs to be done", "--json"],
        }
        checked = same_results(owned, served)
        lexical = lexical_commands(vault)
        oenv, cenv = env_for(owned), env_for(cold)
        times: dict[str, list[float]] = {"python -c pass": [], "mcp": []}
        times.update({k: [] for k in served})
        times.update({k: [] for k in lexical})
        for _ in range(args.rounds):
            times["python -c pass"].append(timed([sys.executable, "-c", "pass"], oenv))
            for k, a in served.items():
                times[k].append(timed([GNO, *a], oenv))
            times["mcp"].append(mcp_first_result(oenv))
            for k, a in lexical.items():
                times[k].append(timed([GNO, *a], cenv))
        load = os.getloadavg()[0]
        conc = concurrency(owned, args.clients, args.per_client) if args.clients else None
    finally:
        owner.terminate()
        owner.wait(60)

    med = {k: statistics.median(v) for k, v in times.items()}
    floor = med["python -c pass"]
    ratios = {k: round(v / floor, 2) for k, v in med.items() if k != "python -c pass"}
    target = {k: TARGETS.get(k, TARGETS["lexical"]) for k in ratios}
    result = {
        "rounds": args.rounds,
        "gno": compiled,
        "loadAverage1m": round(load, 2),
        "sameAsNoDaemon": checked,
        "medianMs": {k: round(v * 1000, 1) for k, v in med.items()},
        "p90Ms": {k: round(pct(v, 0.9) * 1000, 1) for k, v in times.items()},
        "ratios": ratios,
        "met": {k: ratios[k] <= target[k] for k in ratios},
        "concurrency": conc,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.rounds} interleaved rounds ({compiled}); load average {load:.1f} on {os.cpu_count()} cores")
    print(f"{'command':<22}{'median ms':>10}{'p90 ms':>9}{'x pass':>8}  target")
    for k in times:
        r = ratios.get(k)
        tail = "" if r is None else f"{r:>8.2f}  <= {target[k]:g} {'met' if result['met'][k] else 'MISSED'}"
        print(f"{k:<22}{result['medianMs'][k]:>10.1f}{result['p90Ms'][k]:>9.1f}{tail}")
    print("same results as GNO_NO_DAEMON=1:", ", ".join(k for k, v in checked.items() if v))
    if conc:
        print(json.dumps(conc, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
