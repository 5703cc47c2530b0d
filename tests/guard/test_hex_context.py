"""Hex literals are redacted only when context names them a secret.

gno itself stores SHA-256 content hashes, receipt digests, record ids, git SHAs and UUIDs; those must come
back unchanged. A hex value labelled or nested as a key, secret, token, password, credential or auth value
is a secret. Values are generated at run time from a seeded RNG (no committed literals for scanners).
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid

import pytest

from gno.guard import redact_secrets

_RNG = random.Random(7117)


def _hex(n: int) -> str:
    """Random lower-case hex that always holds both a letter and a digit (as real keys and digests do)."""
    body = "".join(_RNG.choice("0123456789abcdef") for _ in range(n - 2))
    return _RNG.choice("abcdef") + _RNG.choice("123456789") + body


def _uuid() -> str:
    return str(uuid.UUID(int=_RNG.getrandbits(128), version=4))


SHA256 = hashlib.sha256(b"a fact gno stored").hexdigest()
GIT_SHA = hashlib.sha1(b"a commit").hexdigest()
PW = "pass" + "word"

# What gno writes, links or quotes itself: never a secret.
GNO_OWN_VALUES = (
    f"contentHash: sha256:{SHA256}",
    f"---\nmemory:\n  recordId: mem-{_hex(16)}\n  contentHash: {SHA256}\n  createdAt: 2024-05-01T10:00:00Z\n---\nBody",
    json.dumps(
        {
            "caller": "agent",
            "session": _uuid(),
            "memoryIds": [f"mem-{_hex(16)}"],
            "spanHashes": [_hex(64), _hex(64)],
            "digest": _hex(64),
        }
    ),
    f"gno://memory/facts/2024-05-01/mem-{_hex(16)}.md (contentHash {SHA256})",
    f"Fixed in commit {GIT_SHA}; the short sha {GIT_SHA[:7]} is enough for git log.",
    f"Merged {GIT_SHA[:12]} into main after review of the token refresh fix.",
    f"Request id {_uuid()} failed twice.",
    f"id: {_uuid()}",
    f"secret_id: {_uuid()}",
    f"token_hash: {_hex(64)}",
    f"api_key_sha256: {_hex(64)}",
    f"The token hash is {_hex(64)}",
    f"{PW} hash {_hex(64)}",
    "token 0x" + _hex(40),
    f"credentials:\n  client_id: {_hex(32)}\n  username: bob12345\n  region: eu-west-1a",
    "author: jdoe12345",
    "auth_provider: google123",
    "private_repo: gno-app2",
    f"oauth: {_hex(12)}",
    f"key: {SHA256}",
    f'cache = {{"key": "{_hex(32)}", "hits": 3}}',
)


@pytest.mark.parametrize("text", GNO_OWN_VALUES)
def test_hashes_ids_and_uuids_are_not_redacted(text: str) -> None:
    result = redact_secrets(text)
    assert result.findings == [], [text[f.start : f.end] for f in result.findings]
    assert result.text == text


def _labelled(template: str) -> tuple[str, str]:
    secret = _hex(32)
    return template.format(s=secret), secret


# Hex that context names a secret: redacted (value only, as password-assignment).
LABELLED_HEX = (
    _labelled("credentials:\n    some_value_here: not_secret\n    other_value_here: {s}"),
    _labelled("secrets:\n  stripe: {s}\n  name: billing"),
    _labelled("API key {s}"),
    _labelled("api key: {s}"),
    _labelled("The webhook secret is {s}, rotate it monthly."),
    _labelled("signing key: {s}"),
    _labelled("bot token {s}"),
    _labelled('"auth": "{s}"'),
    _labelled("basicAuth: {s}"),
    _labelled("private: {s}"),
    _labelled("auth:\n  key: {s}"),
    _labelled("api_key: {s}"),
    _labelled("API_KEY={s}"),
)


@pytest.mark.parametrize(("text", "secret"), LABELLED_HEX, ids=lambda v: v.split("\n")[0][:30])
def test_hex_named_as_a_secret_is_redacted(text: str, secret: str) -> None:
    result = redact_secrets(text)
    assert secret not in result.text
    assert [(f.rule, text[f.start : f.end]) for f in result.findings] == [("password-assignment", secret)]


def test_credentials_block_keeps_its_public_fields() -> None:
    secret, client_id = _hex(32), _hex(32)
    text = f"credentials:\n  client_id: {client_id}\n  username: bob12345\n  other: {secret}\n  mode: basic"
    result = redact_secrets(text)
    assert client_id in result.text and "bob12345" in result.text and "basic" in result.text
    assert secret not in result.text


def test_collection_block_ends_at_the_dedent() -> None:
    secret, after = _hex(32), _hex(32)
    text = f"credentials:\n  other: {secret}\nbuild:\n  artifact: {after}"
    result = redact_secrets(text)
    assert secret not in result.text
    assert after in result.text


# detect-secrets' hex-entropy rule, narrowed: a lone quoted literal of 32-63 hex digits (not 40) is a secret.
def _quoted_hex_cases() -> tuple[tuple[str, str], ...]:
    s32, s48, s63 = _hex(32), _hex(48), _hex(63)
    return (
        (f'+    "{s32}"', s32),
        (f"client = Client('{s48}')", s48),
        (f'keys = ["{s63}"]', s63),
        (f'scan(path[len("{s32}") + 1:])', s32),
    )


@pytest.mark.parametrize(("text", "secret"), _quoted_hex_cases(), ids=lambda v: v[:24])
def test_lone_quoted_hex_literal_is_redacted(text: str, secret: str) -> None:
    result = redact_secrets(text)
    assert secret not in result.text
    assert [(f.rule, text[f.start : f.end]) for f in result.findings] == [("high-entropy-hex", secret)]


NOT_QUOTED_HEX_SECRETS = (
    f'"{SHA256}"',
    f'"spanHashes": ["{_hex(64)}", "{_hex(64)}"]',
    f'"{GIT_SHA}"',
    f"git show '{GIT_SHA}'",
    f"The build artifact {_hex(32)} was uploaded.",
    f"checksum {_hex(32)} matches",
    f'"{_uuid()}"',
    f'"mem-{_hex(16)}"',
    '"deadbeef"',
    'len("012345678a")',
    '"deadbeefdeadbeefdeadbeefdeadbeef"',  # letters only, and low entropy
    '"12345678901234567890123456789012"',  # digits only
    f'"{_hex(31)}"',
    f'"md5": "{_hex(32)}"',  # a named value: the key rules decide
    f"etag = '{_hex(32)}'",
)


@pytest.mark.parametrize("text", NOT_QUOTED_HEX_SECRETS)
def test_digests_shas_ids_and_short_hex_literals_are_not_redacted(text: str) -> None:
    result = redact_secrets(text)
    assert result.findings == [], [text[f.start : f.end] for f in result.findings]
    assert result.text == text
