"""Vendor Nosey Parker's secret rules into the package as data (``src/gno/guard/data/noseyparker-rules.json``).

Why a script: the rules are YAML in Rust-regex dialect at a pinned commit; the guard reads JSON (no YAML
dependency at run time) and runs the patterns on RE2. The one dialect difference that matters, ``(?x)``
extended mode (RE2 has none), is resolved here by dropping the pattern's insignificant whitespace and
comments, and repetition counts above RE2's limit of 1000 are clamped to it; every converted pattern must
still match the rule's own examples (checked by the tests).
Only rules in the ``secret`` category are kept: identifiers (account ids, public keys, ARNs) are not
secrets and stay in memories.

Usage: ``python bench/guard_vendor_rules.py --noseyparker CLONE`` (commit pinned below).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
from guard_corpus import PINS, Repo, _yaml  # noqa: E402

OUT = REPO / "src" / "gno" / "guard" / "data" / "noseyparker-rules.json"
RULES_DIR = "crates/noseyparker/data/default/builtin/rules"


def strip_extended(pattern: str) -> str:
    """A ``(?x)`` pattern without its insignificant whitespace and ``#`` comments (classes kept intact)."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if (nxt.isspace() or nxt == "#") and not in_class else ch + nxt)
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if pattern[i + 1 : i + 2] == "]" or pattern[i + 1 : i + 3] == "^]":
                step = 2 if pattern[i + 1] == "]" else 3
                out.append(pattern[i + 1 : i + step])
                i += step
                continue
        elif pattern.startswith("(?#", i):
            close = pattern.find(")", i)
            i = len(pattern) if close < 0 else close + 1
            continue
        elif ch == "#":
            while i < len(pattern) and pattern[i] != "\n":
                i += 1
        elif not ch.isspace():
            out.append(ch)
        i += 1
    return "".join(out)


_RE2_MAX_REPEAT = 1000
_REPEAT_RE = re.compile(r"\{(\d+)(,?)(\d*)\}")


def _clamp(match: re.Match[str]) -> str:
    """RE2 refuses repetition counts above 1000; a token longer than that is still caught up to 1000."""
    low, comma, high = match.groups()
    low = str(min(int(low), _RE2_MAX_REPEAT))
    high = str(min(int(high), _RE2_MAX_REPEAT)) if high else ""
    return "{" + low + comma + high + "}"


def convert(pattern: str) -> str:
    text = pattern.strip()
    if text.startswith("(?xi)"):
        text = "(?i)" + strip_extended(text[5:])
    elif text.startswith("(?x)"):
        text = strip_extended(text[4:])
    return _REPEAT_RE.sub(_clamp, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--noseyparker", type=Path, required=True)
    args = parser.parse_args(argv)
    repo = Repo(args.noseyparker, PINS["noseyparker"])
    yaml = _yaml()
    rules = []
    for name in repo.names(RULES_DIR):
        for rule in (yaml.safe_load(repo.read(name)) or {}).get("rules", []):  # type: ignore[attr-defined]
            if "secret" not in set(rule.get("categories") or []):
                continue
            rules.append(
                {
                    "id": rule["id"],
                    "name": rule["name"],
                    "pattern": convert(str(rule["pattern"])),
                    "examples": list(rule.get("examples") or []),
                    "negative_examples": list(rule.get("negative_examples") or []),
                }
            )
    doc = {
        "source": "praetorian-inc/noseyparker",
        "commit": PINS["noseyparker"],
        "license": "Apache-2.0",
        "rules": sorted(rules, key=lambda r: r["id"]),
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(rules)} rules -> {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
