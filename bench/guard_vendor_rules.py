"""Vendor Nosey Parker's and Kingfisher's secret rules into the package as data (``src/gno/guard/data/``).

Why a script: the rules are YAML in Rust-regex dialect at a pinned commit; the guard reads JSON (no YAML
dependency at run time) and runs the patterns on RE2. The one dialect difference that matters, ``(?x)``
extended mode (RE2 has none), is resolved here by dropping the pattern's insignificant whitespace and
comments, and repetition counts above RE2's limit of 1000 are clamped to it; every converted pattern must
still match the rule's own examples (checked by the tests).
Identifiers (account ids, public keys, ARNs, host names) are not secrets and stay in memories: of Nosey
Parker's rules only those in its ``secret`` category are kept; of Kingfisher's (most carry no category) those
it hides from its own reports (``visible: false``, helpers other rules depend on) and those it files as
``identifier`` or ``hostname`` are left out, and so are its "Generic Username and Password" rules (any
value within 16 characters of ``user`` and ``pass`` words: tldr-pages' ``--password "{{password}}"`` and a
database user name were redacted by them, and gno's own assignment rules cover the real cases). A rule
whose pattern RE2 cannot compile (look-around) is left out and counted. Kingfisher's ``min_entropy``
travels with its rule.

Usage: ``python bench/guard_vendor_rules.py [--noseyparker CLONE] [--kingfisher CLONE]`` (commits pinned in
``guard_corpus.PINS``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "src"))
from guard_corpus import PINS, Repo, _yaml  # noqa: E402

DATA = REPO / "src" / "gno" / "guard" / "data"
# project -> (GitHub name, rules folder at the pinned commit, output file)
PROJECTS = {
    "noseyparker": (
        "praetorian-inc/noseyparker",
        "crates/noseyparker/data/default/builtin/rules",
        "noseyparker-rules.json",
    ),
    "kingfisher": ("mongodb/kingfisher", "data/rules", "kingfisher-rules.json"),
}


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


_LEADING_FLAGS_RE = re.compile(r"\(\?([imsxU]+)\)")


def convert(pattern: str) -> str:
    text = pattern.strip()
    flags = _LEADING_FLAGS_RE.match(text)
    if flags and "x" in flags.group(1):
        rest = flags.group(1).replace("x", "")
        text = (f"(?{rest})" if rest else "") + strip_extended(text[flags.end() :])
    return _REPEAT_RE.sub(_clamp, text)


def _kept(project: str, rule: dict[str, object]) -> bool:
    categories = set(rule.get("categories") or [])  # type: ignore[call-overload]
    if project == "noseyparker":
        return "secret" in categories
    if rule.get("name") == "Generic Username and Password":
        return False  # a value near ``user``/``pass`` words: took tldr's ``{{password}}`` and a user name
    return rule.get("visible", True) is not False and not categories & {"identifier", "hostname"}


def _compiles(pattern: str) -> bool:
    from gno.guard.gitleaks import compile_go

    try:
        compile_go(pattern)
    except Exception:  # RE2's error type depends on the binding
        return False
    return True


def vendor(project: str, clone: Path) -> None:
    github, under, out_name = PROJECTS[project]
    repo = Repo(clone, PINS[project])
    yaml = _yaml()
    rules: list[dict[str, object]] = []
    dropped = 0
    for name in repo.names(under):
        if not name.endswith((".yml", ".yaml")):
            continue
        for rule in (yaml.safe_load(repo.read(name)) or {}).get("rules", []):  # type: ignore[attr-defined]
            if not _kept(project, rule):
                continue
            pattern = convert(str(rule["pattern"]))
            if not _compiles(pattern):
                dropped += 1
                continue
            entry: dict[str, object] = {
                "id": rule["id"],
                "name": rule["name"],
                "pattern": pattern,
                "examples": list(rule.get("examples") or []),
                "negative_examples": list(rule.get("negative_examples") or []),
            }
            if rule.get("min_entropy"):
                entry["min_entropy"] = float(rule["min_entropy"])
            rules.append(entry)
    doc = {
        "source": github,
        "commit": PINS[project],
        "license": "Apache-2.0",
        "rules": sorted(rules, key=lambda r: str(r["id"])),
    }
    out = DATA / out_name
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{project}: {len(rules)} rules -> {out.relative_to(REPO)} ({dropped} left out: RE2 cannot compile them)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    for project in PROJECTS:
        parser.add_argument(f"--{project}", type=Path, help=f"clone of {PROJECTS[project][0]}")
    args = parser.parse_args(argv)
    for project in PROJECTS:
        clone = getattr(args, project)
        if clone is not None:
            vendor(project, clone)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
