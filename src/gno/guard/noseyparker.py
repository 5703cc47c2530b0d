"""Nosey Parker's secret rules, read as data: a second maintained rule source beside gitleaks.

Why a second source: one project's rule file carries the provider formats its maintainers met; Nosey Parker
(Apache-2.0, ``data/noseyparker-rules.json`` with its licence and notice beside it, vendored at a pinned
commit by ``bench/guard_vendor_rules.py``) carries formats gitleaks does not (identity-provider, SaaS and
cloud tokens among them), and each rule ships examples that the tests hold it to. Only rules in its
``secret`` category are vendored: identifiers such as account ids or public keys are not secrets.

A rule's secrets are its capture groups (the project's convention: the AWS pair rule captures both the key
id and the secret), else the whole match. Patterns run
on RE2 like gitleaks' (linear time); the few ``(?x)`` patterns were flattened when vendored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from gno.guard.gitleaks import compile_go

RULE_FILE = "noseyparker-rules.json"
_SLUG_RE = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class NpRule:
    rule_id: str  # marker-safe: ``np-age-2`` for ``np.age.2``
    name: str
    regex: Any
    anchors: tuple[str, ...]  # literal fragments every match holds (cheap pre-check), lower-cased


def marker_id(raw_id: str) -> str:
    return _SLUG_RE.sub("-", raw_id.lower()).strip("-")


def _anchors(pattern: str) -> tuple[str, ...]:
    """The longest literal run that every match must hold (``sk-ant-api``, ``AGE-SECRET-KEY-1``): only runs
    outside character classes, at the top level or inside capturing groups, in a pattern without
    alternation; empty when unsure, and then the rule always runs."""
    if "|" in pattern:
        return ()
    best, run = "", ""
    stack: list[bool] = []  # per open group: may a literal inside it be relied on?
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if in_class:
            in_class = ch != "]"
            i += 1 if ch != "\\" else 2
            continue
        reliable = all(stack)
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            run = run + nxt if nxt in "-._/:$" and reliable else ""
            i += 2
        else:
            if ch == "[":
                in_class, run = True, ""
            elif ch == "(":
                stack.append(not pattern.startswith("(?", i))
                run = ""
            elif ch == ")":
                if stack:
                    stack.pop()
                run = ""
            elif (ch.isalnum() or ch in "_-") and reliable:
                run += ch
            else:
                run = ""
            i += 1
        if i < len(pattern) and pattern[i] in "?*{":
            run = run[:-1]  # the last character is optional or repeated
        if len(run) > len(best):
            best = run
    return (best.lower(),) if len(best) >= 3 else ()


def left_to_connection_rule(pattern: str) -> bool:
    """A URL rule capturing user, password and host: the connection-string rule redacts its password
    alone (the user and host of ``scheme://user:pass@host`` are not secrets)."""
    groups = pattern.count("(") - pattern.count("(?") - pattern.count("\\(")
    return groups > 1 and re.search(r"://.*:.*@", pattern) is not None


def parse_rules(text: str) -> tuple[NpRule, ...]:
    doc = json.loads(text)
    rules = []
    for raw in doc["rules"]:
        pattern = str(raw["pattern"])
        if left_to_connection_rule(pattern):
            continue
        rules.append(NpRule(marker_id(str(raw["id"])), str(raw["name"]), compile_go(pattern), _anchors(pattern)))
    return tuple(rules)


@cache
def rule_set() -> tuple[NpRule, ...]:
    return parse_rules(resources.files("gno.guard").joinpath("data", RULE_FILE).read_text(encoding="utf-8"))


@cache
def pinned_commit() -> str:
    raw = resources.files("gno.guard").joinpath("data", RULE_FILE).read_text(encoding="utf-8")
    return str(json.loads(raw)["commit"])


def noseyparker_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """(rule id, start, end) of every secret a Nosey Parker rule finds in ``text``."""
    lowered = text.lower()
    for rule in rule_set():
        if rule.anchors and not any(a in lowered for a in rule.anchors):
            continue
        for match in rule.regex.finditer(text):
            groups = len(match.groups())
            for index in [i for i in range(1, groups + 1) if match.group(i)] or [0]:
                start, end = match.span(index)
                if end > start:
                    yield rule.rule_id, int(start), int(end)
