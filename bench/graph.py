"""`gno graph` at scale: the picture of a synthetic vault against the floor of reading its rows.

The vault is `bench/scale.py`'s (same generator and seed: 1-5 wikilinks per note, a few to missing
notes, 1-4 tags from 400), written to a temp dir and indexed in this process; the embedder is the
deterministic `fake:64` (the similar edges' cost is numpy's, not a model's). Figures per size,
each the median CPU time of this process over `--rounds` runs (SQLite runs in-process, so its work
counts; the machine's load, which stretches wall time, does not):

* ``graph ms``: `Engine.graph()` with its defaults (2,000 most linked nodes, 10,000 edges);
* ``floor ms``: the rows it has to read at least, with plain SQL on the same connection (every
  link and its key, the documents' uri/title/collection/path, the tags): ``ratio`` = graph / floor
  is what resolving, ranking, bounding and building the result adds;
* ``similar ms``: `Engine.graph(include_similar=True)` on the embedded vault (centroids of every
  linked document compared in blocks, at most `SIMILAR_BUDGET`), and its ratio to ``graph ms``.

Usage::

    nice -n 10 python bench/graph.py [--sizes 2000,10000] [--rounds 5] [--seed 11]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

FLOOR = (
    "SELECT l.doc_id, l.link_type, l.target_ref, l.start_line, k.doc_id FROM doc_links l "
    "JOIN doc_keys k ON k.key = l.target_ref_norm",
    "SELECT id, uri, title, collection, rel_path, docid FROM documents WHERE active = 1",
    "SELECT doc_id, tag FROM doc_tags",
    "SELECT doc_id, edge_type, target_uri FROM doc_edges",
)


def median_ms(fn: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    out, times = None, []
    for _ in range(rounds):
        t = time.process_time()
        out = fn()
        times.append((time.process_time() - t) * 1000)
    return round(statistics.median(times), 1), out


def run_size(n: int, seed: int, rounds: int, work: Path) -> dict[str, Any]:
    from gno.config import build_settings
    from gno.engine import Engine
    from scale import Vault

    root = work / f"graph-{n}"
    notes = root / "notes"
    vault = Vault(n, seed)
    for i in range(n):
        folder = notes / f"f{i // 500:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{vault.title(i)}.md").write_text(vault.note(i), encoding="utf-8")
    home = root / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "index.yml").write_text(
        'version: "1.0"\nmodels:\n  embed: "fake:64"\ncollections:\n'
        f'  - name: notes\n    path: {json.dumps(str(notes))}\n    pattern: "**/*.md"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    env.update(GNO_CONFIG_DIR=str(home / "config"), GNO_DATA_DIR=str(home / "data"), GNO_CACHE_DIR=str(home / "c"))
    engine = Engine(build_settings(env=env))
    engine.update()
    conn = engine.store.conn

    def floor() -> int:
        return sum(len(conn.execute(sql).fetchall()) for sql in FLOOR)

    engine.graph()  # warm: the page cache and the models' validators, for both sides
    floor()
    graph_ms, g = median_ms(engine.graph, rounds)
    floor_ms, _ = median_ms(floor, rounds)
    engine.embed()
    engine.graph(include_similar=True)  # warm: the vector matrix is loaded once per generation
    similar_ms, s = median_ms(lambda: engine.graph(include_similar=True), rounds)
    engine.close()
    return {
        "notes": n,
        "linked": g.meta.total_nodes,
        "edges": g.meta.total_edges,
        "returned": f"{g.meta.returned_nodes}/{g.meta.returned_edges}",
        "graph_ms": graph_ms,
        "floor_ms": floor_ms,
        "ratio": round(graph_ms / floor_ms, 2),
        "similar_ms": similar_ms,
        "similar_edges": s.meta.edge_types.get("similar", 0),
        "similar_ratio": round(similar_ms / graph_ms, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    cols = ["notes", "linked", "edges", "returned", "graph_ms", "floor_ms", "ratio", "similar_ms", "similar_edges"]
    cols.append("similar_ratio")
    print("| " + " | ".join(c.replace("_", " ") for c in cols) + " |")
    print("|" + "---|" * len(cols))
    with tempfile.TemporaryDirectory(prefix="gno-graph-bench-") as tmp:
        for n in (int(x) for x in args.sizes.split(",")):
            row = run_size(n, args.seed, args.rounds, Path(tmp))
            print("| " + " | ".join(str(row[c]) for c in cols) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
