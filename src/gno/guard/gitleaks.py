"""gitleaks' public rule set, read as data: the secret formats the guard knows by shape.

Why a rule file and not a hand list: the ~220 rules of gitleaks (MIT; ``data/gitleaks.toml`` with its
licence beside it) are maintained by people who track vendors' token formats; each carries keywords
(a cheap pre-check), a Shannon-entropy floor, the capture group that holds the secret, and
allowlists. The guard applies them the way gitleaks does:

* a rule runs only when one of its keywords occurs in the lower-cased text;
* the secret is the rule's ``secretGroup``, else the first non-empty group, else the whole match;
* it must beat the rule's entropy, and a ``generic-*`` rule's secret must contain a digit;
* the global allowlist and the rule's own (``regexTarget`` secret / match / line, ``stopwords``,
  ``condition`` OR / AND) drop it; an allowlist that also needs a file path never applies, since
  a memory has no path. Rules that match file paths only (``pkcs12-file``) are not text rules.

The patterns are Go RE2; they run on the RE2 engine itself (``google-re2``), unchanged: no
translation to drift, and matching time linear in the input whatever the text, so a crafted
record cannot make the guard slow.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from gno.guard.secret_values import shannon_entropy

RULE_FILE = "gitleaks.toml"


@cache
def _re2() -> tuple[Any, Any]:
    """The RE2 module and its options; without the guard extra, EXTRA_MISSING names it."""
    from gno.extras import require

    require("guard", "the Memory Guard", "re2")
    import re2

    options = re2.Options()
    options.max_mem = 64 << 20  # the largest rules need more than RE2's 8 MB default DFA budget
    return re2, options


def compile_go(pattern: str) -> Any:
    """A Go RE2 pattern as an RE2 regex (the same dialect: nothing to translate)."""
    re2, options = _re2()
    return re2.compile(pattern, options)


@dataclass(frozen=True)
class Allowlist:
    regexes: tuple[Any, ...]
    stopwords: tuple[str, ...]
    target: str  # secret | match | line
    all_of: bool  # condition AND
    needs_path: bool

    def allows(self, secret: str, match: str, line: str) -> bool:
        if self.needs_path and self.all_of:
            return False  # an AND with a path criterion can never hold without a path
        subject = {"match": match, "line": line}.get(self.target, secret)
        checks: list[bool] = []
        if self.regexes:
            checks.append(any(r.search(subject) for r in self.regexes))
        if self.stopwords:
            lowered = secret.lower()
            checks.append(any(word in lowered for word in self.stopwords))
        if not checks:
            return False
        return all(checks) if self.all_of else any(checks)


@dataclass(frozen=True)
class Rule:
    rule_id: str
    regex: Any
    keywords: tuple[str, ...]
    entropy: float
    secret_group: int
    allowlists: tuple[Allowlist, ...]
    generic: bool  # a keyword rule (``generic-*``) or one meant for certain files only (``path``)

    def secret_span(self, match: Any) -> tuple[int, int]:
        """Where the secret sits in the match (gitleaks: secretGroup, first non-empty group, whole)."""
        groups = len(match.groups())
        index = self.secret_group if 0 < self.secret_group <= groups else 0
        if not index:
            index = next((i for i in range(1, groups + 1) if match.group(i)), 0)
        start, end = match.span(index)
        return int(start), int(end)


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    path_only: tuple[str, ...]  # rule ids that match file names only
    allowlists: tuple[Allowlist, ...]


def _allowlist(raw: dict[str, Any]) -> Allowlist:
    return Allowlist(
        regexes=tuple(compile_go(r) for r in raw.get("regexes", [])),
        stopwords=tuple(s.lower() for s in raw.get("stopwords", [])),
        target=str(raw.get("regexTarget", "secret")),
        all_of=str(raw.get("condition", "OR")).upper() == "AND",
        needs_path=bool(raw.get("paths")),
    )


def parse_rules(text: str) -> RuleSet:
    """Compile a gitleaks rule file; a rule that does not compile raises (the file is shipped)."""
    data = tomllib.loads(text)
    rules: list[Rule] = []
    path_only: list[str] = []
    for raw in data.get("rules", []):
        if "regex" not in raw:
            path_only.append(str(raw["id"]))
            continue
        rules.append(
            Rule(
                rule_id=str(raw["id"]),
                regex=compile_go(raw["regex"]),
                keywords=tuple(k.lower() for k in raw.get("keywords", [])),
                entropy=float(raw.get("entropy", 0.0)),
                secret_group=int(raw.get("secretGroup", 0)),
                allowlists=tuple(_allowlist(a) for a in raw.get("allowlists", [])),
                generic=str(raw["id"]).startswith("generic") or "path" in raw,
            )
        )
    glob = data.get("allowlist")
    allow = (_allowlist(glob),) if glob else ()
    return RuleSet(tuple(rules), tuple(path_only), allow)


def is_generic(rule_id: str) -> bool:
    """A rule that finds secrets by a keyword nearby, not by the token's own shape."""
    return rule_id in _generic_ids()


@cache
def _generic_ids() -> frozenset[str]:
    return frozenset(r.rule_id for r in rule_set().rules if r.generic)


@cache
def rule_set() -> RuleSet:
    return parse_rules(resources.files("gno.guard").joinpath("data", RULE_FILE).read_text(encoding="utf-8"))


def _line_of(text: str, start: int, end: int) -> str:
    line_end = text.find("\n", end)
    return text[text.rfind("\n", 0, start) + 1 : len(text) if line_end < 0 else line_end]


def _allowed(lists: Sequence[Allowlist], secret: str, match: str, text: str, span: tuple[int, int]) -> bool:
    return any(a.allows(secret, match, _line_of(text, *span) if a.target == "line" else "") for a in lists)


def gitleaks_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """(rule id, start, end) of every secret the rule set finds in ``text``."""
    rules = rule_set()
    lowered = text.lower()
    for rule in rules.rules:
        if rule.keywords and not any(k in lowered for k in rule.keywords):
            continue
        for match in rule.regex.finditer(text):
            start, end = rule.secret_span(match)
            secret = text[start:end]
            if not secret.strip():
                continue
            if rule.entropy and (
                shannon_entropy(secret) <= rule.entropy
                or (rule.rule_id.startswith("generic") and not any(c.isdigit() for c in secret))
            ):
                continue
            whole = match.group()
            if _allowed(rules.allowlists, secret, whole, text, match.span()) or _allowed(
                rule.allowlists, secret, whole, text, match.span()
            ):
                continue
            yield rule.rule_id, start, end
