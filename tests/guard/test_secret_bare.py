"""Bare tokens: a long generated string standing alone as a word goes, whoever issued it; the same string
inside a URL, a word-like name, hex, an id bound to its key and placeholders stay.

Values are generated at run time from a seeded RNG (no committed literals for scanners).
"""

from __future__ import annotations

import random

import pytest

from gno.guard import redact_secrets
from gno.guard.secret_bare import bare_token_candidates
from gno.guard.secret_values import wordiness

_RNG = random.Random(4242)
_B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _token(n: int) -> str:
    body = "".join(_RNG.choice(_B62) for _ in range(n - 3))
    return body + _RNG.choice("ABCDEFGHJK") + _RNG.choice("mnpqrstuvw") + _RNG.choice("23456789")


TOKEN = _token(42)


@pytest.mark.parametrize(
    "text",
    [
        f"The new one is {TOKEN}, rotate it monthly.",
        f"mailer {TOKEN}",
        f"({TOKEN})",
        f"{TOKEN}\nwas the old one",
    ],
)
def test_a_generated_token_standing_alone_is_redacted(text: str) -> None:
    r = redact_secrets(text, skip_sources=frozenset({"kingfisher", "noseyparker", "gitleaks"}))
    assert TOKEN not in r.text, r.text
    assert [f.rule for f in r.findings] == ["bare-token"]


@pytest.mark.parametrize(
    "text",
    [
        f"https://www.google.com/url?sa=t&ved={TOKEN}&usg=x",  # a URL's parts are ids and handles
        f"https://youtube.com/playlist/{TOKEN}",
        "The class is named AbstractSingletonProxyFactoryBean2 in the code base.",  # word-like
        "0x" + "".join(_RNG.choice("0123456789abcdefABCDEF") for _ in range(40)),  # a checksummed address
        "digest " + "".join(_RNG.choice("0123456789abcdef") for _ in range(64)),  # hex
        f"invoice_id: in_{TOKEN[:24]}",  # an id bound to its key
        "use YOUR_API_KEY_GOES_HERE_1234567890abc",  # a placeholder
        "short Ab3dE6gH9jK2mN5pQ8",  # under 24 characters
    ],
)
def test_ids_names_hex_and_placeholders_stay(text: str) -> None:
    assert list(bare_token_candidates(text)) == [], text


_B36 = "abcdefghijklmnopqrstuvwxyz0123456789"


def _single_case(n: int) -> str:
    """Lower-case letters and digits, as base32 access tokens are written (one digit in every few)."""
    body = [_RNG.choice(_B36) for _ in range(n)]
    body[::5] = [_RNG.choice("23456789") for _ in body[::5]]
    return "".join(body)


SINGLE = _single_case(46)


@pytest.mark.parametrize("text", [f"the feed key is {SINGLE}", f"owm = '{SINGLE}'", f"{SINGLE.upper()} for the CI"])
def test_a_long_single_case_token_is_redacted(text: str) -> None:
    r = redact_secrets(text, skip_sources=frozenset({"kingfisher", "noseyparker", "gitleaks"}))
    assert SINGLE not in r.text.lower(), r.text
    assert [f.rule for f in r.findings] == ["bare-token"]


@pytest.mark.parametrize(
    "text",
    [
        f"mirror at {SINGLE[:32]}.onion",  # a host name
        "bc1q" + "".join(_RNG.choice("023456789acdefghjklmnpqrstuvwxyz") for _ in range(38)),  # an address
        "sample a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8",  # typed in order
        "sample 1234567890abcdefghij1234567890klmnopqrst",
        f"short {SINGLE[:28]}",  # under 32 characters
        "release 2024 notes for the winter quarter of twentytwentyfour",  # words
    ],
)
def test_hosts_addresses_samples_and_words_stay(text: str) -> None:
    assert list(bare_token_candidates(text)) == [], text


def test_a_prefixed_token_with_a_base64url_body_is_redacted() -> None:
    body = _token(40)
    token = f"ya29.{body[:22]}_{body[22:30]}-{body[30:]}"
    r = redact_secrets(f"my token is {token}", skip_sources=frozenset({"kingfisher", "noseyparker", "gitleaks"}))
    assert token not in r.text and body[:22] not in r.text, r.text
    assert "prefixed-token" in [f.rule for f in r.findings]


def test_a_sample_joined_like_a_base64url_body_stays() -> None:
    sample = "tkn_abcdefghijklmnopqrstuvwxyZ1234567890_ABCDEF"
    r = redact_secrets(f"for example {sample}", skip_sources=frozenset({"kingfisher", "noseyparker", "gitleaks"}))
    assert sample in r.text, r.text


def test_a_base32_token_whose_letters_run_long_is_redacted() -> None:
    """Base32 has few digits, so its letters form long runs that read as words by length alone; few vowels."""
    rng = random.Random(77)
    token = "".join(rng.choice("bcdfghjklmnpqrstvwxz234567") for _ in range(48))
    assert wordiness(token) >= 0.3  # the case the vowel test is for
    vendored_off = frozenset({"kingfisher", "noseyparker"})
    r = redact_secrets(f"nuget push pkg.nupkg {token} -Source feed", skip_sources=vendored_off)
    assert token not in r.text, r.text


def test_words_run_together_stay() -> None:
    assert list(bare_token_candidates("see releasenotesforthewinterquarter2024andbeyond today")) == []
