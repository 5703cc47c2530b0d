"""Documents beyond markdown: converter choice (quality, speed) and the end-to-end check.

Two parts, both over ``<datasets>/documents`` (markitdown's test files with their expected outputs,
and py-pdf's sample PDFs), read in place:

* ``--compare``: every file that gno's built-in converters take is converted by gno's converter
  and, where installed, by Microsoft's ``markitdown`` and ``pdfminer.six`` (PDFs). Figures: text
  similarity to ``markitdown/expected_outputs/`` (difflib ratio over lower-cased word tokens, so
  markdown punctuation and table pipes do not count), and conversion speed in MB/s per format
  (source bytes over wall seconds of the conversion call, in-process, best of ``--repeat``).
* ``--end-to-end`` (the default): the folder is indexed by ``gno update`` as one collection (the
  conversion worker, budgets and all); then for every file of a converted format either a
  distinctive phrase of its mirror is searched and the file must be in the top 3, or the file
  must be listed in ``gno status`` with a named reason. Files of formats gno does not take
  (images, archives, LaTeX sources) are counted as not admitted. Crashes and hangs are counted;
  the target is every file converted-and-found or skipped with a reason, 0 crashes, 0 hangs.

Usage::

    python bench/documents.py [--datasets PATH] [--compare] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from gno.ingest.converters import Budget, Refused, registry  # noqa: E402

WORD = re.compile(r"\w+", re.UNICODE)


def tokens(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


PAGE_HEADING = re.compile(r"^## Page \d+$", re.MULTILINE)


def similarity(a: str, b: str) -> float:
    """Over word tokens; gno's `## Page N` headings (its citation anchors) are not counted."""
    a, b = PAGE_HEADING.sub("", a), PAGE_HEADING.sub("", b)
    return difflib.SequenceMatcher(None, tokens(a), tokens(b), autojunk=False).ratio()


def documents_dir(datasets: str) -> Path:
    return Path(datasets).resolve() / "documents"


def _gno_convert(path: Path) -> str:
    conv = registry().for_name(path.name)
    assert conv is not None
    module, _, name = conv.target.partition(":")
    return str(getattr(importlib.import_module(module), name)(str(path), Budget()))


def _candidates() -> dict[str, Any]:
    out: dict[str, Any] = {"gno": _gno_convert}
    try:
        from markitdown import MarkItDown

        mid = MarkItDown()
        out["markitdown"] = lambda p: mid.convert(str(p)).text_content
    except ImportError:
        pass
    try:
        from pdfminer.high_level import extract_text

        out["pdfminer.six"] = lambda p: extract_text(str(p)) if p.suffix == ".pdf" else None
    except ImportError:
        pass
    return out


def compare(root: Path, repeat: int) -> dict[str, Any]:
    reg = registry()
    files = sorted(p for p in root.rglob("*") if p.is_file() and reg.for_name(p.name) and "expected" not in p.parts)
    expected = {p.stem: p.read_text(encoding="utf-8") for p in (root / "markitdown" / "expected_outputs").glob("*.md")}
    cands = _candidates()
    speed: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    quality: dict[str, dict[str, float]] = defaultdict(dict)
    failures: dict[str, list[str]] = defaultdict(list)
    for path in files:
        fmt = path.suffix.lower()
        for name, fn in cands.items():
            best, text = float("inf"), None
            try:
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    text = fn(path)
                    best = min(best, time.perf_counter() - t0)
            except Refused as exc:
                failures[name].append(f"{path.name}: {exc.code}")
                continue
            except Exception as exc:  # noqa: BLE001 - a candidate's failure is a figure
                failures[name].append(f"{path.name}: {type(exc).__name__}")
                continue
            if text is None:
                continue
            acc = speed[name][fmt]
            acc[0] += path.stat().st_size
            acc[1] += best
            if path.parent.name == "markitdown" and fmt == ".pdf" and path.stem in expected:  # all are PDFs
                quality[path.name][name] = round(similarity(text, expected[path.stem]), 3)
    mbps = {n: {f: round(b / s / 1e6, 2) if s else None for f, (b, s) in fm.items()} for n, fm in speed.items()}
    return {"files": len(files), "quality": quality, "mb_per_s": mbps, "failures": failures}


def _gno(home: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GNO_CONFIG_DIR": str(home / "c"),
        "GNO_DATA_DIR": str(home / "d"),
        "GNO_CACHE_DIR": str(home / "k"),
    }
    cmd = [sys.executable, "-m", "gno", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _lines(mirror: str) -> list[list[str]]:
    skip = ("#", "```", "**From", "**To", "**Date")
    return [t for ln in mirror.split("\n") if not ln.startswith(skip) and (t := tokens(ln.replace("|", " ")))]


def phrase(mirror: str, df: dict[str, int]) -> str | None:
    """A distinctive run of words from the mirror: its line of rarest words (document frequency
    over every mirror of the run), at most 6 words of it in order."""
    best: tuple[float, list[str]] | None = None
    for toks in _lines(mirror):
        words = [w for w in dict.fromkeys(toks) if len(w) > 1 and not w.isdigit()] or toks
        rarity = sum(1.0 / df.get(w, 1) for w in words[:6]) + 0.01 * min(len(words), 6)
        if best is None or rarity > best[0]:
            best = (rarity, words[:6])
    return " ".join(best[1]) if best else None


def _text(mirror: str) -> list[str]:
    return tokens(PAGE_HEADING.sub("", mirror))


def end_to_end(root: Path) -> dict[str, Any]:
    """Index the folder, then find each converted file by a phrase of its mirror (top 3 by distinct text)."""
    reg = registry()
    with tempfile.TemporaryDirectory(prefix="gno-docs-") as tmp:
        home = Path(tmp)
        init = _gno(home, "init", str(root), "--name", "docs")
        assert init.returncode == 0, init.stderr
        t0 = time.perf_counter()
        upd = _gno(home, "update", "--json")
        secs = time.perf_counter() - t0
        crashed = upd.returncode not in (0, 1) or "Traceback" in upd.stderr
        status = json.loads(_gno(home, "status", "--json").stdout)
        problems = {p["relPath"]: p["code"] for p in status.get("ingestErrors", [])}
        listed = json.loads(_gno(home, "ls", "docs", "--json").stdout)
        indexed = {d["relPath"] for d in listed.get("entries", [])}
        mirrors = {rel: json.loads(_gno(home, "get", f"docs/{rel}", "--json").stdout)["content"] for rel in indexed}
        df: dict[str, int] = defaultdict(int)
        for m in mirrors.values():
            for w in set(tokens(m)):
                df[w] += 1
        rows: list[dict[str, Any]] = []
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            rel = path.relative_to(root).as_posix()
            row: dict[str, Any] = {"file": rel, "format": path.suffix.lower() or path.name}
            if reg.for_name(path.name) is None and path.suffix.lower() != ".md":
                row["outcome"] = "not admitted"
            elif rel in problems and rel not in indexed:
                row["outcome"], row["reason"] = "skipped", problems[rel]
            elif rel in indexed:
                q = phrase(mirrors[rel], df)
                if q is None:
                    row["outcome"], row["reason"] = "indexed by name, no text", problems.get(rel, "-")
                else:
                    hits = json.loads(_gno(home, "search", q, "-n", "20", "--json").stdout).get("results", [])
                    # files with the very same text cannot be told apart by any phrase: one rank for them all
                    texts: list[list[str]] = []
                    for h in hits:
                        t = _text(mirrors.get(h["relPath"], ""))
                        if t not in texts:
                            texts.append(t)
                        if h["relPath"] == rel:
                            row["rank"] = texts.index(t) + 1
                            break
                    row["phrase"], row["found"] = q, row.get("rank", 99) <= 3
                    row["outcome"] = "converted, found" if row["found"] else "converted, NOT found"
            else:
                row["outcome"] = "MISSING (no row, no reason)"
            rows.append(row)
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        counts[r["outcome"]] += 1
    return {"update_seconds": round(secs, 1), "crashed": crashed, "counts": dict(counts), "files": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=str(HERE.parent.parent / "shared" / "datasets"))
    ap.add_argument("--compare", action="store_true", help="compare converters instead of the end-to-end check")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    root = documents_dir(args.datasets)
    out = compare(root, args.repeat) if args.compare else end_to_end(root)
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return
    if args.compare:
        print(f"files converted by gno's converters: {out['files']}")
        print("similarity to markitdown/expected_outputs:")
        for f, q in sorted(out["quality"].items()):
            print(f"  {f}: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(q.items())))
        print("MB/s per format:")
        for name, fm in out["mb_per_s"].items():
            print(f"  {name}: " + ", ".join(f"{f} {v}" for f, v in sorted(fm.items())))
        for name, fails in out["failures"].items():
            print(f"  {name} failed on {len(fails)}: " + "; ".join(fails))
        return
    for r in out["files"]:
        extra = f"  [{r['reason']}]" if r.get("reason") else (f"  <- {r['phrase']!r}" if r.get("phrase") else "")
        print(f"  {r['outcome']:<28} {r['file']}{extra}")
    print(f"update: {out['update_seconds']} s, crashed: {out['crashed']}; " + json.dumps(out["counts"]))


if __name__ == "__main__":
    main()
