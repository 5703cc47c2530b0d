"""Scale: how gno's costs grow with the number of notes (10k, 100k, 1M synthetic notes).

Each size runs in its own child process (so peak memory is that size's own) on a synthetic vault
written to a temp dir outside the repository (``--work``, default the system temp dir), from a
fixed seed, so every run sees the same bytes:

* notes: a lognormal size (median ~1.1 KB, a long tail up to ~40 KB, as a personal vault), in
  folders of 500; words drawn Zipf-like from a 30k-word vocabulary (common English words first,
  then synthetic ones, so rare words exist as in real notes); 0-3 headings; front matter with
  1-4 tags from 400 (Zipf); 1-5 wikilinks to other notes (a few to missing ones), 1 in 20 notes
  with an inline ``#tag``;
* a memory-managed collection of N/10 facts in 20 scopes (the same fact generator as
  ``bench/memory_recall.py``).

Figures per size (in-process through ``Engine``; the lexical index, no embedding model):

* ``index s``: the first ``update`` of the new vault (and ``index CPU s``, the process's CPU time
  for it: what the machine's load does not change); ``notes/s``;
* ``bytes/note``: the index's size on disk (``Store.size_bytes``) / notes;
* ``re-index s``: a second ``update`` with nothing changed (one stat per file);
* ``search p50/p95 ms``: ``engine.search`` for 200 queries of 1-2 words taken from random notes;
* ``recall p50/p95 ms``: ``engine.recall`` (lexical: no model) for 200 queries of 1-3 words of a
  random fact in its scope;
* ``search/recall CPU p50 ms``: the same calls' thread CPU time, what the machine's load does not
  change (on a shared machine the wall times above are the scheduler's as much as gno's);
* ``resident search/recall p50/p95 ms``: the same queries (the first 100 of each) as `gno search
  --json` and `gno recall --json` answered by a resident owner (`gno daemon --no-sync-on-start
  --no-embed`, started on the finished index): the round trip over its command socket from this
  process (`gno.cli.forward.run_on_owner`, stdout to /dev/null), i.e. the worker's fork, argv
  parsing, index open, the query and the JSON rendering, without the ~20-40 ms start-up of a
  fresh `gno` client process;
* ``peak MB``: the child's peak RSS (ru_maxrss), generation excluded (it runs in another child);
  ``owner MB``: the resident owner's memory after the timed commands (proportional set size of the
  owner, its warm template and the template's idle workers).

The table ends with each cost's growth exponent between successive sizes (log cost ratio / log N
ratio): 1.0 is linear, ~1.05 is N log N over a decade; a flat p50 shows ~0.

Usage::

    nice -n 10 python bench/scale.py [--sizes 10000,100000] [--work DIR] [--seed 11] [--json FILE] [--keep]
    python bench/scale.py --table A.json B.json   # one table from saved rows
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

COMMON = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her she there been one all we their has would when if so what no more out up into do any your "
    "about other can some time them only new two could these may first then also after did people over most "
    "such made like just where back through year much well before should way must see because good each those "
    "how between both under never day same another know while last might us great old year off come since "
    "against go came right used take three work project meeting note idea plan draft review system design "
    "team client budget release issue task book garden house travel health money code data model server test"
).split()
HEAD_WORDS = ("Overview", "Notes", "Plan", "Log", "Ideas", "Questions", "Summary", "Links", "Tasks", "Review")


def _vocab(rng: random.Random, n: int) -> list[str]:
    syll = ["ka", "lo", "mi", "ren", "tor", "va", "qu", "zel", "pa", "dri", "son", "bel", "ux", "ny", "ost", "far"]
    out = list(dict.fromkeys(COMMON))
    seen = set(out)
    while len(out) < n:
        w = "".join(rng.choice(syll) for _ in range(rng.randint(2, 4)))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


class Vault:
    """The synthetic vault of one size: titles, tags and a Zipf word sampler from one seed."""

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = random.Random(seed)
        self.vocab = _vocab(random.Random(seed + 1), 30_000)
        # Zipf(1.07) weights over the vocabulary as a cumulative table for rng.choices
        weights = [1.0 / (r + 1) ** 1.07 for r in range(len(self.vocab))]
        total = 0.0
        self.cum = []
        for w in weights:
            total += w
            self.cum.append(total)
        self.tags = [f"{self.vocab[200 + i]}-{i % 7}" for i in range(400)]
        tag_w = [1.0 / (r + 1) for r in range(len(self.tags))]
        self.tag_cum = [sum(tag_w[: i + 1]) for i in range(len(tag_w))]

    def title(self, i: int) -> str:
        r = random.Random(i * 7919)
        return f"{self.vocab[60 + r.randrange(3000)].title()} {self.vocab[60 + r.randrange(20000)]} {i}"

    def words(self, k: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum, k=k)

    def note(self, i: int) -> str:
        rng = self.rng
        size = min(40_000, int(rng.lognormvariate(math.log(1100), 0.9)))
        n_words = max(12, size // 6)
        tags = sorted(set(rng.choices(self.tags, cum_weights=self.tag_cum, k=rng.randint(1, 4))))
        links = [self.title(rng.randrange(self.n + self.n // 50)) for _ in range(rng.randint(1, 5))]
        words = self.words(n_words)
        parts: list[str] = [
            "---",
            f"tags: [{', '.join(tags)}]",
            f"created: 2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
            "---",
        ]
        parts.append(f"# {self.title(i)}\n")
        heads = rng.randint(0, 3)
        per = max(1, len(words) // (heads + 1))
        for h in range(heads + 1):
            if h:
                parts.append(f"\n## {rng.choice(HEAD_WORDS)} {h}\n")
            chunk = words[h * per : (h + 1) * per]
            for s in range(0, len(chunk), 14):
                parts.append(" ".join(chunk[s : s + 14]).capitalize() + ".")
        parts.append("\nSee " + ", ".join(f"[[{t}]]" for t in links) + ".")
        if i % 20 == 0:
            parts.append(f"#{tags[0]}")
        return "\n".join(parts) + "\n"


def generate(n: int, seed: int, root: Path) -> dict[str, Any]:
    from memory_recall import SCOPE_NAMES, make_fact, write_facts

    t0 = time.perf_counter()
    vault = Vault(n, seed)
    notes, total = root / "notes", 0
    for i in range(n):
        folder = notes / f"f{i // 500:04d}"
        if i % 500 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        text = vault.note(i)
        total += len(text.encode())
        (folder / f"{vault.title(i)}.md").write_text(text, encoding="utf-8")
    frng = random.Random(seed + 2)
    facts = [(make_fact(frng, i), SCOPE_NAMES[i % 20]) for i in range(max(100, n // 10))]
    (root / "memory").mkdir(parents=True, exist_ok=True)
    write_facts(root / "memory", facts)
    return {"notes": n, "facts": len(facts), "bytes": total, "generate_s": round(time.perf_counter() - t0, 1)}


def measure(root: Path, seed: int, queries: int) -> dict[str, Any]:
    """Index and query the vault at `root` in this process (a child of `main`)."""
    from gno.config import build_settings
    from gno.engine import Engine
    from gno.memory.recall import RecallRequest
    from memory_recall import SCOPE_NAMES, make_fact, pct, words_of

    home = root / "home"
    env = {
        **os.environ,
        "GNO_CONFIG_DIR": str(home / "config"),
        "GNO_DATA_DIR": str(home / "data"),
        "GNO_CACHE_DIR": str(home / "cache"),
    }
    for k in ("GNO_INDEX", "GNO_MEMORY_CALLER", "GNO_MEMORY_SESSION"):
        env.pop(k, None)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "index.yml").write_text(
        'version: "1.0"\ncollections:\n'
        f'  - name: notes\n    path: {json.dumps(str(root / "notes"))}\n    pattern: "**/*.md"\n'
        f'  - name: memory\n    path: {json.dumps(str(root / "memory"))}\n    pattern: "**/*.md"\n'
        "    memoryManaged: true\n",
        encoding="utf-8",
    )
    engine = Engine(build_settings(env=env))
    t0, c0 = time.perf_counter(), time.process_time()
    engine.update()
    index_s, index_cpu = time.perf_counter() - t0, time.process_time() - c0
    size = engine.store.size_bytes()
    t0 = time.perf_counter()
    engine.update()
    reindex_s = time.perf_counter() - t0
    status = engine.status()
    notes = next(c.active for c in status.collections if c.name == "notes")

    rng = random.Random(seed + 3)
    vault = Vault(notes, seed)
    common = set(COMMON)
    content = [w for w in vault.words(20 * (queries + 10)) if w not in common]  # as drawn by the notes
    search_q = [" ".join(rng.sample(content, rng.choice((1, 2, 2)))) for _ in range(queries + 10)]
    for q in search_q[:10]:
        engine.search(q)
    lat: list[float] = []
    cpu: list[float] = []
    for q in search_q[10:]:
        t, c = time.perf_counter(), time.thread_time()
        engine.search(q)
        lat.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)

    frng = random.Random(seed + 2)
    n_facts = max(100, notes // 10)
    facts = [(make_fact(frng, i), SCOPE_NAMES[i % 20]) for i in range(n_facts)]
    rlat: list[float] = []
    rcpu: list[float] = []
    recall_q: list[tuple[str, str]] = []
    for j in range(queries + 10):
        text, scope = facts[rng.randrange(len(facts))]
        ws = list(dict.fromkeys(words_of(text)))
        q = " ".join(rng.sample(ws, min(len(ws), rng.choice((1, 2, 2, 3)))))
        recall_q.append((q, scope))
        t, c = time.perf_counter(), time.thread_time()
        engine.recall(RecallRequest(query=q, scopes=[scope], caller="bench", session="s"), semantic=False)
        if j >= 10:
            rlat.append((time.perf_counter() - t) * 1000)
            rcpu.append((time.thread_time() - c) * 1000)
    resident = through_owner(env, home, search_q[10:110], [recall_args(q, s) for q, s in recall_q[10:110]])
    return {
        "notes": notes,
        "index_s": round(index_s, 2),
        "index_cpu_s": round(index_cpu, 2),
        "notes_per_s": round(notes / index_s, 1),
        "bytes_per_note": round(size / max(1, notes)),
        "reindex_s": round(reindex_s, 2),
        "search_p50_ms": round(statistics.median(lat), 2),
        "search_p95_ms": round(pct(lat, 95), 2),
        "recall_p50_ms": round(statistics.median(rlat), 2),
        "recall_p95_ms": round(pct(rlat, 95), 2),
        "search_cpu_p50_ms": round(statistics.median(cpu), 2),
        "recall_cpu_p50_ms": round(statistics.median(rcpu), 2),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        **resident,
    }


def recall_args(q: str, scope: str) -> list[str]:
    return ["recall", q, "--scope", scope, "--caller", "bench", "--session", "s", "--json"]


def _on_owner(args: list[str], data_root: str) -> int | None:
    """`gno ARGS` answered by the resident owner, its stdout (fd 1) sent to /dev/null meanwhile."""
    from gno import __version__
    from gno.cli.forward import run_on_owner

    sys.stdout.flush()
    null, saved = os.open(os.devnull, os.O_WRONLY), os.dup(1)
    os.dup2(null, 1)
    try:
        return run_on_owner(args, data_root, __version__)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def through_owner(env: dict[str, str], home: Path, searches: list[str], recalls: list[list[str]]) -> dict[str, Any]:
    """Start `gno daemon` on the indexed home and time `searches` and `recalls` through its socket."""
    from gno.config import build_settings
    from memory_recall import pct

    data_root = build_settings(env=env).data_root
    denv = {**env, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])}
    daemon = subprocess.Popen(
        [sys.executable, "-m", "gno", "daemon", "--no-sync-on-start", "--no-embed"],
        env=denv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(home / "daemon.err", "wb"),  # noqa: SIM115 - closed with the process
    )
    try:
        deadline = time.monotonic() + 600
        while _on_owner(["status", "--json"], data_root) is None:  # the template is still warming up
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"gno daemon did not answer: {(home / 'daemon.err').read_text()[-2000:]}")
            time.sleep(0.5)
        out: dict[str, Any] = {}
        for name, runs in (("search", [["search", q, "--json"] for q in searches]), ("recall", recalls)):
            for args in runs[:5]:
                _on_owner(args, data_root)
            lat: list[float] = []
            for args in runs:
                t = time.perf_counter()
                code = _on_owner(args, data_root)
                lat.append((time.perf_counter() - t) * 1000)
                if code not in (0, 1):  # 1: nothing found (search exits 1 on no hits)
                    raise SystemExit(f"gno {' '.join(args)} through the owner exited {code}")
            out[f"owner_{name}_p50_ms"] = round(statistics.median(lat), 2)
            out[f"owner_{name}_p95_ms"] = round(pct(lat, 95), 2)
        out["owner_mb"] = round(_tree_pss_kb(daemon.pid) / 1024)
        return out
    finally:
        daemon.terminate()
        daemon.wait(60)


def _tree_pss_kb(pid: int) -> int:
    """Proportional set size of the owner, its warm template and the template's idle workers.

    PSS, not RSS: the template and its workers are forks sharing most pages, which RSS would
    count once per process."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(_children(p))
        try:
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")), 0)
    return total


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


COLUMNS = (
    ("notes", "notes"), ("index_s", "index s"), ("index_cpu_s", "index CPU s"), ("notes_per_s", "notes/s"),
    ("bytes_per_note", "bytes/note"), ("reindex_s", "re-index s"), ("search_p50_ms", "search p50 ms"),
    ("search_p95_ms", "search p95 ms"), ("recall_p50_ms", "recall p50 ms"), ("recall_p95_ms", "recall p95 ms"),
    ("search_cpu_p50_ms", "search CPU p50 ms"), ("recall_cpu_p50_ms", "recall CPU p50 ms"),
    ("owner_search_p50_ms", "resident search p50 ms"), ("owner_search_p95_ms", "resident search p95 ms"),
    ("owner_recall_p50_ms", "resident recall p50 ms"), ("owner_recall_p95_ms", "resident recall p95 ms"),
    ("peak_mb", "peak MB"), ("owner_mb", "owner MB"),
)  # fmt: skip
GROWTH = (
    "index_s", "index_cpu_s", "bytes_per_note", "reindex_s",
    "search_p50_ms", "search_p95_ms", "recall_p50_ms", "search_cpu_p50_ms", "recall_cpu_p50_ms",
    "owner_search_p50_ms", "owner_recall_p50_ms", "peak_mb",
)  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(h for _, h in COLUMNS) + " |", "|" + " ---: |" * len(COLUMNS)]
    for r in rows:
        lines.append("| " + " | ".join(f"{r.get(k, '')}" for k, _ in COLUMNS) + " |")
    for a, b in zip(rows, rows[1:], strict=False):
        ln = math.log(b["notes"] / a["notes"])
        # bytes/note is per note: its total grows as notes x bytes/note
        cells = [
            f"{k}: {math.log((b[k] * (b['notes'] if k == 'bytes_per_note' else 1)) / (a[k] * (a['notes'] if k == 'bytes_per_note' else 1))) / ln:.2f}"  # noqa: E501
            for k in GROWTH
            if a.get(k) and b.get(k)
        ]
        lines.append(f"\ngrowth exponent {a['notes']:,} -> {b['notes']:,} notes (1.00 = linear): " + ", ".join(cells))
    return "\n".join(lines)


def run_size(n: int, args: argparse.Namespace) -> dict[str, Any]:
    base = Path(tempfile.mkdtemp(prefix=f"gno-scale-{n}-", dir=args.work))
    try:
        me = [sys.executable, __file__, "--seed", str(args.seed), "--queries", str(args.queries)]
        gen = subprocess.run([*me, "--child-generate", str(n), str(base)], capture_output=True, text=True, check=True)
        info = json.loads(gen.stdout)
        print(f"  generated {n:,} notes ({info['bytes'] / 1e6:.0f} MB) in {info['generate_s']} s", file=sys.stderr)
        out = subprocess.run([*me, "--child-measure", str(base)], capture_output=True, text=True, check=True)
        row: dict[str, Any] = {**json.loads(out.stdout), "vault_mb": round(info["bytes"] / 1e6)}
        return row
    except subprocess.CalledProcessError as exc:
        print(exc.stderr[-3000:], file=sys.stderr)
        raise
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated note counts (e.g. 10000,100000,1000000)")
    ap.add_argument("--work", default=None, help="where the vaults are written (default: the system temp dir)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--json", type=Path, default=None, help="append each finished row to this JSON file")
    ap.add_argument("--keep", action="store_true", help="keep the generated vaults")
    ap.add_argument("--table", type=Path, nargs="+", default=None, help="print the table of these --json files' rows")
    ap.add_argument("--child-generate", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--child-measure", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_generate:
        print(json.dumps(generate(int(args.child_generate[0]), args.seed, Path(args.child_generate[1]))))
        return 0
    if args.child_measure:
        print(json.dumps(measure(Path(args.child_measure), args.seed, args.queries)))
        return 0
    if args.table:
        saved = [row for f in args.table for row in json.loads(f.read_text())]
        print(table(sorted(saved, key=lambda r: int(r["notes"]))))
        return 0
    rows: list[dict[str, Any]] = []
    for n in (int(s) for s in args.sizes.split(",")):
        print(f"size {n:,}", file=sys.stderr)
        rows.append(run_size(n, args))
        print(json.dumps(rows[-1]), file=sys.stderr)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
