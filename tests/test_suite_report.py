"""The retrieval suite reads its own published report back as a source of figures.

The runs' JSON files stay in a cache; `docs/benchmarks.md` is what the repository keeps. A later run
merges its rows into the report read back, so every row, target line and cost line must survive
the round trip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "benchmarks.md"


def regenerate(sources: list[Path], out: Path, tmp: Path) -> list[str]:
    cmd = [sys.executable, str(ROOT / "bench" / "retrieval_suite.py"), "--cache", str(tmp / "cache")]
    subprocess.run([*cmd, "--from-json", *map(str, sources), "--write", str(out)], check=True, capture_output=True)
    return out.read_text(encoding="utf-8").splitlines()


def figures(lines: list[str]) -> list[str]:
    """Table rows, cost rows and target lines: what the report is for."""
    marker = next((i for i, x in enumerate(lines) if x.startswith("<!-- hand-written")), len(lines))
    keep = ("| ", "* met", "* **missed", "released-correct", "- tune half", "- report half")
    return [x for x in lines[:marker] if x.startswith(keep)]


def test_the_published_report_reads_back_row_for_row(tmp_path: Path) -> None:
    published = REPORT.read_text(encoding="utf-8").splitlines()
    again = regenerate([REPORT], tmp_path / "again.md", tmp_path)
    rows = [x for x in figures(published) if x.startswith("| ")]
    assert len(rows) > 200
    assert any(x.startswith("* **missed**") for x in figures(published))
    assert figures(again) == figures(published)


def test_a_second_round_trip_keeps_the_report_and_its_provenance(tmp_path: Path) -> None:
    first = regenerate([REPORT], tmp_path / "first.md", tmp_path)
    second = regenerate([tmp_path / "first.md"], tmp_path / "second.md", tmp_path)
    assert figures(second) == figures(first)
    # the earlier report's own command is carried along, not lost
    original_command = REPORT.read_text(encoding="utf-8").splitlines()[4]
    assert original_command.startswith("    python bench/retrieval_suite.py")
    assert original_command in second


def figures_of(score: float, hit: float, n: int) -> dict[str, float]:
    return {"ndcg": score, "mrr": score, "recall": hit, "hit": hit, "n": n}


def test_a_run_with_ranks_merges_into_a_report_read_back(tmp_path: Path) -> None:
    """A later run's dwarves `search` rows carry per-query ranks; its queries come with it."""
    run = {
        "splits": ["tune", "report"],
        "corpora": {
            "dwarves": {
                "notes": "885 notes, wikilinked vault",
                "split_rule": "odd-numbered judged queries tune, even-numbered report",
                "queries": [
                    {"qid": "q1", "kind": "question", "split": "tune", "text": "how do I link notes"},
                    {"qid": "q2", "kind": "question", "split": "report", "text": "what is a vault"},
                    {"qid": "q3", "kind": "question", "split": "report", "text": "where are tags kept"},
                ],
                "runs": {
                    "-": {
                        "search": {
                            "tune": {**figures_of(0.5, 1.0, 1), "_ranks": {"q1": ["a"]}},
                            "report": {**figures_of(0.4, 0.5, 2), "_ranks": {"q2": ["b"], "q3": []}},
                        }
                    }
                },
            },
            # a later BM25 leg on NFCorpus: the printed ratios to it no longer hold and are recomputed
            "nfcorpus": {"runs": {"-": {"bm25": {"tune": figures_of(0.25, 0.9, 317)}}}},
        },
    }
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    lines = regenerate([REPORT, tmp_path / "run.json"], tmp_path / "merged.md", tmp_path)
    assert "| dwarves | - | search | 0.400 | 0.400 | 0.500 | 0.50 | 2 |" in lines
    assert "* **missed**: dwarves: search answers >= 95% of questions (50.0%)" in lines
    # the ratio is recomputed from the published MiniLM `query` row (tune part, the first table) over 0.250
    published = next(
        x for x in REPORT.read_text(encoding="utf-8").splitlines() if x.startswith("| nfcorpus | minilm | query |")
    )
    ratio = float(published.split("|")[4]) / 0.25
    assert f"* met: nfcorpus/minilm: query >= 1.10 x bm25 ({ratio:.3f} x)" in lines
