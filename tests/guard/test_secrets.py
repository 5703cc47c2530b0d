"""Secret redaction: every fixture format is caught, look-alikes are left alone, output is exact."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac

import pytest

from gno.guard import MARKER_RE, MemoryGuard, redact_secrets
from gno.guard.secrets import SecretFinding

from .fixtures import (
    ALNUM,
    B64,
    BENIGN_SECRET_LOOKALIKES,
    SECRET_CASES,
    SecretCase,
    rand,
)

PW = "pass" + "word"
KEY = b"install-key-for-the-secret-tests"
# the rule files vendored from other projects: switched off where our own context rules are tested
VENDORED = frozenset({"gitleaks", "noseyparker", "kingfisher"})


def digest(secret: str) -> str:
    return hmac.new(KEY, secret.encode("utf-8"), hashlib.sha256).hexdigest()[:8]


def expected_marker(rule: str, secret: str) -> str:
    return f"[REDACTED:{rule}:{digest(secret)}]"


redact = functools.partial(redact_secrets, key=KEY)


def test_fixture_set_is_large_and_varied() -> None:
    assert len(SECRET_CASES) >= 30
    assert len({case.rule for case in SECRET_CASES}) >= 15
    assert len(BENIGN_SECRET_LOOKALIKES) >= 20


@pytest.mark.parametrize("case", SECRET_CASES, ids=lambda c: c.name)
def test_secret_is_replaced_by_its_marker(case: SecretCase) -> None:
    result = redact(case.text)
    assert result.text == case.text.replace(case.secret, expected_marker(case.rule, case.secret))
    assert case.secret not in result.text
    start = case.text.index(case.secret)
    assert result.findings == [
        SecretFinding(
            rule=case.rule,
            start=start,
            end=start + len(case.secret),
            digest8=digest(case.secret),
        )
    ]


@pytest.mark.parametrize("case", SECRET_CASES, ids=lambda c: c.name)
def test_redaction_is_idempotent(case: SecretCase) -> None:
    once = redact(case.text)
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.findings == []


@pytest.mark.parametrize("text", BENIGN_SECRET_LOOKALIKES)
def test_lookalikes_are_not_redacted(text: str) -> None:
    result = redact(text)
    assert result.findings == []
    assert result.text == text


def test_exact_password_assignment() -> None:
    secret = "hunter" + "2x"
    assert redact(f'{PW} = "{secret}"').text == f'{PW} = "{expected_marker("password-assignment", secret)}"'


def test_exact_connection_string_keeps_user_and_host() -> None:
    secret = "S3cr3t" + "Pass"
    text = f"postgres://admin:{secret}@db.example.com:5432/app"
    assert redact(text).text == (
        f"postgres://admin:{expected_marker('connection-string-password', secret)}@db.example.com:5432/app"
    )


def test_exact_chat_disclosure() -> None:
    secret = "Tr0ub4" + "dor&3"
    assert redact(f"my wifi {PW} is {secret}").text == (
        f"my wifi {PW} is {expected_marker('password-assignment', secret)}"
    )


@pytest.mark.parametrize(
    "said",
    [
        "The {pw} for the office wifi is {v}",
        "{pw} for wifi: {v}",
        "the admin {pw} of the NAS is {v}",
        "The deploy key for prod: {v}",
    ],
)
def test_disclosure_naming_what_the_secret_opens(said: str) -> None:
    """What a memory holds as a fact ("the password for the office wifi is ..."): the words between the
    label and its value say what it opens, they do not make it less of a secret."""
    secret = hashlib.sha256(said.encode()).hexdigest()[:32] if "key" in said else "Blue" + "Sky" + "2024"
    text = said.format(pw=PW, v=secret)
    assert secret not in redact(text).text


@pytest.mark.parametrize(
    "said",
    [
        "the {pw} for the meeting is in the invite",
        "The {pw} for the account is stored in the vault",
        "Reset the {pw} for the account if it expires",
        "The key for the map is in the legend",
    ],
)
def test_disclosure_of_where_a_secret_is_is_left_alone(said: str) -> None:
    text = said.format(pw=PW)
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        'passport_number: "HGK137803"',  # a passport is no pass
        "Click on this link to reset your password: https://www.example-reset-12bh12.com now",  # a link
    ],
)
def test_records_that_only_look_like_credentials_are_left_alone(text: str) -> None:
    assert redact_secrets(text).text == text


def test_a_link_carrying_a_generated_part_under_a_secret_key_goes() -> None:
    link = "https://hooks.example.net/in/Zx9Qk3LmP0aB7cD2eF5gH8jK"
    assert link not in redact_secrets(f"webhook_secret: {link}").text


def test_specific_format_wins_over_generic_assignment() -> None:
    token = "gh" + "p_" + rand(36)
    result = redact(f'token = "{token}"')
    assert [f.rule for f in result.findings] == ["github-token"]
    assert result.text == f'token = "{expected_marker("github-token", token)}"'


def test_longest_overlapping_candidate_wins() -> None:
    token = "gh" + "p_" + rand(36)
    text = f"git clone https://deploy:{token}@github.com/acme/app.git"
    result = redact(text)
    assert [f.rule for f in result.findings] == ["github-token"]
    assert result.text == text.replace(token, expected_marker("github-token", token))


def test_private_key_block_is_redacted_whole() -> None:
    case = next(c for c in SECRET_CASES if c.name == "rsa-private-key")
    result = redact(case.text)
    assert result.text == f"deploy key:\n{expected_marker('private-key', case.secret)}\nend of note"
    assert "PRIVATE KEY" not in result.text


def test_truncated_private_key_is_still_redacted() -> None:
    header = "-----BEGIN " + "EC PRIV" + "ATE KEY-----"
    body = "\n".join(rand(64, B64) for _ in range(3))
    result = redact(f"{header}\n{body}\n\n(rest lost)")
    assert [f.rule for f in result.findings] == ["private-key"]
    assert body.splitlines()[-1] not in result.text
    assert result.text.endswith("\n\n(rest lost)")


def test_several_secrets_are_reported_in_order_with_original_offsets() -> None:
    aws = "AK" + "IA" + rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    slack = "xo" + "xb-" + "1234567890-" + rand(24)
    text = f"first {aws} then {slack} done"
    result = redact(text)
    assert [(f.rule, text[f.start : f.end]) for f in result.findings] == [
        ("aws-access-key", aws),
        ("slack-token", slack),
    ]
    assert (
        result.text
        == f"first {expected_marker('aws-access-key', aws)} then {expected_marker('slack-token', slack)} done"
    )


def test_markers_are_never_rematched_even_inside_assignments() -> None:
    text = f'{PW} = "[REDACTED:password-assignment:0123abcd]" and api_key=[REDACTED:openai-key:deadbeef]'
    assert redact(text).text == text


def test_placeholders_are_not_secrets() -> None:
    for value in (
        "<your-token>",
        "${API_TOKEN}",
        "{{ vault.token }}",
        "changeme",
        "********",
        "os.environ['X']",
    ):
        text = f"api_token = {value}"
        assert redact(text).text == text, value


@pytest.mark.parametrize(
    ("text", "secret", "rule"),
    [
        # a key whose first secret word only names a setting still ends in a secret name
        ("REACT_APP_AUTH_" + PW.upper() + "=whiteduke", "whiteduke", "password-assignment"),
        # a dotted value is a code reference only when no part of it reads as generated
        ('VAULT_CLIENT_TOKEN="s.Z4bTMtngfLeQ18AqVoBBkUAOD1"', "s.Z4bTMtngfLeQ18AqVoBBkUAOD1", "password-assignment"),
        ('bootstrap_token: "be8dfd.da8a689a46edc282"', "be8dfd.da8a689a46edc282", "password-assignment"),
        # the credential of an HTTP Authorization header, whatever the provider
        ("GET /x HTTP/1.1\nAuthorization: Bearer mF_9.B5f-4.1JqM\n", "mF_9.B5f-4.1JqM", "authorization-header"),
        ("curl -H 'Authorization: token 1f3a9c0e77d2b6a5'", "1f3a9c0e77d2b6a5", "authorization-header"),
    ],
)
def test_generic_context_finds_values_without_a_provider_format(text: str, secret: str, rule: str) -> None:
    result = redact_secrets(text, key=KEY, skip_sources=VENDORED)
    assert secret not in result.text and expected_marker(rule, secret) in result.text


@pytest.mark.parametrize(
    "text",
    [
        "auth_provider = github",
        "token = self.config.token",
        PW + " = settings.DB_" + PW.upper(),
        "curl -H 'Authorization: Bearer $TOKEN'",
        "Authorization: Bearer YOUR_TOKEN",
        "Authorization: Basic <credentials>",
        'headers = {"Authorization": "Bearer " + token}',
    ],
)
def test_generic_context_leaves_references_and_placeholders(text: str) -> None:
    assert redact_secrets(text, key=KEY, skip_sources=VENDORED).text == text


def test_env_style_assignment_redacts_any_value() -> None:
    result = redact("DB_" + PW.upper() + "=postgres\nDB_USER=postgres")
    assert (
        result.text
        == "DB_" + PW.upper() + "=" + expected_marker("password-assignment", "postgres") + "\nDB_USER=postgres"
    )


def test_yaml_block_value_under_secret_key() -> None:
    secret = rand(20)
    text = f"deploy:\n  {PW}:\n    secure: {secret}\n  user: bob"
    result = redact(text)
    assert result.text == text.replace(secret, expected_marker("password-assignment", secret))


def test_tuple_of_quoted_secrets() -> None:
    first, second = rand(16), rand(16)
    text = f"SUPER_SECRET_VALUES = '{first}', '{second}'"
    result = redact(text)
    assert first not in result.text and second not in result.text
    assert len(result.findings) == 2


def test_deterministic_and_empty() -> None:
    text = " / ".join(case.text for case in SECRET_CASES[:10])
    assert redact(text) == redact(text)
    assert redact("").text == ""
    assert redact("").findings == []


def test_every_marker_matches_the_public_marker_pattern() -> None:
    blob = "\n".join(case.text for case in SECRET_CASES)
    redacted = redact(blob).text
    markers = MARKER_RE.findall(redacted)
    assert len(markers) >= len(SECRET_CASES)
    assert all(MARKER_RE.fullmatch(m) for m in markers)


def test_guard_redacts_each_field_and_keeps_none() -> None:
    secret = "sk-" + rand(48, ALNUM)
    result = MemoryGuard(marker_key=KEY).check({"title": "OpenAI setup", "body": f"key {secret}", "source": None})
    assert not result.rejected
    assert result.fields == {
        "title": "OpenAI setup",
        "body": f"key {expected_marker('openai-key', secret)}",
        "source": None,
    }
    assert [(f.field, f.finding.rule) for f in result.secret_findings] == [("body", "openai-key")]


def test_base64_of_a_certificate_or_public_key_is_left_alone() -> None:
    for label in ("CERTIFICATE", "PUBLIC KEY"):
        pem = f"-----BEGIN {label}-----\nMIIB" + "Qk" * 40 + f"\n-----END {label}-----"
        text = f"caBundle: {base64.b64encode(pem.encode()).decode()}"
        assert not any(f.rule == "private-key" for f in redact(text).findings), label
