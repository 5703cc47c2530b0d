"""gitleaks' rule file as data, the value-gone property, keyed markers and linear windows."""

from __future__ import annotations

import hashlib
import stat
import threading
from importlib import resources
from pathlib import Path

import pytest

from gno.guard import redact_secrets
from gno.guard.gitleaks import gitleaks_candidates, parse_rules, rule_set
from gno.guard.marker_key import KEY_FILE, install_key
from gno.guard.secrets import OVERLAP_CHARS, WINDOW_CHARS, windows

from .fixtures import ALNUM, HEX, rand

PW = "pass" + "word"


def test_every_rule_of_the_shipped_file_loads() -> None:
    text = resources.files("gno.guard").joinpath("data", "gitleaks.toml").read_text(encoding="utf-8")
    declared = text.count("[[rules]]")
    rules = rule_set()
    assert declared == 222
    assert len(rules.rules) + len(rules.path_only) == declared
    assert rules.path_only == ("pkcs12-file",)  # matches file names only: not a text rule
    for rule in rules.rules:
        assert rule.regex.pattern, rule.rule_id
    assert len({r.rule_id for r in rules.rules}) == len(rules.rules)
    licence = resources.files("gno.guard").joinpath("data", "gitleaks-LICENSE.txt").read_text(encoding="utf-8")
    assert "MIT License" in licence and "gitleaks" in licence


def test_a_rule_that_does_not_compile_is_an_error() -> None:
    with pytest.raises(Exception):  # noqa: B017 - RE2's own error type
        parse_rules('[[rules]]\nid = "broken"\nregex = """(unclosed"""\n')


def test_allowlists_and_entropy_apply() -> None:
    assert list(gitleaks_candidates("aws_key = AKIAIOSFODNN7EXAMPLE")) == []  # the rule's own allowlist
    low = "dt0c01." + "A" * 24 + "." + "a" * 64
    assert not [r for r, *_ in gitleaks_candidates(low) if r == "dynatrace-api-token"]  # below the entropy floor


def _b32(n: int) -> str:
    return "".join(rand(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"))


# Formats the old hand list stored verbatim; each must be gone, with the text around it intact.
ISSUE_FORMATS = [
    ("VAULT_TOKEN={s} # vault", "hv" + "s." + rand(95, ALNUM + "_-")),
    ("docker login -u bob -p {s} registry.example.com", "dckr" + "_pat_" + rand(27, ALNUM + "_-")),
    ("gem push --key {s} gem.gem", "ruby" + "gems_" + rand(48, HEX)),
    ("MAPBOX_SECRET={s}", "sk." + "eyJ1IjoiYWNtZSIsImEiOiJja3R6cGx6eGQwMDAwMnBvNXZtZ3h6d3AifQ." + rand(22, ALNUM)),
    ("DT_TOKEN={s}", "dt0c01." + _b32(24) + "." + rand(64, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
    ("sonar.login={s}", rand(40, HEX)),
    (PW + " = {s}", "open_sesame"),
    (PW + ": {s}\nuser: bob", "hunter2x"),
]


@pytest.mark.parametrize(("template", "secret"), ISSUE_FORMATS, ids=[t.split()[0][:14] for t, _ in ISSUE_FORMATS])
def test_the_value_is_gone_and_the_text_around_it_stays(template: str, secret: str) -> None:
    text = template.format(s=secret)
    result = redact_secrets(text)
    assert secret not in result.text
    assert len(result.findings) == 1
    before, after = template.split("{s}")
    assert result.text.startswith(before) and result.text.endswith(after)
    assert result.text[len(before) : len(result.text) - len(after)].startswith("[REDACTED:")


@pytest.mark.parametrize(
    "text",
    [
        '{passwordLabel:"Password:",rememberMeLabel:"Remember me",usernameLabel:"Username"}',
        "token: string",
        "auth: basic",
        PW + ": required",
        "Password: ask IT for a reset",
        "secret_id: 65e7645a-b3bd-483c-b6c6-be04333ffb51",
    ],
)
def test_labels_and_settings_are_left_whole(text: str) -> None:
    assert redact_secrets(text).text == text


def test_markers_are_keyed_per_install(tmp_path: Path) -> None:
    weak = "hunter2"
    text = f"{PW} = '{weak}'"
    key_a = install_key(tmp_path / "a")
    key_b = install_key(tmp_path / "b")
    assert install_key(tmp_path / "a") == key_a != key_b
    mark_a = redact_secrets(text, key=key_a).text
    assert mark_a == redact_secrets(text, key=key_a).text  # equal secrets group within an install
    assert mark_a != redact_secrets(text, key=key_b).text
    digest = mark_a.split(":")[-1][:8]
    assert digest != hashlib.sha256(weak.encode()).hexdigest()[:8]  # no dictionary lookup
    assert weak not in mark_a


def test_the_key_file_is_private_and_created_once(tmp_path: Path) -> None:
    keys: list[bytes] = []
    threads = [threading.Thread(target=lambda: keys.append(install_key(tmp_path))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1 and len(keys[0]) == 32
    path = tmp_path / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]  # no temp file left behind


def test_windows_cover_the_text_and_a_secret_on_a_boundary_is_caught() -> None:
    text = ("lorem ipsum " * 1000)[:WINDOW_CHARS * 5]
    spans = list(windows(text))
    covered = set()
    for offset, chunk in spans:
        assert text[offset : offset + len(chunk)] == chunk and len(chunk) <= WINDOW_CHARS
        covered.update(range(offset, offset + len(chunk)))
    assert covered == set(range(len(text)))
    token = "gh" + "p_" + rand(36)
    for where in (WINDOW_CHARS - 10, WINDOW_CHARS * 2 - OVERLAP_CHARS - 5):
        blob = text[:where] + token + text[where:]
        assert token not in redact_secrets(blob).text
