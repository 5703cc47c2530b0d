"""The guard's rule sources are pinned data: each shipped file matches the commit and digest recorded for it,
carries its licence, loads whole, and (Nosey Parker) still finds every example its rules ship with."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest

from gno.guard.noseyparker import left_to_connection_rule, marker_id, noseyparker_candidates, pinned_commit, rule_set
from gno.guard.secrets import RULE_SOURCES, redact_secrets
from gno.guard.signals import FEATURES, shipped_model

DATA = resources.files("gno.guard").joinpath("data")
SOURCES = json.loads(DATA.joinpath("SOURCES.json").read_text(encoding="utf-8"))
NP_DOC = json.loads(DATA.joinpath("noseyparker-rules.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["gitleaks.toml", "noseyparker-rules.json"])
def test_every_rule_file_matches_its_pin_and_ships_its_licence(name: str) -> None:
    entry = SOURCES[name]
    digest = hashlib.sha256(DATA.joinpath(name).read_bytes()).hexdigest()
    assert digest == entry["sha256"], f"{name} changed: re-vendor it and record the new commit and digest"
    assert len(entry["commit"]) == 40
    licence = DATA.joinpath(entry["license_file"]).read_text(encoding="utf-8")
    assert {"MIT": "MIT License", "Apache-2.0": "Apache License"}[entry["license"]] in licence
    if "notice_file" in entry:
        assert "Nosey Parker" in DATA.joinpath(entry["notice_file"]).read_text(encoding="utf-8")


def test_noseyparker_file_names_its_commit_and_keeps_only_secret_rules() -> None:
    assert pinned_commit() == SOURCES["noseyparker-rules.json"]["commit"] == NP_DOC["commit"]
    rules = rule_set()
    urls = [r for r in NP_DOC["rules"] if left_to_connection_rule(r["pattern"])]
    assert len(rules) == len(NP_DOC["rules"]) - len(urls) > 150
    assert 0 < len(urls) < 5 and all("://" in r["pattern"] for r in urls)
    assert len({r.rule_id for r in rules}) == len(rules)
    assert not any(r["id"] == "np.aws.1" for r in NP_DOC["rules"])  # AWS key ids are identifiers


@pytest.mark.parametrize("rule", NP_DOC["rules"], ids=lambda r: r["id"])
def test_each_noseyparker_rule_finds_its_own_examples(rule: dict[str, object]) -> None:
    examples = rule["examples"]
    assert isinstance(examples, list)
    if left_to_connection_rule(str(rule["pattern"])):
        return  # scheme://user:pass@host: the connection-string rule's (tests/guard/test_secrets.py)
    for example in examples:
        assert any(found == marker_id(str(rule["id"])) for found, _s, _e in noseyparker_candidates(example)), example


def test_a_noseyparker_format_gitleaks_lacks_is_redacted_and_only_with_its_source() -> None:
    # Age identities: redacted by the Nosey Parker rule; with that source off, no other rule names it.
    key = "AGE-SECRET-KEY-1" + "GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX"
    text = f"backup identity: {key}"
    found = redact_secrets(text, skip_sources=frozenset({"gitleaks", "gno", "detect-secrets"}))
    assert key not in found.text and found.findings[0].rule == "np-age-2"
    assert redact_secrets(text, skip_sources=frozenset(RULE_SOURCES)).text == text


def test_unknown_rule_source_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown rule sources"):
        redact_secrets("x", skip_sources=frozenset({"trufflehog"}))


def test_shipped_injection_weights_name_known_signals() -> None:
    model = shipped_model()
    assert set(model.weights) == set(FEATURES)
    assert 0.5 <= model.threshold < 1.0
