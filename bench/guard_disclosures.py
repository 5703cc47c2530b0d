"""Secrets written the way a memory holds them, and look-alikes that must stay: the Memory Guard's redaction.

Why: the secret collections of ``guard_loso.py`` are scanner test files (config lines, provider tokens). A
memory holds "the password for the office wifi is ...", "gym locker: 3829", a seed phrase or a login pair in
a sentence, and it holds talk of passwords and numbers that are not secrets ("error code 404", "the password
is in 1Password"). ``bench/guard_disclosures.jsonl`` holds 155 such texts (93 with one secret value, 62
look-alikes; several languages), written by someone who had not read the guard's rules. Odd ids are the tune
half, even ids the report half: rules are written from the tune half's misses only; ``--show-misses`` prints
the tune half's misses and false positives, never the report half's.

Scores: the share of secrets whose value is gone from the guarded text, and the share of look-alikes the
guard changed at all (a false positive), per half.

``bench/guard_disclosures_heldout.jsonl`` is a second set by another writer who had read neither the rules nor
the first set (117 texts, 67 secrets, in other styles: an agent's third-person records, runbook steps, ticket
comments, timestamped chat lines), all report: it is scored, never read while rules are written.
``bench/guard_disclosures_more.jsonl`` is a third set by a third writer (198 texts, 129 secrets: table cells,
command-line flags, values before their label, key: value blocks, eight languages), all tune: written after
the first rules, its misses shaped the second round. ``bench/guard_disclosures_casual.jsonl`` is a fourth, by
a fourth writer (234 texts, 147 secrets: terse fragments, arrows and emoji, JSON, corrections, "it's now …"),
all tune as well.

Usage: ``python bench/guard_disclosures.py [--show-misses]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from gno.guard.secrets import redact_secrets  # noqa: E402

DATA = REPO / "bench" / "guard_disclosures.jsonl"
#: a second set by another writer, in other styles (agent records, runbooks, chat lines, tickets): all report
HELD_OUT = REPO / "bench" / "guard_disclosures_heldout.jsonl"
#: a third set by a third writer (tables, command lines, values before their label, eight languages): all tune
MORE = REPO / "bench" / "guard_disclosures_more.jsonl"
#: a fourth set by a fourth writer, casual and terse (fragments, arrows, emoji, JSON, corrections): all tune
CASUAL = REPO / "bench" / "guard_disclosures_casual.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--show-misses", action="store_true", help="print the tune half's misses and false positives")
    args = parser.parse_args(argv)
    print("Memory-shaped secrets: value gone / look-alike changed")
    for path in (DATA, MORE, CASUAL, HELD_OUT):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        print(f" {path.name}")
        _score(rows, show=args.show_misses)
    return 0


def _score(rows: list[dict[str, str]], *, show: bool) -> None:
    for half in ("tune", "report"):
        part = [r for r in rows if r["split"] == half]
        if not part:
            continue
        secrets = [r for r in part if r["secret"]]
        benign = [r for r in part if not r["secret"]]
        gone = [r for r in secrets if r["secret"] not in redact_secrets(r["text"]).text]
        changed = [r for r in benign if redact_secrets(r["text"]).changed]
        print(
            f"  {half:<6} secrets gone {len(gone)}/{len(secrets)} = {len(gone) / max(len(secrets), 1):.1%}"
            f"   look-alikes changed {len(changed)}/{len(benign)} = {len(changed) / max(len(benign), 1):.1%}"
        )
        if show and half == "tune":
            for r in secrets:
                if r not in gone:
                    print(f"    MISS [{r['kind']}] {r['text']!r} -> {r['secret']!r}")
            for r in changed:
                print(f"    FP   [{r['kind']}] {redact_secrets(r['text']).text!r}")


if __name__ == "__main__":
    raise SystemExit(main())
