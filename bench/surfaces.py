"""Benchmark the surfaces (issue 4): recall over REST and MCP Streamable HTTP vs in-process.

Why: a resident server is only worth running if the surface adds little to the engine call. Target:
surface overhead <= 3 ms p95 over the in-process figure.

Setup: a fresh gno home in a temp folder with a memory-managed collection of N fact files (default
10,000) written directly in the fact-file format (`serialize_fact`, `content_hash`, `record_id_for`,
`fact_rel_path`), spread over 20 scopes, then indexed with `gno update`. Then `gno serve` is started
as a real subprocess on a free loopback port and, with the same query sequence on every surface:

- in-process: `Engine.recall(req)` (what REST runs) and `Engine.recall(req, semantic=False)` (what
  MCP runs: lexical leg only), in this process on the same index;
- REST: `POST /api/memory/recall` with one keep-alive httpx client;
- MCP: `gno_recall` over Streamable HTTP at `/mcp`, one `mcp.Client` session;
- MCP without HTTP (diagnostic): the SDK's in-memory `Client` over `build_mcp(...)` in this process,
  to split the MCP overhead into tool layer and transport.

Each surface gets `--warmup` uncounted calls, then `--calls` sequential timed calls (default 500).
Reports p50/p95 per surface and the overhead (surface minus its in-process counterpart).

Concurrency (same served index): throughput of `POST /api/search` and MCP `gno_search` with 1, 4
and 16 clients, each sending `--tp-calls` searches back to back (target on 2 cores: 4 clients >=
1.5 x 1 client on REST); and a slow-query probe over a real corpus (`--corpus`, default the
dwarves-brain vault, indexed into `--corpus-home`): `create_app` on a real uvicorn server in this
process, one `/api/query` request spending `--slow-query-s` (10) seconds inside one SQLite
statement (a bench-only hook on the engine), while `--probe-clients` (4) other clients search
every `--probe-pace-ms`; reported are their p50/p95/max before vs during the slow request and the
difference (target: the max grows by <= 100 ms).

Usage: ``python bench/surfaces.py [--facts 10000] [--calls 500] [--json] [--keep DIR] [--corpus-home DIR]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]

try:
    from gno.memory.records import content_hash, fact_rel_path, record_id_for, serialize_fact
except ImportError:  # running from a checkout without the package installed
    sys.path.insert(0, str(REPO / "src"))
    from gno.memory.records import content_hash, fact_rel_path, record_id_for, serialize_fact

TARGET_OVERHEAD_MS = 3.0
N_SCOPES = 20
CALLER = "bench:surfaces"
SESSION = "bench-session"

SERVICES = [
    "payments", "billing", "search", "auth", "gateway", "ledger", "mailer", "scheduler", "reports",
    "profiles", "inventory", "checkout", "catalog", "pricing", "shipping", "notifications", "analytics",
    "exports", "imports", "webhooks",
]  # fmt: skip
TOPICS = [
    ("deploys", "from the main branch", "from release tags", "on Tuesdays", "behind a feature flag"),
    ("migrations", "run before deploys", "need a dry run", "are reviewed by the DBA", "are reversible"),
    ("alerts", "page the on-call", "go to the team channel", "are muted at night", "have runbooks"),
    ("backups", "run nightly", "are kept for 30 days", "are tested monthly", "are encrypted"),
    ("tests", "must pass on CI", "run in parallel", "use fixtures only", "cover the API"),
    ("secrets", "live in the vault", "rotate quarterly", "are never logged", "need two reviewers"),
    ("incidents", "get a postmortem", "are declared in chat", "have a commander", "update the status page"),
    ("releases", "are tagged weekly", "need a changelog", "ship on Thursdays", "are announced"),
]


# -- data ----------------------------------------------------------------------------------------------


def scope_of(i: int) -> str:
    return f"project:p{i % N_SCOPES:02d}"


def write_facts(memory: Path, n: int, seed: int = 7) -> None:
    """N fact files in the fact-file format, each in 1 (sometimes 2) of N_SCOPES scopes."""
    rnd = random.Random(seed)
    for i in range(n):
        svc = SERVICES[rnd.randrange(len(SERVICES))]
        topic, *clauses = TOPICS[rnd.randrange(len(TOPICS))]
        text = f"The {svc} service {topic} {rnd.choice(clauses)} (note {i})."
        scopes = [scope_of(i)] + ([scope_of(i + 7)] if i % 5 == 0 else [])
        day = 1 + i % 28
        created = f"2026-01-{day:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        chash = content_hash(text)
        rid = record_id_for(chash, created, CALLER, SESSION)
        path = memory / fact_rel_path(rid, created)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            serialize_fact(
                text=text,
                record_id=rid,
                scopes=scopes,
                caller=CALLER,
                session=SESSION,
                created_at=created,
                chash=chash,
            ),
            encoding="utf-8",
        )


def queries(n: int, seed: int = 11) -> list[tuple[str, str]]:
    """(query, scope) pairs: a service and a topic word, in one scope."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        topic = TOPICS[rnd.randrange(len(TOPICS))][0]
        out.append((f"{rnd.choice(SERVICES)} {topic}", scope_of(rnd.randrange(N_SCOPES))))
    return out


def gno_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "gno", *args]


def home_env(root: Path) -> dict[str, str]:
    """The GNO_* directories of a gno home under `root`."""
    return {k: str(root / v) for k, v in (("GNO_CONFIG_DIR", "config"), ("GNO_DATA_DIR", "data"),
                                          ("GNO_CACHE_DIR", "cache"))}  # fmt: skip


def write_config(root: Path, name: str, folder: Path, extra: str = "") -> Path:
    """The home's index.yml with one collection `name` over `folder`."""
    cfg = root / "config" / "index.yml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(
        f'version: "1.0"\ncollections:\n  - name: {name}\n    path: {json.dumps(str(folder))}\n'
        f'    pattern: "**/*.md"\n{extra}',
        encoding="utf-8",
    )
    return cfg


def setup_home(root: Path, n_facts: int) -> dict[str, str]:
    """Write the config and the facts, index them with `gno update`; return the GNO_* environment."""
    env = home_env(root)
    memory = root / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    write_config(root, "memory", memory, "    memoryManaged: true\n")
    t0 = time.perf_counter()
    write_facts(memory, n_facts)
    t1 = time.perf_counter()
    subprocess.run(gno_cmd("update"), env={**os.environ, **env}, check=True, stdout=subprocess.DEVNULL)
    t2 = time.perf_counter()
    print(
        f"setup: {n_facts} facts written in {t1 - t0:.1f}s, `gno update` {t2 - t1:.1f}s  ({root})",
        file=sys.stderr,
    )
    return env


# -- servers ----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def gno_serve(env: dict[str, str], log: Path) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            gno_cmd("serve", "--port", str(port)), env={**os.environ, **env}, stdout=fh, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gno serve exited {proc.returncode}: {log.read_text(errors='replace')}")
            try:
                if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("gno serve did not start")
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


# -- timing ------------------------------------------------------------------------------------------


def percentile(sorted_ms: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    k = max(0, min(len(sorted_ms) - 1, int(round(p / 100 * len(sorted_ms) + 0.5)) - 1))
    return sorted_ms[k]


def summarize(samples_ms: list[float]) -> dict[str, float]:
    s = sorted(samples_ms)
    return {
        "n": len(s),
        "p50_ms": round(percentile(s, 50), 3),
        "p95_ms": round(percentile(s, 95), 3),
        "mean_ms": round(sum(s) / len(s), 3),
        "max_ms": round(s[-1], 3),
    }


def time_calls(fn: Callable[[str, str], list[str]], qs: list[tuple[str, str]], warmup: int) -> tuple[list[float], int]:
    """Time fn over qs after `warmup` uncounted calls; returns (ms per call, total facts returned)."""
    for q, s in qs[:warmup]:
        fn(q, s)
    out: list[float] = []
    facts = 0
    for q, s in qs[warmup:]:
        t0 = time.perf_counter_ns()
        uris = fn(q, s)
        out.append((time.perf_counter_ns() - t0) / 1e6)
        facts += len(uris)
    return out, facts


def bench_in_process(env: dict[str, str], qs: list[tuple[str, str]], warmup: int, semantic: bool) -> Any:
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.memory.recall import RecallRequest

    engine = Engine(build_settings(env={**os.environ, **env}))

    def call(q: str, s: str) -> list[str]:
        req = RecallRequest(query=q, scopes=[s], caller=CALLER, session=SESSION)
        r = engine.recall(req) if semantic else engine.recall(req, semantic=False)
        return [f.uri for f in r.facts]

    try:
        return time_calls(call, qs, warmup)
    finally:
        engine.close()


def bench_rest(url: str, qs: list[tuple[str, str]], warmup: int) -> Any:
    with httpx.Client(base_url=url, timeout=30) as http:

        def call(q: str, s: str) -> list[str]:
            r = http.post("/api/memory/recall", json={"query": q, "scopes": [s], "caller": CALLER, "session": SESSION})
            if r.status_code != 200:
                raise RuntimeError(f"REST recall answered {r.status_code}: {r.text}")
            return [f["uri"] for f in r.json()["facts"]]

        return time_calls(call, qs, warmup)


async def _bench_mcp(url: str, qs: list[tuple[str, str]], warmup: int, mode: str) -> Any:
    return await _bench_mcp_server(f"{url}/mcp", qs, warmup, mode)


async def _bench_mcp_server(server: Any, qs: list[tuple[str, str]], warmup: int, mode: str = "auto") -> Any:
    from mcp import Client
    from mcp_types import Implementation

    async with Client(server, mode=mode, client_info=Implementation(name=CALLER, version="1")) as c:

        async def call(q: str, s: str) -> list[str]:
            res = await c.call_tool("gno_recall", {"query": q, "scopes": [s]})
            if res.is_error:
                raise RuntimeError(f"MCP recall failed: {res.structured_content}")
            assert res.structured_content is not None
            return [f["uri"] for f in res.structured_content["facts"]]

        for q, s in qs[:warmup]:
            await call(q, s)
        out: list[float] = []
        facts = 0
        for q, s in qs[warmup:]:
            t0 = time.perf_counter_ns()
            uris = await call(q, s)
            out.append((time.perf_counter_ns() - t0) / 1e6)
            facts += len(uris)
        return out, facts


def bench_mcp(url: str, qs: list[tuple[str, str]], warmup: int, mode: str) -> Any:
    return asyncio.run(_bench_mcp(url, qs, warmup, mode))


def bench_mcp_in_memory(env: dict[str, str], qs: list[tuple[str, str]], warmup: int) -> Any:
    """The MCP tool layer without HTTP: the SDK's in-memory Client over `build_mcp` in this process."""
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.mcp.server import build_mcp

    engine = Engine(build_settings(env={**os.environ, **env}))
    try:
        srv = build_mcp(engine, enable_write=False, instance_id="bench")
        return asyncio.run(_bench_mcp_server(srv, qs, warmup))
    finally:
        engine.close()


# -- concurrency --------------------------------------------------------------------------------------


def _search_queries(n: int) -> list[str]:
    return [q for q, _ in queries(n)]


def rest_throughput(url: str, clients: int, calls: int) -> float:
    """Searches per second with `clients` threads, each with its own keep-alive connection."""
    import threading

    qs = _search_queries(calls)
    barrier = threading.Barrier(clients + 1)
    errors: list[str] = []

    def client() -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            http.post("/api/search", json={"query": qs[0]})
            barrier.wait()
            for q in qs:
                r = http.post("/api/search", json={"query": q})
                if r.status_code != 200:
                    errors.append(r.text)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"REST search failed: {errors[0]}")
    return clients * calls / (time.perf_counter() - t0)


async def _mcp_throughput(url: str, clients: int, calls: int) -> float:
    import anyio
    from mcp import Client

    qs = _search_queries(calls)
    async with contextlib.AsyncExitStack() as stack:
        opened = [await stack.enter_async_context(Client(f"{url}/mcp")) for _ in range(clients)]
        for c in opened:
            await c.call_tool("gno_search", {"query": qs[0]})

        async def run_client(c: Any) -> None:
            for q in qs:
                res = await c.call_tool("gno_search", {"query": q})
                if res.is_error:
                    raise RuntimeError(f"MCP search failed: {res.structured_content}")

        t0 = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for c in opened:
                tg.start_soon(run_client, c)
        return clients * calls / (time.perf_counter() - t0)


def throughput(url: str, calls: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {"REST POST /api/search": {}, "MCP gno_search": {}}
    for n in (1, 4, 16):
        out["REST POST /api/search"][str(n)] = round(rest_throughput(url, n, calls), 1)
        out["MCP gno_search"][str(n)] = round(asyncio.run(_mcp_throughput(url, n, calls)), 1)
    return out


def corpus_home(corpus: Path, root: Path) -> dict[str, str]:
    """A gno home whose one collection is `corpus` (read in place), indexed once; reused when present."""
    env = home_env(root)
    if not (root / "config" / "index.yml").exists():
        write_config(root, "corpus", corpus.resolve())
    t0 = time.perf_counter()
    subprocess.run(gno_cmd("update"), env={**os.environ, **env}, check=True, stdout=subprocess.DEVNULL)
    print(f"setup: corpus {corpus} indexed in {time.perf_counter() - t0:.1f}s ({root})", file=sys.stderr)
    return env


def corpus_queries(corpus: Path, n: int, seed: int = 5) -> list[str]:
    """Known-item searches: the words of note titles (file names), sampled."""
    titles = sorted(p.stem for p in corpus.rglob("*.md"))
    rnd = random.Random(seed)
    return [rnd.choice(titles) for _ in range(n)]


#: a genuinely slow statement: SQLite counts a recursive CTE inside one sqlite3_step (the GIL is
#: released); `Connection.interrupt()` from a timer ends it after exactly the hold
SLOW_SQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1e15) SELECT count(*) FROM c"


def slow_query_probe(
    env: dict[str, str],
    queries_: list[str],
    hold_s: float,
    clients: int,
    pace_s: float,
    before_s: float,
    kind: str = "sql",
) -> dict[str, Any]:
    """Other clients' search latency before vs during one request that spends `hold_s` inside SQLite.

    The app is `create_app` on a real uvicorn server in this process (a bench-only hook: the engine's
    `query` first runs SLOW_SQL on its own thread's index connection for `hold_s`, interrupted by a
    timer; kind "parked" instead holds a read transaction on that connection and sleeps, which costs
    no CPU: the difference between the two is CPU contention, not waiting). `clients` threads, each with its own
    keep-alive connection, send `POST /api/search` every `pace_s` (open loop: the figure is the wait a
    slow request imposes, not saturation of 2 cores); a sample counts as `during` when it started and
    ended inside the slow request.
    """
    import threading

    import uvicorn

    from gno.config import build_settings
    from gno.engine import Engine
    from gno.http.app import create_app

    engine = Engine(build_settings(env={**os.environ, **env}))
    slow_window: dict[str, float] = {}
    real_query = engine.query

    def slow_query(*args: Any, **kw: Any) -> Any:
        import sqlite3

        conn = engine.store.conn
        slow_window["start"] = time.perf_counter()
        if kind == "parked":
            with engine.store.read():
                conn.execute("SELECT count(*) FROM documents").fetchone()
                time.sleep(hold_s)
        else:
            timer = threading.Timer(hold_s, conn.interrupt)
            timer.start()
            try:
                conn.execute(SLOW_SQL).fetchone()
            except sqlite3.OperationalError:  # interrupted: the hold is over
                pass
            finally:
                timer.cancel()
        slow_window["end"] = time.perf_counter()
        return real_query(*args, **kw)

    engine.query = slow_query  # type: ignore[method-assign]
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(engine, mcp=False, web=False), port=port, log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    while not server.started:
        time.sleep(0.01)
    url = f"http://127.0.0.1:{port}"
    samples: list[tuple[float, float]] = []  # (start, end) perf_counter seconds
    stop = threading.Event()
    errors: list[str] = []

    def client(k: int) -> None:
        with httpx.Client(base_url=url, timeout=hold_s * 3) as http:
            i = k
            next_at = time.perf_counter() + pace_s * k / clients
            while not stop.is_set():
                time.sleep(max(0.0, next_at - time.perf_counter()))
                next_at += pace_s
                t0 = time.perf_counter()
                r = http.post("/api/search", json={"query": queries_[i % len(queries_)]})
                t1 = time.perf_counter()
                if r.status_code != 200:
                    errors.append(r.text)
                samples.append((t0, t1))
                i += clients

    try:
        for q in queries_[:20]:  # warm the caches and the worker threads
            httpx.post(f"{url}/api/search", json={"query": q}, timeout=30).raise_for_status()
        threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        for th in threads:
            th.start()
        time.sleep(before_s)
        t_slow = time.perf_counter()
        slow = httpx.post(f"{url}/api/query", json={"query": "x"}, timeout=hold_s * 6)
        slow_wall = time.perf_counter() - t_slow
        stop.set()
        for th in threads:
            th.join()
    finally:
        server.should_exit = True
        t.join(timeout=20)
        engine.close()
    if errors:
        raise RuntimeError(f"search failed during the probe: {errors[0]}")
    start, end = slow_window["start"], slow_window["end"]
    before = sorted((b - a) * 1000 for a, b in samples if b < t_slow)
    during = sorted((b - a) * 1000 for a, b in samples if a >= start and b <= end)
    out: dict[str, Any] = {
        "kind": kind,
        "slow_request_s": round(slow_wall, 2),
        "slow_statement_s": round(end - start, 2),
        "slow_status": slow.status_code,
        "clients": clients,
        "pace_ms": round(pace_s * 1000),
        "before": summarize(before),
        "during": summarize(during),
    }
    for stat in ("p50_ms", "p95_ms", "max_ms"):
        out[f"delay_{stat}"] = round(out["during"][stat] - out["before"][stat], 2)
    return out


# -- main -------------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    if not any(Path(args.corpus).rglob("*.md")):  # before the long part: the probe runs last
        raise SystemExit(f"--corpus {args.corpus}: no markdown files there (point it at shared/datasets/dwarves-brain)")
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gno-bench-surfaces-"))
    try:
        if args.keep and (root / "data").exists():
            env = home_env(root)
            print(f"setup: reusing {root}", file=sys.stderr)
        else:
            env = setup_home(root, args.facts)
        qs = queries(args.warmup + args.calls)
        results: dict[str, Any] = {}
        results["in-process Engine.recall"] = bench_in_process(env, qs, args.warmup, semantic=True)
        results["in-process Engine.recall(semantic=False)"] = bench_in_process(env, qs, args.warmup, semantic=False)
        with gno_serve(env, root / "serve.log") as url:
            results["REST POST /api/memory/recall"] = bench_rest(url, qs, args.warmup)
            results[f"MCP gno_recall (Streamable HTTP, {args.mcp_mode})"] = bench_mcp(
                url, qs, args.warmup, args.mcp_mode
            )
            tput = throughput(url, args.tp_calls)
        corpus = Path(args.corpus)
        corpus_env = corpus_home(corpus, Path(args.corpus_home) if args.corpus_home else root / "corpus-home")
        probe_args = (corpus_env, corpus_queries(corpus, 2000), args.slow_query_s, args.probe_clients)
        probe = slow_query_probe(*probe_args, args.probe_pace_ms / 1000, args.probe_before_s)
        parked = slow_query_probe(*probe_args, args.probe_pace_ms / 1000, args.probe_before_s, kind="parked")
        # last: building an MCPServer in this process calls logging.basicConfig(INFO, RichHandler), after
        # which every httpx request of this process would be logged (and timed) by the HTTP rows above
        results["MCP gno_recall (in-memory Client, no HTTP)"] = bench_mcp_in_memory(env, qs, args.warmup)
        facts = {name: f for name, (_, f) in results.items()}
        if len(set(facts.values())) != 1:
            raise RuntimeError(f"surfaces returned different numbers of facts: {facts}")
        rows = {name: summarize(ms) for name, (ms, _) in results.items()}
        base = {
            "REST POST /api/memory/recall": "in-process Engine.recall",
            f"MCP gno_recall (Streamable HTTP, {args.mcp_mode})": "in-process Engine.recall(semantic=False)",
            "MCP gno_recall (in-memory Client, no HTTP)": "in-process Engine.recall(semantic=False)",
        }
        for name, ref in base.items():
            rows[name]["overhead_p50_ms"] = round(rows[name]["p50_ms"] - rows[ref]["p50_ms"], 3)
            rows[name]["overhead_p95_ms"] = round(rows[name]["p95_ms"] - rows[ref]["p95_ms"], 3)
            rows[name]["target_met"] = rows[name]["overhead_p95_ms"] <= TARGET_OVERHEAD_MS
        return {
            "cpus": os.cpu_count(),
            "loadavg_1m": round(os.getloadavg()[0], 2),
            "facts": args.facts,
            "scopes": N_SCOPES,
            "calls": args.calls,
            "warmup": args.warmup,
            "facts_returned_per_surface": next(iter(facts.values())),
            "target_overhead_p95_ms": TARGET_OVERHEAD_MS,
            "surfaces": rows,
            "throughput_calls_per_s": tput,
            "rest_4_vs_1": round(tput["REST POST /api/search"]["4"] / tput["REST POST /api/search"]["1"], 2),
            "slow_query": probe,
            "slow_query_parked": parked,
        }
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def print_table(report: dict[str, Any]) -> None:
    print(
        f"recall: {report['calls']} sequential calls per surface (+{report['warmup']} warm-up), "
        f"{report['facts']} facts in {report['scopes']} scopes, "
        f"{report['facts_returned_per_surface']} facts returned per surface; "
        f"{report['cpus']} CPUs, load average {report['loadavg_1m']} at the end"
    )
    head = f"{'surface':<46} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'max ms':>8} {'+p50':>7} {'+p95':>7}  target"
    print(head)
    print("-" * len(head))
    for name, r in report["surfaces"].items():
        extra = (
            f"{r['overhead_p50_ms']:>7.2f} {r['overhead_p95_ms']:>7.2f}  "
            + ("ok" if r["target_met"] else f"MISSED (> {report['target_overhead_p95_ms']} ms)")
            if "overhead_p95_ms" in r
            else f"{'':>7} {'':>7}  (baseline)"
        )
        print(f"{name:<46} {r['p50_ms']:>8.2f} {r['p95_ms']:>8.2f} {r['mean_ms']:>8.2f} {r['max_ms']:>8.2f} {extra}")
    print(f"overhead = surface minus its in-process counterpart; target <= {report['target_overhead_p95_ms']} ms p95")
    print("\nthroughput (searches/s) at 1 / 4 / 16 clients:")
    for name, row in report["throughput_calls_per_s"].items():
        print(f"  {name:<24} " + " / ".join(f"{row[k]:.1f}" for k in ("1", "4", "16")))
    print(f"  REST 4 clients / 1 client = {report['rest_4_vs_1']} (target >= 1.5 on 2 cores)")
    for key, what in (("slow_query", "inside one SQLite statement"), ("slow_query_parked", "parked in a read")):
        sq = report[key]
        print(
            f"\nslow request ({sq['slow_statement_s']} s {what}, answered {sq['slow_status']} after "
            f"{sq['slow_request_s']} s); {sq['clients']} clients searching every {sq['pace_ms']} ms each:"
        )
        for phase in ("before", "during"):
            r = sq[phase]
            print(
                f"  {phase:<7} n={r['n']:<5} p50 {r['p50_ms']:8.2f}  p95 {r['p95_ms']:8.2f}  max {r['max_ms']:8.2f} ms"
            )
        print(
            f"  delay   p50 {sq['delay_p50_ms']:+.2f}  p95 {sq['delay_p95_ms']:+.2f}  max {sq['delay_max_ms']:+.2f} ms "
            "(target: max <= 100)"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--facts", type=int, default=10_000, help="fact files to write (default 10000)")
    ap.add_argument("--calls", type=int, default=500, help="timed recall calls per surface (default 500)")
    ap.add_argument("--warmup", type=int, default=20, help="uncounted calls per surface first (default 20)")
    ap.add_argument(
        "--mcp-mode", default="auto", choices=["auto", "legacy"], help="MCP client mode (auto = 2026-07-28)"
    )
    ap.add_argument("--tp-calls", type=int, default=200, help="searches per client in the throughput runs")
    ap.add_argument("--slow-query-s", type=float, default=10.0, help="seconds the slow request spends in SQLite (10)")
    ap.add_argument(
        "--corpus",
        default=str(REPO.parent / "shared/datasets/dwarves-brain"),
        help="markdown folder the slow-query probe searches (read in place)",
    )
    ap.add_argument("--corpus-home", metavar="DIR", help="gno home for the corpus index (kept)")
    ap.add_argument("--probe-clients", type=int, default=4, help="searching clients during the probe (4)")
    ap.add_argument("--probe-pace-ms", type=float, default=50.0, help="each probe client searches every N ms (50)")
    ap.add_argument("--probe-before-s", type=float, default=8.0, help="seconds of baseline before the slow request")
    ap.add_argument("--keep", metavar="DIR", help="build (or reuse) the gno home in DIR and keep it")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    report = run(args)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0 if all(r.get("target_met", True) for r in report["surfaces"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
