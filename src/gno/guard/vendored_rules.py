"""Vendored secret rule files read as data: Nosey Parker's and Kingfisher's rules beside gitleaks'.

Why more than one source: one project's rule file carries the provider formats its maintainers met. Nosey
Parker (Apache-2.0, ``data/noseyparker-rules.json``) carries formats gitleaks does not (identity-provider,
SaaS and cloud tokens among them); Kingfisher (Apache-2.0, ``data/kingfisher-rules.json``), which began as a
fork of Nosey Parker's rules, carries several hundred more provider formats. Both are vendored at a pinned
commit by ``bench/guard_vendor_rules.py`` with their licence and a notice beside them, and each rule ships
examples that the tests hold it to. Identifiers (account ids, public keys, host names) are not vendored:
they are not secrets.

A rule's secrets are its capture groups (the projects' convention: the AWS pair rule captures both the key
id and the secret), else the whole match. A rule may carry a minimum Shannon entropy for what it captures
(Kingfisher's ``min_entropy``), checked as that project checks it, so a keyword rule does not take
``password123`` for a provider key. Patterns run on RE2 like gitleaks' (linear time); ``(?x)`` patterns
were flattened when vendored.
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
from gno.guard.secret_values import shannon_entropy

#: rule source name (as ``secrets.RULE_SOURCES`` names it) -> vendored file
RULE_FILES = {"noseyparker": "noseyparker-rules.json", "kingfisher": "kingfisher-rules.json"}
_CREDENTIAL_URL_RE = re.compile(r":(?:\\?/){2}.*:.*@")
_SLUG_RE = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class VendoredRule:
    rule_id: str  # marker-safe: ``np-age-2`` for ``np.age.2``
    name: str
    regex: Any
    anchors: tuple[str, ...]  # literal fragments every match holds (cheap pre-check), lower-cased
    min_entropy: float  # bits per character a captured secret must reach (0: no minimum)


def marker_id(raw_id: str) -> str:
    """Marker-safe rule id: ``np.age.2`` -> ``np-age-2``, ``kingfisher.tailscale.1`` -> ``kf-tailscale-1``."""
    lowered = raw_id.lower()
    if lowered.startswith("kingfisher."):
        lowered = "kf." + lowered.removeprefix("kingfisher.")
    return _SLUG_RE.sub("-", lowered).strip("-")


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
            elif ch == "{" and (close := pattern.find("}", i)) > i:
                run, i = "", close  # a repetition count (``{916,1000}``), not literal digits
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
    """A rule for a URL with credentials (``scheme://user:pass@host``, ``/`` escaped or not): the
    connection-string rule redacts its password alone (the user and host are not secrets), where these
    rules capture the user, password and host together or the whole URL."""
    return _CREDENTIAL_URL_RE.search(pattern) is not None


def parse_rules(doc: dict[str, Any]) -> tuple[VendoredRule, ...]:
    """The rules of one vendored document (its ``rules``), compiled; credential-URL rules left out."""
    rules = []
    for raw in doc["rules"]:
        pattern = str(raw["pattern"])
        if left_to_connection_rule(pattern):
            continue
        rule_id, name = marker_id(str(raw["id"])), str(raw["name"])
        entropy = float(raw.get("min_entropy") or 0.0)
        rules.append(VendoredRule(rule_id, name, compile_go(pattern), _anchors(pattern), entropy))
    return tuple(rules)


def _document(source: str) -> dict[str, Any]:
    """One vendored file, decoded (not kept: the compiled rules and the commit are cached instead)."""
    raw = resources.files("gno.guard").joinpath("data", RULE_FILES[source]).read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(raw)
    return doc


@cache
def rule_set(source: str) -> tuple[VendoredRule, ...]:
    """The rules of one vendored file (``noseyparker`` or ``kingfisher``)."""
    return parse_rules(_document(source))


@cache
def pinned_commit(source: str) -> str:
    return str(_document(source)["commit"])


def vendored_candidates(source: str, text: str) -> Iterator[tuple[str, int, int]]:
    """(rule id, start, end) of every secret a rule of the vendored file ``source`` finds in ``text``."""
    lowered = text.lower()
    for rule in rule_set(source):
        if rule.anchors and not any(a in lowered for a in rule.anchors):
            continue
        for match in rule.regex.finditer(text):
            groups = len(match.groups())
            if (
                rule.min_entropy
                and shannon_entropy(match.group(1) or match.group(0) if groups else match.group(0)) <= rule.min_entropy
            ):
                continue  # as Kingfisher gates a match: its first capture (else the match) must exceed the floor
            for index in [i for i in range(1, groups + 1) if match.group(i)] or [0]:
                start, end = match.span(index)
                if end > start:
                    yield rule.rule_id, int(start), int(end)
