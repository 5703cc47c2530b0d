"""Retrieval suite: every rung of the ladder on several public corpora, beside a plain FTS5 floor.

One command indexes each corpus in its own isolated gno home (GNO_CONFIG_DIR / GNO_DATA_DIR /
GNO_CACHE_DIR under ``--cache``), embeds it with each embedder of ``--embedders`` (vectors of
several models live side by side in one index, so a rerun only embeds what is missing), and scores
what a user gets from the engine:

* ``fts-or``: the floor. A plain SQLite FTS5 table (default ``unicode61`` tokenizer) over title and
  body of the same files, the query's words OR-ed, ranked by ``bm25()``; nothing of gno;
* ``search``: ``engine.search(q)`` (rung 1, what ``gno search`` returns);
* ``bm25``: the BM25 leg of ``gno query`` (``query(q, lexical_only=True, depth="fast")``);
* ``vsearch``: ``engine.vsearch(q)`` (the embedder alone);
* ``fast``: ``query(q, depth="fast")`` (fusion only);
* ``no-graph``: ``query(q, graph=False)``;
* ``query``: ``query(q)``, the default.

Metrics at the user-facing default ``-n 10``: nDCG@10 (graded gains, ideal from every judged
document of the query), MRR@10, Recall@10, and ``hit``: the share of queries with at least one
result at all (a bare "No results" costs a user more than a low rank).

Corpora (each with a tune part, used to choose defaults, and a report part, used to judge them):

* ``dwarves``: the dwarves-brain Obsidian vault (885 notes, wikilinks), with the judged queries of
  ``bench/queries/dwarves_brain.jsonl`` (two thirds questions in words, one third keywords; graded
  by reading the notes). Odd-numbered queries tune, even-numbered ones report;
* ``nfcorpus``: the test split's 3,162 medical abstracts; ``dev`` title queries tune (their judged
  documents that are in the test collection), ``test`` title queries report;
* ``locomo``: LoCoMo's 5,882 dialog turns as notes, one collection per conversation, each question
  (categories 1-4) asked inside its conversation's collection; conversations 1-5 tune, 6-10 report;
* ``tldr``: the 7.4k English tldr pages, unpacked from the tarball at bench time; known item: a
  page's description line (first ``>`` line) is the query, removed from the indexed copy; the page
  is grade 2, the same command on another platform grade 1. Pages whose number is even tune, odd
  report (a fixed sample of ``--tldr-queries``);
* ``silverbullet``: the SilverBullet user manual (225 pages, wikilinked, long settings and syntax
  reference pages), with the how-to questions of ``bench/queries/silverbullet.jsonl``: written as a
  new user would type them (paraphrased, no title words copied) before any ranking was looked at,
  graded by reading the pages. Odd-numbered questions tune, even-numbered ones report. Besides
  nDCG, the share of questions whose right note (a grade-2 page) is in the top 3 is reported.

``--ask`` also runs ``ask --verify`` on the question/answer pairs of
``bench/queries/dwarves_ask.jsonl`` (dwarves) and ``bench/queries/silverbullet_ask.jsonl``
(silverbullet; short factual questions, some not answerable from the manual: a pair with no answers
must be abstained on) and reports released-correct, released-wrong and abstained.

Usage::

    nice python bench/retrieval_suite.py --cache /work/cache/retrieval [--corpora dwarves,nfcorpus,locomo,tldr]
        [--embedders minilm,wordllama] [--split report|tune|all] [--ask] [--write docs/benchmarks.md] [--json]
        [--hints bench/queries/hints.yml]   # configure these context hints in each corpus's home
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import sqlite3
import statistics
import sys
import tarfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from nfcorpus import isolate, read_qrels, read_tsv  # noqa: E402  (NFCorpus files, isolated gno homes)
from suite_markdown import read_report  # noqa: E402  (an earlier report as a source of figures)

#: GNO_SUITE_SRC runs another checkout's `src` (e.g. the previous defaults) on the same cached indexes
sys.path.insert(0, os.environ.get("GNO_SUITE_SRC") or str(ROOT / "src"))

#: `../shared/datasets` beside the repository (or beside the worktrees folder holding it)
DEFAULT_DATASETS = next(
    (p / "shared" / "datasets" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared" / "datasets").is_dir()),
    ROOT.parent / "shared" / "datasets",
)
QUERIES = ROOT / "bench" / "queries"
MODES = ("fts-or", "search", "bm25", "vsearch", "fast", "no-graph", "query")
LEXICAL_MODES = ("fts-or", "search", "bm25")
CORPORA = ("dwarves", "nfcorpus", "locomo", "tldr", "silverbullet")
TOP = 3  # the how-to figure: the right note among the first TOP results
K = 10


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@dataclass
class Query:
    qid: str
    text: str
    split: str  # tune | report
    grades: dict[str, int]  # rel key -> grade
    kind: str = "keyword"
    collection: str | None = None


@dataclass
class Corpus:
    name: str
    root: Path  # folder of markdown files (one sub-folder per collection when there are several)
    collections: list[str]
    queries: list[Query]
    notes: str
    key_of: Callable[[str, str], str] = field(default=lambda coll, rel: rel)  # hit -> judged key


# -- corpora ----------------------------------------------------------------------------------------


def _source_key(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes() if p.is_file() else str(p).encode())
    return h.hexdigest()[:10]


def corpus_dwarves(datasets: Path, work: Path) -> Corpus:
    src = datasets / "dwarves-brain"
    queries = []
    for line in (QUERIES / "dwarves_brain.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            n = int(re.sub(r"\D", "", q["id"]))
            queries.append(Query(q["id"], q["query"], "tune" if n % 2 else "report", q["judgments"], q["kind"]))
    return Corpus("dwarves", src, ["brain"], queries, f"{sum(1 for _ in src.rglob('*.md'))} notes, wikilinked vault")


def corpus_silverbullet(datasets: Path, work: Path) -> Corpus:
    src = datasets / "silverbullet-docs" / "docs"
    queries = []
    for line in (QUERIES / "silverbullet.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            n = int(re.sub(r"\D", "", q["id"]))
            queries.append(Query(q["id"], q["query"], "tune" if n % 2 else "report", q["judgments"], q["kind"]))
    notes = f"{sum(1 for _ in src.rglob('*.md'))} pages, wikilinked how-to manual"
    return Corpus("silverbullet", src, ["manual"], queries, notes)


def corpus_nfcorpus(datasets: Path, work: Path) -> Corpus:
    data = datasets / "nfcorpus"
    folder = work / "files"
    docs = read_tsv(data / "test.docs")
    ids = {d for d, _ in docs}
    if not (folder / ".complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        marker = re.compile(r"\s(?:abstract|summary)\s")
        for doc_id, text in docs:
            m = marker.search(text)
            title, body = (
                (text[: m.start()].strip(), text[m.end() :].strip())
                if m and m.start() > 0
                else (" ".join(text.split()[:12]), " ".join(text.split()[12:]))
            )
            (folder / f"{doc_id}.md").write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
        (folder / ".complete").write_text("")
    queries: list[Query] = []
    for split, part in (("tune", "dev"), ("report", "test")):
        qrels = read_qrels(data / f"{part}.2-1-0.qrel")
        for qid, text in read_tsv(data / f"{part}.titles.queries"):
            grades = {f"{d}.md": g for d, g in qrels.get(qid, {}).items() if d in ids}
            if grades:
                queries.append(Query(qid, text, split, grades))
    return Corpus("nfcorpus", folder, ["nfcorpus"], queries, f"{len(docs)} abstracts (test split), graded qrels")


def _locomo_evidence(raw: list[str]) -> list[str]:
    out = []
    for item in raw:
        for part in re.split(r"[;,]", str(item)):
            m = re.match(r"^\s*D:?(\d+):(\d+)\s*$", part)
            if m:
                out.append(f"D{int(m.group(1))}-{int(m.group(2))}")
    return out


def corpus_locomo(datasets: Path, work: Path) -> Corpus:
    data = json.loads((datasets / "locomo" / "locomo10.json").read_text(encoding="utf-8"))
    folder = work / "files"
    build = not (folder / ".complete").exists()
    queries: list[Query] = []
    colls: list[str] = []
    turns = 0
    for i, sample in enumerate(data, 1):
        coll = f"conv{i:02d}"
        colls.append(coll)
        conv = sample["conversation"]
        have: set[str] = set()
        n = 1
        while f"session_{n}" in conv:
            when = conv.get(f"session_{n}_date_time", "")
            for t in conv[f"session_{n}"]:
                m = re.match(r"^D(\d+):(\d+)$", t.get("dia_id", ""))
                if not m:
                    continue
                name = f"D{int(m.group(1))}-{int(m.group(2))}"
                have.add(name)
                turns += 1
                if build:
                    (folder / coll).mkdir(parents=True, exist_ok=True)
                    text = f"# {t['speaker']}, {when}\n\n{t['speaker']}: {t.get('text', '').strip()}\n"
                    (folder / coll / f"{name}.md").write_text(text, encoding="utf-8")
            n += 1
        for j, qa in enumerate(sample["qa"]):
            if qa.get("category") not in (1, 2, 3, 4):
                continue
            gold = [e for e in _locomo_evidence(qa.get("evidence", [])) if e in have]
            if gold:
                split = "tune" if i <= 5 else "report"
                queries.append(Query(f"{coll}-{j}", str(qa["question"]), split, {f"{g}.md": 1 for g in gold},
                                     "question", coll))
    if build:
        (folder / ".complete").write_text("")
    return Corpus("locomo", folder, colls, queries, f"{turns} dialog turns as notes, 10 collections",
                  key_of=lambda coll, rel: rel)


_TLDR_ALIAS = re.compile(r"alias of|This command is an alias|Documentation for .* available", re.IGNORECASE)


def corpus_tldr(datasets: Path, work: Path, n_queries: int, skip: int = 0) -> Corpus:
    folder = work / "files"
    meta = work / "known_items.json"
    if not meta.exists():
        items: list[dict[str, str]] = []
        with tarfile.open(datasets / "tldr-pages" / "tldr-pages-all.tar.gz") as tf:
            for m in tf:
                if not (m.isfile() and m.name.startswith("pages/") and m.name.endswith(".md")):
                    continue
                f = tf.extractfile(m)
                assert f is not None
                text = f.read().decode("utf-8", errors="replace")
                rel = m.name[len("pages/") :]
                lines = text.split("\n")
                desc_i = next((i for i, ln in enumerate(lines) if ln.startswith("> ")), None)
                out = folder / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                if desc_i is not None and not _TLDR_ALIAS.search(lines[desc_i]):
                    desc = lines[desc_i][2:].strip()
                    items.append({"rel": rel, "query": desc})
                    del lines[desc_i]
                out.write_text("\n".join(lines), encoding="utf-8")
        meta.write_text(json.dumps(items), encoding="utf-8")
    items = json.loads(meta.read_text(encoding="utf-8"))
    by_cmd: dict[str, list[str]] = {}
    for p in folder.rglob("*.md"):
        by_cmd.setdefault(p.name, []).append(str(p.relative_to(folder)))
    items.sort(key=lambda it: hashlib.sha256(it["rel"].encode()).hexdigest())  # a fixed, spread-out sample
    queries = []
    for n, it in enumerate(items[skip : skip + n_queries], start=skip):
        grades = dict.fromkeys(by_cmd.get(Path(it["rel"]).name, []), 1)
        grades[it["rel"]] = 2
        queries.append(Query(f"tldr{n}", it["query"], "tune" if n % 2 == 0 else "report", grades))
    pages = sum(len(v) for v in by_cmd.values())
    return Corpus("tldr", folder, ["tldr"], queries, f"{pages} English pages, known item (description line removed)")


# -- homes -------------------------------------------------------------------------------------------


def index_key() -> str:
    """Indexes (and their vectors) are reused while the chunker that cut them is unchanged; any other
    change reaches a cached index through `gno update` and the index migrations."""
    chunker = ROOT / "src" / "gno" / "ingest" / "chunker.py"
    config = (ROOT / "src" / "gno" / "config.py").read_text()
    m = re.search(r"max_tokens: int = Field\(default=(\d+)", config)
    m2 = re.search(r"overlap_percent: float = Field\(default=([\d.]+)", config)
    defaults = f'{{"max_tokens":{m.group(1) if m else "?"},"overlap_percent":{m2.group(1) if m2 else "?"}}}'
    return _source_key(chunker, Path(defaults))


def set_embedder(engine: Any, spec: str) -> None:
    from gno.config import load_config, save_config

    cfg = load_config(engine.settings)
    cfg.models.embed = spec
    save_config(engine.settings, cfg)
    engine._config = None
    engine._semantic = None


def open_home(corpus: Corpus, home: Path) -> Any:
    from gno.config import build_settings
    from gno.engine import Engine

    isolate(home)
    fresh = not (home / ".indexed").exists()
    engine = Engine(build_settings())
    if fresh:
        t0 = time.perf_counter()
        engine.init()
        if len(corpus.collections) == 1:
            engine.collection_add(str(corpus.root), name=corpus.collections[0])
        else:
            for c in corpus.collections:
                engine.collection_add(str(corpus.root / c), name=c)
        set_embedder(engine, "fake:8")
        engine.update()
        (home / ".indexed").write_text(f"{time.perf_counter() - t0:.1f}")
        log(f"  indexed {corpus.name} in {time.perf_counter() - t0:.1f}s")
    return engine


def quality_cached(engine: Any, spec: str, quality: str) -> bool:
    """Whether every chunk has a vector of `quality` (what the re-scoring of a fast embedder reads)."""
    set_embedder(engine, quality)
    st = engine.semantic.status()
    set_embedder(engine, spec)
    return bool(st.available and st.embedded_chunks >= st.total_chunks)


def memo_query_vectors() -> None:
    """Every mode embeds the same query text again: embed it once per model and text (a slow model such
    as mpnet pays ~0.1-0.3 s per query on one core). Embeddings are deterministic: figures are unchanged."""
    from gno.retrieve.semantic import Semantic

    plain = Semantic.embed_query
    memo: dict[tuple[str, str], Any] = {}

    def embed_query(self: Semantic, text: str) -> Any:
        key = (self.ranking_embedder().fingerprint, text)  # the first pass's while it ranks
        if key not in memo:
            memo[key] = plain(self, text)
        return memo[key]

    Semantic.embed_query = embed_query  # type: ignore[method-assign]


def use_rescorer(spec: str) -> None:
    """Bench only: where the engine would re-score a fast first stage with MiniLM, use `spec` instead.

    The engine's re-scorer is MiniLM, not a setting; this measures whether another quality model would
    pay there. It reads the model's stored vectors of the candidates, so embed the corpus with it first."""
    from gno.embed import load_embedder
    from gno.retrieve.semantic import Semantic

    model = load_embedder(spec)
    engine_choice = Semantic.quality_embedder

    def quality_embedder(self: Semantic) -> Any:
        return None if engine_choice(self) is None else model

    Semantic.quality_embedder = quality_embedder  # type: ignore[method-assign]


def set_hints(engine: Any, hints: list[dict[str, str]]) -> None:
    """Configure exactly `hints` ({scope, text}) as the corpus home's context hints, through `gno context
    add`; none without --hints. Edits the YAML itself to clear them, so that a GNO_SUITE_SRC checkout
    that predates hints runs on the same cached home."""
    import yaml

    path = engine.settings.config_path
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if raw.pop("contexts", None) is not None:
        path.write_text(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True), encoding="utf-8")
        engine._config = None
    for h in hints:
        engine.context_add(h["scope"], h["text"])


def use_hint_setting(name: str, value: object) -> None:
    """Bench only: one of the hint prior's module constants (`gno.retrieve.hint_prior`: HINT_WEIGHT,
    HINT_MARGIN, LEXICAL_GATE, REORDER_ONLY) for a sweep."""
    from gno.retrieve import hint_prior

    if not hasattr(hint_prior, name):
        raise SystemExit(f"this checkout's hint prior has no {name}")
    setattr(hint_prior, name, value)


def embed(engine: Any, spec: str) -> dict[str, Any]:
    set_embedder(engine, spec)
    started = time.perf_counter()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= 15 or done == total:
            last[0] = now
            rate = done / (now - started) if now > started else 0.0
            log(f"    embed {spec}: {done}/{total} chunks, {rate:.1f}/s")

    r = engine.embed(batch_size=16, progress=progress)
    return {"embedded_now": r.embedded, "chunks": r.total_chunks, "chunks_per_s": r.chunks_per_second}


# -- the floor: plain FTS5, words OR-ed ----------------------------------------------------------------


class PlainFts:
    """SQLite FTS5 with its default tokenizer over title + body; the query's words OR-ed."""

    def __init__(self, corpus: Corpus) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(coll UNINDEXED, rel UNINDEXED, body)")
        rows = []
        for p in sorted(corpus.root.rglob("*.md")):
            rel = p.relative_to(corpus.root)
            if len(corpus.collections) > 1:
                coll, rel = rel.parts[0], Path(*rel.parts[1:])
            else:
                coll = corpus.collections[0]
            rows.append((coll, str(rel), p.stem + "\n" + p.read_text(encoding="utf-8", errors="replace")))
        self.db.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)

    def search(self, q: str, collection: str | None) -> list[tuple[str, str]]:
        words = re.findall(r"\w+", q.lower())
        if not words:
            return []
        expr = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        sql = "SELECT coll, rel FROM t WHERE t MATCH ?" + (" AND coll = ?" if collection else "")
        sql += f" ORDER BY bm25(t) LIMIT {K}"
        return [(r[0], r[1]) for r in self.db.execute(sql, (expr, collection) if collection else (expr,))]


# -- metrics -----------------------------------------------------------------------------------------


def ndcg(ranked: list[str], grades: dict[str, int]) -> float:
    dcg = sum(grades.get(d, 0) / math.log2(i + 1) for i, d in enumerate(ranked[:K], 1))
    ideal = sorted(grades.values(), reverse=True)[:K]
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, 1))
    return dcg / idcg if idcg else 0.0


def mrr(ranked: list[str], grades: dict[str, int]) -> float:
    return next((1.0 / i for i, d in enumerate(ranked[:K], 1) if grades.get(d, 0) > 0), 0.0)


def recall(ranked: list[str], grades: dict[str, int]) -> float:
    rel = {d for d, g in grades.items() if g > 0}
    return len(set(ranked[:K]) & rel) / len(rel) if rel else 0.0


def query_at_depth(engine: Any, text: str, depth: str, **kw: Any) -> Any:
    """`engine.query` at a depth, also for a `GNO_SUITE_SRC` checkout whose engine still took the
    `fast`/`thorough` pair instead of `depth` (so earlier code stays measurable on the same indexes)."""
    import inspect

    if "depth" in inspect.signature(engine.query).parameters:
        return engine.query(text, depth=depth, **kw)
    return engine.query(text, fast=depth == "fast", thorough=depth == "thorough", **kw)


def run_mode(engine: Any, fts: PlainFts, corpus: Corpus, mode: str, queries: list[Query]) -> dict[str, Any]:
    from gno.errors import GnoError

    def call(q: Query) -> list[str]:
        c = q.collection
        if mode == "fts-or":
            return [corpus.key_of(coll, rel) for coll, rel in fts.search(q.text, c)]
        if mode == "search":
            res = engine.search(q.text, collection=c, limit=K)
        elif mode == "vsearch":
            res = engine.vsearch(q.text, collection=c, limit=K)
        elif mode == "bm25":
            res = query_at_depth(engine, q.text, "fast", collection=c, limit=K, lexical_only=True)
        else:
            depth = "fast" if mode == "fast" else "balanced"
            res = query_at_depth(engine, q.text, depth, collection=c, limit=K, graph=mode != "no-graph")
        return [corpus.key_of(h.collection, h.rel_path) for h in res.results]

    per: dict[str, list[float]] = {"ndcg": [], "mrr": [], "recall": [], "hit": []}
    ranks: dict[str, list[str]] = {}
    t0 = time.perf_counter()
    for q in queries:
        try:
            ranked = call(q)
        except GnoError:
            ranked = []
        ranks[q.qid] = ranked
        per["ndcg"].append(ndcg(ranked, q.grades))
        per["mrr"].append(mrr(ranked, q.grades))
        per["recall"].append(recall(ranked, q.grades))
        per["hit"].append(1.0 if ranked else 0.0)
    out = {k: round(statistics.mean(v), 4) if v else 0.0 for k, v in per.items()}
    out["n"] = len(queries)
    out["ms_per_query"] = round((time.perf_counter() - t0) * 1000 / max(1, len(queries)), 1)
    out["_ranks"] = ranks
    return out


# -- ask --verify on the QA pairs ----------------------------------------------------------------------


def _norm(s: str) -> str:
    """Lower case, punctuation and markdown emphasis (`_slip box_`) dropped."""
    return re.sub(r"\s+", " ", re.sub(r"[^\w%+.:/-]+|(?<!\w)_+|_+(?!\w)", " ", s.lower())).strip()


#: the corpora with question/answer pairs, the file of each, and the key of its figures in a result
ASK_PAIRS = {"dwarves": ("dwarves_ask.jsonl", "ask"), "silverbullet": ("silverbullet_ask.jsonl", "ask_silverbullet")}
#: ``--ask-more``: further pairs, each marked with its own ``"split"``, and the title of their section: the
#: tune-only ones were written after the rules of the pairs above were chosen, to widen what the rules are
#: tuned on; the held-out check pairs (report) were written after the rules were final and never tuned on;
#: the probe pairs (report) and the near-miss pairs (tune-only) were written by helpers who never ran `ask`;
#: half the probe and most near-miss pairs ask for a value the docs never state, beside a sentence stating a
#: value of the same kind for a sibling thing (any released answer to them is wrong); the tldr report pairs
#: (15 flags of pages no other tldr set asks about, 5 flags no page states) were written before a rule was
#: tried on the tldr tune pairs
ASK_MORE: dict[str, tuple[tuple[str, str, str], ...]] = {
    "silverbullet": (
        ("silverbullet_ask_more.jsonl", "ask_silverbullet_more", "further tune-only"),
        ("silverbullet_ask_check.jsonl", "ask_silverbullet_check", "held-out check"),
        ("silverbullet_ask_probe.jsonl", "ask_silverbullet_probe", "held-out probe"),
        ("silverbullet_ask_nearmiss.jsonl", "ask_silverbullet_nearmiss", "near-miss tune-only"),
    ),
    "tldr": (
        ("tldr_ask.jsonl", "ask_tldr", "further tune-only"),
        ("tldr_ask_nearmiss.jsonl", "ask_tldr_nearmiss", "near-miss tune-only"),
        ("tldr_ask_report.jsonl", "ask_tldr_report", "held-out report"),
    ),
}
#: every key of the further pairs' figures
ASK_MORE_KEYS = [key for sets in ASK_MORE.values() for _, key, _ in sets]


def run_ask(
    engine: Any, pairs_file: str = "dwarves_ask.jsonl", halves: tuple[str, ...] = ("tune", "report")
) -> dict[str, Any]:
    """``ask --verify`` on each pair of the given halves. A pair without answers is not answerable from the
    corpus: any answer released for it is wrong, and abstaining is right."""
    from gno.errors import GnoError

    pairs = [json.loads(x) for x in (QUERIES / pairs_file).read_text(encoding="utf-8").splitlines() if x]
    rows = []
    for p in [p for p in pairs if _ask_half(p) in halves]:
        t0 = time.perf_counter()
        try:
            r = engine.ask(p["question"], verify=True)
            status, answer = r.answer_status, r.answer or ""
            reason = r.abstention_reason or ""
        except GnoError as err:
            status, answer, reason = "error", err.message, str(err.code)
        released = status == "verified"
        ok = released and any(re.search(rf"(?<!\w){re.escape(_norm(a))}(?!\w)", _norm(answer)) for a in p["answers"])
        key = "abstained" if not released else "released_correct" if ok else "released_wrong"
        rows.append({"id": p["id"], "half": _ask_half(p), "status": status, "verdict": key, "answer": answer[:200],
                     "reason": reason, "answerable": bool(p["answers"]), "ms": (time.perf_counter() - t0) * 1000})
    ms = sorted(r["ms"] for r in rows)
    timing = {"ms_p50": round(ms[len(ms) // 2], 1), "ms_p95": round(ms[int(0.95 * len(ms))], 1)} if ms else {}
    return {**_ask_counts(rows), **timing, "halves": {h: _ask_counts([r for r in rows if r["half"] == h])
                                            for h in ("tune", "report") if any(r["half"] == h for r in rows)},
            "rows": rows}


def _ask_half(pair: dict[str, Any] | str) -> str:
    """A pair's own ``split`` if it has one; otherwise odd-numbered ids tune, even-numbered report (as the
    judged queries)."""
    if isinstance(pair, dict) and pair.get("split"):
        return str(pair["split"])
    pair_id = pair["id"] if isinstance(pair, dict) else pair
    return "tune" if int(re.sub(r"\D", "", pair_id) or 0) % 2 else "report"


def _ask_counts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {k: sum(1 for r in rows if r["verdict"] == k) for k in ("released_correct", "released_wrong", "abstained")}
    released = counts["released_correct"] + counts["released_wrong"]
    answerable = sum(1 for r in rows if r.get("answerable", True))
    return {
        **counts,
        "pairs": len(rows),
        "answerable": answerable,
        "released": released,
        "wrong_share_of_released": round(counts["released_wrong"] / released, 4) if released else 0.0,
        "correct_share_of_answerable": round(counts["released_correct"] / answerable, 4) if answerable else 0.0,
    }


# -- report ------------------------------------------------------------------------------------------


def table(results: dict[str, Any], split: str) -> Iterator[str]:
    yield "| corpus | embedder | mode | nDCG@10 | MRR@10 | R@10 | hit | queries |"
    yield "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
    for cname, c in results["corpora"].items():
        for emb, modes in c["runs"].items():
            for mode, parts in modes.items():
                m = parts.get(split)
                if not m:
                    continue
                yield (
                    f"| {cname} | {emb} | {mode} | {m['ndcg']:.3f} | {m['mrr']:.3f} | {m['recall']:.3f} "
                    f"| {m['hit']:.2f} | {m['n']} |"
                )


def checks(results: dict[str, Any], split: str) -> list[tuple[str, bool, str]]:
    """The targets the defaults are held to, on one split."""
    out: list[tuple[str, bool, str]] = []
    for cname, c in results["corpora"].items():
        for emb, modes in c["runs"].items():
            if emb.startswith("-") or "query" not in modes or split not in modes["query"]:
                continue
            # a labelled run (`previous`) is held to its own lexical rows when it has them
            label = emb[emb.index(" (") :] if " (" in emb else ""
            lex = c["runs"].get("-" + label) or c["runs"].get("-", {})
            q = modes["query"][split]["ndcg"]
            bm = lex.get("bm25", {}).get(split, {}).get("ndcg")
            fast = modes.get("fast", {}).get(split, {}).get("ndcg")
            if bm is not None:
                out.append((f"{cname}/{emb}: query >= bm25 leg", q >= bm - 1e-9, f"{q:.3f} vs {bm:.3f}"))
            if fast is not None:
                out.append((f"{cname}/{emb}: query >= fast - 0.01", q >= fast - 0.01, f"{q:.3f} vs {fast:.3f}"))
            vs = modes.get("vsearch", {}).get(split, {}).get("ndcg")
            if vs is not None and bm is not None:
                leg = max(vs, bm)
                out.append((f"{cname}/{emb}: query >= max(vsearch, bm25 leg) - 0.005", q >= leg - 0.005 - 1e-9,
                            f"{q:.3f} vs {leg:.3f}"))
            if cname == "silverbullet" and (share := top_share(c, modes["query"][split], split)) is not None:
                out.append((f"silverbullet/{emb}: query right note in top {TOP} >= 90%", share >= 0.9 - 1e-9,
                            f"{share:.1%}"))
            if cname == "dwarves":
                out.append((f"dwarves/{emb}: query nDCG@10 >= 0.85", q >= 0.85, f"{q:.3f}"))
                others = {m: v[split]["ndcg"] for m, v in {**lex, **modes}.items() if split in v and m != "query"}
                best = max(others.items(), key=lambda x: x[1]) if others else ("-", 0.0)
                out.append((f"dwarves/{emb}: query >= every other mode - 0.01", q >= best[1] - 0.01,
                            f"{q:.3f} vs {best[0]} {best[1]:.3f}"))
            if cname == "nfcorpus" and bm:
                # a report read back keeps the ratio it printed (its figures are rounded to 3 decimals),
                # unless a later run replaced one side of it (then the rounded figures disagree with it)
                printed = modes["query"][split].get("bm25_ratio")
                ratio = printed if printed is not None and abs(printed - q / bm) < 0.004 else q / bm
                out.append((f"nfcorpus/{emb}: query >= 1.10 x bm25", ratio >= 1.10, f"{ratio:.3f} x"))
        lex = c["runs"].get("-", {})
        if cname == "dwarves" and "search" in lex and split in lex["search"]:
            run = lex["search"][split]
            if "_ranks" in run:
                qs = [q for q in c["queries"] if q["kind"] == "question" and (split == "all" or q["split"] == split)]
                share = sum(1 for q in qs if run["_ranks"].get(q["qid"])) / max(1, len(qs))
            else:  # read back from an earlier report, which prints the share, not the ranks
                share = run["question_hit"]
            out.append(("dwarves: search answers >= 95% of questions", share >= 0.95, f"{share:.1%}"))
        if cname == "silverbullet" and "search" in lex and split in lex["search"]:
            share = top_share(c, lex["search"][split], split)
            if share is not None:
                out.append((f"silverbullet: search right note in top {TOP} >= 80%", share >= 0.8 - 1e-9,
                            f"{share:.1%}"))
    return out


def top_share(corpus: dict[str, Any], run: dict[str, Any], split: str) -> float | None:
    """Share of the how-to questions whose right note (a page of the question's highest grade) is among
    the first TOP results; a run read back from a report brings the share it printed (``top_share``)."""
    if "_ranks" not in run:
        return run.get("top_share")
    grades = corpus.get("grades", {})
    qs = [q for q in corpus["queries"] if q["kind"] == "question" and (split == "all" or q["split"] == split)]
    if not qs or not grades:
        return None
    hits = 0
    for q in qs:
        g = grades[q["qid"]]
        best = {d for d, v in g.items() if v == max(g.values())}
        hits += any(d in best for d in run["_ranks"].get(q["qid"], [])[:TOP])
    return hits / len(qs)


#: everything after this line in an existing report is hand-written (measurements the suite does not make,
#: conclusions drawn from the tables) and is kept when --write regenerates the tables above it
HAND_WRITTEN = "<!-- hand-written below this line: kept when bench/retrieval_suite.py --write regenerates -->"


def write_markdown(results: dict[str, Any], path: Path, command: str, runs_note: str | None = None) -> None:
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    carried = results.get("carried", [])
    tail = old[old.index(HAND_WRITTEN) :].rstrip("\n") if HAND_WRITTEN in old else None
    lines = [
        "# Retrieval benchmarks",
        "",
        "Generated by `bench/retrieval_suite.py` (do not edit by hand); command:",
        "",
        f"    {command}",
        "",
        *([runs_note, ""] if runs_note else []),
        *[
            line
            for src, provenance in carried
            for line in (f"Rows carried over from an earlier report (its tables, read back by `--from-json {src}`), "
                         "made by:", "", provenance, "")  # fmt: skip
        ],
        "Every figure is at the user-facing default `-n 10`. `fts-or` is the floor: a plain SQLite FTS5",
        "table over the same files with the query's words OR-ed, measured in the same run. `-` rows do",
        "not depend on the embedder. `hit` is the share of queries that return anything at all. An embedder",
        "(and a `-` row) labelled `(previous)` is the code before the current defaults, run on the same",
        "cached indexes (`GNO_SUITE_SRC`), merged with `--from-json`; its targets are checked against its",
        "own lexical rows.",
        "",
        "Defaults are chosen on the **tune** part of each corpus and judged on the **report** part:",
        "",
    ]
    for cname, c in results["corpora"].items():
        lines.append(f"* **{cname}** ({c['notes']}): {c['split_rule']}.")
    for split in results["splits"]:
        lines += ["", f"## {split} part", ""]
        lines += list(table(results, split))
        chk = checks(results, split)
        if chk:
            lines += ["", f"Targets on the {split} part:", ""]
            lines += [f"* {'met' if ok else '**missed**'}: {name} ({fig})" for name, ok, fig in chk]
    if results.get("skipped"):
        lines += ["", "Not measured in this run (vectors not cached; run without `--only-embedded` to embed): "
                  + ", ".join(results["skipped"]) + "."]
    if "embed" in results:
        lines += ["", "## Embedding cost", "", "| corpus | embedder | chunks | chunks/s (last run) |"]
        lines.append("| --- | --- | ---: | ---: |")
        for cname, per in results["embed"].items():
            for emb, e in per.items():
                rate = e["chunks_per_s"] if e["embedded_now"] else "cached"
                lines.append(f"| {cname} | {emb} | {e['chunks']} | {rate} |")
    for cname, (_, key) in ASK_PAIRS.items():
        if key in results:
            lines += ask_lines(cname, results[key])
    for cname, sets in ASK_MORE.items():
        for _, key, label in sets:
            if key in results:
                lines += ask_lines(cname, results[key], label)
    if tail:
        lines += ["", tail]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


#: how a report names each corpus's question/answer pairs (read back by bench/suite_markdown.py)
ASK_TITLES = {"dwarves": "dwarves-brain", "silverbullet": "silverbullet-docs", "tldr": "tldr-pages"}


def ask_lines(cname: str, a: dict[str, Any], label: str = "") -> list[str]:
    """The report's section for one corpus's ``ask --verify`` figures (`label`: which further pairs)."""
    more = bool(label)
    unanswerable = a["pairs"] - a.get("answerable", a["pairs"])
    further = f"{label} " if label else ""
    title = f"## ask --verify on {a['pairs']} {further}{ASK_TITLES[cname]} question/answer pairs"
    out = ["", title + (f" ({unanswerable} not answerable from it)" if unanswerable else ""), ""]
    share = f"; correct = {a['correct_share_of_answerable']:.1%} of {a['answerable']} answerable"
    share = share if unanswerable else ""
    out.append(f"released-correct {a['released_correct']}, released-wrong {a['released_wrong']}, "
               f"abstained {a['abstained']} (wrong = {a['wrong_share_of_released']:.1%} of released{share}).")
    for half, h in a.get("halves", {}).items():
        ids = "all ids" if more else "odd ids" if half == "tune" else "even ids"
        out.append(f"- {half} half ({ids}): released-correct "
                   f"{h['released_correct']}, released-wrong {h['released_wrong']}, abstained {h['abstained']}.")
    return out


SPLIT_RULES = {
    "dwarves": "odd-numbered judged queries tune, even-numbered report",
    "nfcorpus": "dev title queries tune (judged documents in the test collection), test title queries report",
    "locomo": "conversations 1-5 tune, 6-10 report",
    "tldr": "even-numbered sampled pages tune, odd-numbered report",
    "silverbullet": "odd-numbered how-to questions tune, even-numbered report",
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--cache", type=Path, required=True, help="where indexes and vectors are kept between runs")
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--embedders", default="minilm,wordllama")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--split", default="all", choices=("tune", "report", "all", "both"),
                    help="which part to score; `both` reports tune and report separately")
    ap.add_argument("--tldr-queries", type=int, default=400)
    ap.add_argument("--tldr-skip", type=int, default=0,
                    help="start the tldr sample this many pages in (e.g. 400: pages the default sample never asks)")
    ap.add_argument("--locomo-every", type=int, default=2, help="use every N-th LoCoMo question (speed)")
    ap.add_argument("--ask", action="store_true", help="also run ask --verify on the QA pairs of the --split halves")
    ap.add_argument("--ask-more", action="store_true",
                    help="also run ask --verify on the further QA pairs of the --split halves (silverbullet "
                    "tune-only, near-miss tune-only, held-out check and probe; tldr tune-only, near-miss "
                    "tune-only and held-out report: --tldr-queries 0 and --modes '' ask them "
                    "without ranking the known items)")  # fmt: skip
    ap.add_argument("--rescorer", default=None,
                    help="re-score a fast first stage with this model instead of MiniLM (bench only; its vectors "
                    "must be cached), e.g. --embedders wordllama --rescorer mpnet")  # fmt: skip
    ap.add_argument(
        "--only-embedded", action="store_true", help="skip an embedder on a corpus whose vectors are not all cached yet"
    )
    ap.add_argument("--hints", type=Path, default=None,
                    help="configure the context hints of this YAML file (corpus -> [{scope, text}], e.g. "
                    "bench/queries/hints.yml) in each corpus's home; without it, none")  # fmt: skip
    ap.add_argument("--hint-weight", type=float, default=None, help="bench only: the hint prior's weight")
    ap.add_argument("--hint-margin", type=float, default=None, help="bench only: the hint prior's margin")
    ap.add_argument("--hint-gate", choices=("on", "off"), default=None,
                    help="bench only: the hint prior's lexical gate (off: every candidate's hints earn the prior)")
    ap.add_argument("--hint-reorder", choices=("on", "off"), default=None,
                    help="bench only: the prior reorders only the fused top -n (off: any candidate may rise into it)")
    ap.add_argument("--write", type=Path, default=None, help="write the markdown report here")
    ap.add_argument("--json", type=Path, default=None, help="write all figures (and per-query ranks) as JSON")
    ap.add_argument("--runs-note", default=None, help="with --write: a paragraph saying how the merged runs were made")
    ap.add_argument(
        "--from-json",
        nargs="+",
        type=Path,
        default=None,
        metavar="[LABEL=]FILE",
        help="merge the figures of earlier --json runs (later files win) instead of running; LABEL renames "
        "their embedders, e.g. previous=old.json for a run with GNO_SUITE_SRC set to the previous defaults; "
        "a FILE.md is an earlier report, read back from its tables (docs/benchmarks.md new.json adds rows)",
    )
    args = ap.parse_args(argv)
    if args.from_json:
        return report(merge_runs(args.from_json), args, argv)
    memo_query_vectors()
    hint_sets: dict[str, list[dict[str, str]]] = {}
    if args.hints:
        import yaml

        hint_sets = yaml.safe_load(args.hints.read_text(encoding="utf-8")) or {}
    for name, value in (
        ("HINT_WEIGHT", args.hint_weight),
        ("HINT_MARGIN", args.hint_margin),
        ("LEXICAL_GATE", None if args.hint_gate is None else args.hint_gate == "on"),
        ("REORDER_ONLY", None if args.hint_reorder is None else args.hint_reorder == "on"),
    ):
        if value is not None:
            use_hint_setting(name, value)
    if args.rescorer:
        use_rescorer(args.rescorer)
    modes = [m for m in args.modes.split(",") if m]
    embedders = [e for e in args.embedders.split(",") if e]
    splits = ["tune", "report"] if args.split == "both" else [args.split]
    key = index_key()
    results: dict[str, Any] = {"index_key": key, "splits": splits, "corpora": {}, "embed": {}}
    for cname in [c for c in args.corpora.split(",") if c]:
        work = args.cache / f"{cname}-data"
        work.mkdir(parents=True, exist_ok=True)
        if cname == "tldr":
            corpus = corpus_tldr(args.datasets, work, args.tldr_queries, args.tldr_skip)
        else:
            corpus = {"dwarves": corpus_dwarves, "nfcorpus": corpus_nfcorpus, "locomo": corpus_locomo,
                      "silverbullet": corpus_silverbullet}[cname](args.datasets, work)
        if cname == "locomo" and args.locomo_every > 1:
            corpus.queries = corpus.queries[:: args.locomo_every]
        log(f"{cname}: {corpus.notes}; {len(corpus.queries)} queries")
        engine = open_home(corpus, args.cache / f"{cname}-home-{key}")
        set_hints(engine, hint_sets.get(cname, []))
        fts = PlainFts(corpus)
        parts = {s: [q for q in corpus.queries if s == "all" or q.split == s] for s in splits}
        runs: dict[str, dict[str, dict[str, Any]]] = {"-": {}}
        for mode in [m for m in modes if m in LEXICAL_MODES]:
            runs["-"][mode] = {s: run_mode(engine, fts, corpus, mode, qs) for s, qs in parts.items()}
            log(f"  {cname} / {mode}: " + ", ".join(f"{s} {v['ndcg']:.3f}" for s, v in runs["-"][mode].items()))
        for spec in embedders:
            if args.only_embedded:
                set_embedder(engine, spec)
                st = engine.semantic.status()
                if not st.available or st.embedded_chunks < st.total_chunks:
                    log(f"  {cname} / {spec}: {st.embedded_chunks}/{st.total_chunks} chunks embedded; skipped")
                    results.setdefault("skipped", []).append(f"{cname}/{spec}")
                    continue
            results["embed"].setdefault(cname, {})[spec] = embed(engine, spec)
            runs[spec] = {}
            spec_modes = [m for m in modes if m not in LEXICAL_MODES]
            quality = args.rescorer or "minilm"
            if (
                args.only_embedded
                and not spec.startswith(("minilm", "mpnet"))
                and not quality_cached(engine, spec, quality)
            ):
                # the default query re-scores the top 20 with MiniLM (or --rescorer): without its cached
                # vectors that is 20 embeddings per query
                spec_modes = [m for m in spec_modes if m not in ("no-graph", "query")]
                skipped = f"{cname}/{spec} no-graph+query ({quality} vectors not cached)"
                results.setdefault("skipped", []).append(skipped)
            for mode in spec_modes:
                runs[spec][mode] = {s: run_mode(engine, fts, corpus, mode, qs) for s, qs in parts.items()}
                log(f"  {cname} / {spec} / {mode}: "
                    + ", ".join(f"{s} {v['ndcg']:.3f}" for s, v in runs[spec][mode].items()))
        results["corpora"][cname] = {
            "notes": corpus.notes,
            "split_rule": SPLIT_RULES[cname],
            "queries": [{"qid": q.qid, "kind": q.kind, "split": q.split, "text": q.text} for q in corpus.queries],
            **({"grades": {q.qid: q.grades for q in corpus.queries}} if cname == "silverbullet" else {}),
            "runs": runs,
        }
        asked = [ASK_PAIRS[cname]] if cname in ASK_PAIRS and args.ask else []
        asked += [(f, k) for f, k, _ in ASK_MORE.get(cname, ())] if args.ask_more else []
        for pairs_file, ask_key in asked:
            set_embedder(engine, embedders[0] if embedders else "minilm")
            halves = ("tune", "report") if args.split in ("all", "both") else (args.split,)
            answered = run_ask(engine, pairs_file, halves)
            if not answered["pairs"]:
                continue  # no pair of this file is in the --split halves
            results[ask_key] = answered
            log(f"  ask {pairs_file}: {({k: v for k, v in results[ask_key].items() if k != 'rows'})}")
        engine.close()
    return report(results, args, argv)


def merge_runs(files: list[Path]) -> dict[str, Any]:
    """One result from several --json runs: per corpus, embedder and mode the last file wins."""
    out: dict[str, Any] = {"splits": [], "corpora": {}, "embed": {}}
    for item in files:
        label, _, path = str(item).rpartition("=")
        if path.endswith(".md"):
            r = read_report(Path(path))
            out.setdefault("carried", []).append((path, r["provenance"]))
        else:
            r = json.loads(Path(path).read_text(encoding="utf-8"))
        out["splits"] = out["splits"] or r["splits"]
        for cname, c in r["corpora"].items():
            dst = out["corpora"].setdefault(cname, {**c, "runs": {}})
            if "queries" in c:  # a report read back has none; a run's rows with ranks need them
                dst["queries"] = c["queries"]
            if "grades" in c:
                dst["grades"] = c["grades"]
            for emb, modes in c["runs"].items():
                name = emb if not label else f"{emb} ({label})"
                dst["runs"].setdefault(name, {}).update(modes)
        for cname, per in r.get("embed", {}).items():
            for emb, e in per.items():
                out["embed"].setdefault(cname, {})[emb if not label else f"{emb} ({label})"] = e
        for key in ("ask", "ask_lexical", *(k for _, k in ASK_PAIRS.values()), *ASK_MORE_KEYS):
            if key in r:
                out[key] = r[key]
        out.setdefault("skipped", []).extend(r.get("skipped", []))
    return out


def report(results: dict[str, Any], args: argparse.Namespace, argv: list[str] | None) -> int:
    splits = results["splits"]
    for split in splits:
        print(f"\n{split} part")
        for line in table(results, split):
            print(line)
        for name, ok, fig in checks(results, split):
            print(f"  {'MET   ' if ok else 'MISSED'} {name}: {fig}")
    for key in [k for _, k in ASK_PAIRS.values()] + ASK_MORE_KEYS:
        if key in results:
            print(key, {k: v for k, v in results[key].items() if k not in ("rows", "halves")})
    if args.write:
        given = list(argv or sys.argv[1:])
        if "--runs-note" in given:  # the note is printed as prose, not repeated in the command
            i = given.index("--runs-note")
            del given[i : i + 2]
        cmd = "python bench/retrieval_suite.py " + " ".join(a for a in given if a)
        write_markdown(results, args.write, cmd, args.runs_note)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
