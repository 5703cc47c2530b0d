"""Secret redaction for everything gno writes to memory.

Why this exists: agent memories are re-read by models, synced, exported and searched. A credential
pasted into a chat turn must never be persisted verbatim, but the rest of the record is still
valuable, so secrets are *replaced* by a stable marker ``[REDACTED:<rule>:<sha256[:8]>]`` instead of
the record being dropped. The short digest lets a user tell whether two memories held the same secret
without revealing it.

Detection is layered:

* our own regex rules for well-known token formats (OpenAI, Anthropic, AWS, GitHub, Slack, Stripe,
  Google, PEM private keys, JWTs, ...), for ``password = "..."`` style assignments (value only) and
  for connection strings (password only);
* a guarded high-entropy rule that only looks at quoted strings and assignment values, so prose,
  hex digests, git SHAs, UUIDs and URLs are left alone;
* the precise, format-based plugins of ``detect-secrets`` run in-process through
  ``analyze_string`` (never ``analyze_line``, which may try to verify secrets over the network). Its
  noisy high-entropy and keyword plugins are deliberately not used: the rules above replace them with
  positional, context-aware versions.

Overlapping candidates are resolved longest-first; existing markers are never re-matched, which
makes redaction idempotent.
"""

from __future__ import annotations

import bisect
import hashlib
import importlib
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")


@dataclass(frozen=True)
class SecretFinding:
    """One redacted secret; ``start``/``end`` index the *original* text."""

    rule: str
    start: int
    end: int
    digest8: str


@dataclass(frozen=True)
class RedactionResult:
    """The redacted text plus what was removed from it."""

    text: str
    findings: list[SecretFinding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.findings)


@dataclass(frozen=True)
class _Candidate:
    rule: str
    start: int
    end: int
    priority: int


def digest8(secret: str) -> str:
    """First 8 hex chars of sha256 of the secret: enough to correlate, useless to attack."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()[:8]


def marker(rule: str, secret: str) -> str:
    """The replacement written in place of ``secret``."""
    return f"[REDACTED:{rule}:{digest8(secret)}]"


# --------------------------------------------------------------------------------------------------
# Value heuristics shared by the context rules
# --------------------------------------------------------------------------------------------------

_PLACEHOLDER_RE = re.compile(
    r"""(?ix)^(?:
        <[^>]*> | \$\{?[\w.:-]*\}? | \{\{.*\}\} | \{[\w.-]*\} | %\(?\w*\)?[sd]? | \[[^\]]*\]
        | [*x.?#_-]+ | null | none | nil | true | false | undefined | required | optional
        | string | str | int | integer | bool | boolean | number | empty | secret | password | passwd
        | pass | pwd | token | redacted | hidden | masked | changeme | change[_-]?me | example\w*
        | placeholder | dummy | your[_-]?\w* | my[_-]?(?:password|secret|token|key) | env | environ
        | process\.env\S* | os\.environ\S* | getenv\S* | keyring\S* | vault\S* | input | prompt
    )$""",
)
_DOTTED_IDENT_RE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_HEX_RE = re.compile(r"^[0-9a-fA-F-]+$")
_WORDY_RE = re.compile(r"[A-Z]?[a-z]{4,}")
_SYMBOL_RE = re.compile(r"[!@#$%^&*+=?~|<>]")
_CONSTANT_NAME_RE = re.compile(r"^[A-Z]+(?:_[A-Z]+)+$")
# Names whose values are identifiers or digests, not secrets (``invoice_id``, ``invoiceId``, ``sha``).
_ID_KEY_RE = re.compile(
    r"(?:^|[^A-Za-z0-9]|(?<=[a-z0-9])(?=[A-Z]))"
    r"(?i:id|ids|uuid|guid|hash|sha\d*|digest|checksum|address|addr|nonce|etag|version|commit|ref|slug|url|uri"
    r"|path)['\"]?$"
)


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` measured over its own alphabet."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _is_placeholder(value: str) -> bool:
    stripped = value.strip()
    return (
        not stripped
        or bool(_PLACEHOLDER_RE.match(stripped))
        or bool(_DOTTED_IDENT_RE.match(stripped))
        or "(" in stripped
        or stripped.startswith("[REDACTED:")
    )


def _wordiness(value: str) -> float:
    """Share of characters that sit inside word-like runs (``Account``, ``settings``)."""
    covered = sum(len(m.group()) for m in _WORDY_RE.finditer(value))
    return covered / max(len(value), 1)


def _looks_random(value: str, min_len: int = 8) -> bool:
    """A value that reads like a generated secret rather than a word or an identifier."""
    if len(value) < min_len or value.isdigit():
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if has_digit and has_alpha:
        return True
    if _SYMBOL_RE.search(value) and has_alpha:
        return True
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return mixed and len(value) >= 16 and _wordiness(value) < 0.5 and shannon_entropy(value) >= 3.8


def _has_base62_mix(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(c.islower() for c in value)


# --------------------------------------------------------------------------------------------------
# Format rules: (rule id, pattern, capture group to redact, optional validator)
# --------------------------------------------------------------------------------------------------

Validator = Callable[[str], bool]


@dataclass(frozen=True)
class _FormatRule:
    """A token format. ``needles`` are substrings every match contains (cheap pre-check);
    ``folded`` means they are compared against the lower-cased text."""

    rule: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...]
    group: int = 0
    validate: Validator | None = None
    folded: bool = False


def _fmt(
    rule: str,
    pattern: str,
    needles: tuple[str, ...],
    *,
    group: int = 0,
    validate: Validator | None = None,
    folded: bool = False,
) -> _FormatRule:
    return _FormatRule(rule, re.compile(pattern), needles, group, validate, folded)


_B64URL = r"[A-Za-z0-9_-]"
_END = r"(?![A-Za-z0-9_-])"

_FORMAT_RULES: tuple[_FormatRule, ...] = (
    _fmt(
        "private-key",
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,20000}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:(?:\\n|\r?\n)[A-Za-z0-9+/=:, -]+)*)",
        ("PRIVATE KEY",),
    ),
    _fmt(
        "private-key",
        r"PuTTY-User-Key-File-\d:[\s\S]{0,20000}?Private-MAC: ?[0-9a-fA-F]+",
        ("PuTTY-User-Key",),
    ),
    _fmt("age-secret-key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b", ("AGE-SECRET-KEY-",)),
    _fmt("anthropic-key", rf"\bsk-ant-(?:[a-z]{{2,8}}\d{{2}}-)?{_B64URL}{{20,}}{_END}", ("sk-ant-",)),
    _fmt(
        "openai-key",
        rf"\bsk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?({_B64URL}{{20,}}){_END}",
        ("sk-",),
        validate=_has_base62_mix,
    ),
    _fmt(
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    _fmt(
        "aws-secret-key",
        r"(?i:aws|amazon)[\w.-]{0,40}['\"]?\s*(?:=|:=|:|=>|,|\()\s*['\"]?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("aws", "amazon"),
        group=1,
        validate=lambda v: not _HEX_RE.match(v) and any(c.isupper() for c in v),
        folded=True,
    ),
    _fmt(
        "github-token",
        r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    _fmt("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", ("github_pat_",)),
    _fmt(
        "gitlab-token",
        rf"\b(?:glpat|gldt|glft|glsoat|glrt|glptt|glcbt|glimt)-{_B64URL}{{20,}}{_END}",
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glptt-", "glcbt-", "glimt-"),
    ),
    _fmt("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,250}", ("xox",)),
    _fmt("slack-token", r"\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+", ("xapp-",)),
    _fmt(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        ("hooks.slack.com",),
    ),
    _fmt(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{30,}",
        ("/api/webhooks/",),
    ),
    _fmt("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}\b", ("k_live_", "k_test_")),
    _fmt("stripe-key", r"\bwhsec_[A-Za-z0-9]{24,}\b", ("whsec_",)),
    _fmt("google-api-key", rf"\bAIza[0-9A-Za-z_-]{{35}}{_END}", ("AIza",)),
    _fmt("google-oauth-secret", rf"\bGOCSPX-{_B64URL}{{24,}}{_END}", ("GOCSPX-",)),
    _fmt("jwt", rf"\beyJ{_B64URL}{{8,}}\.eyJ{_B64URL}{{8,}}\.(?:{_B64URL}{{8,}})?{_END}", ("eyJ",)),
    _fmt("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    _fmt("pypi-token", rf"\bpypi-AgE{_B64URL}{{50,}}{_END}", ("pypi-AgE",)),
    _fmt("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b", ("hf_",), validate=_has_base62_mix),
    _fmt("sendgrid-key", rf"\bSG\.{_B64URL}{{22}}\.{_B64URL}{{43}}{_END}", ("SG.",)),
    _fmt("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("_v1_",)),
    _fmt("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", ("shp",)),
    _fmt("twilio-key", r"\bSK[0-9a-fA-F]{32}\b", ("SK",)),
    _fmt("mailgun-key", r"\bkey-[0-9a-f]{32}\b", ("key-",)),
    _fmt("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    _fmt("groq-key", r"\bgsk_[A-Za-z0-9]{48,}\b", ("gsk_",)),
    _fmt("xai-key", r"\bxai-[A-Za-z0-9]{60,}\b", ("xai-",)),
    _fmt("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    _fmt("linear-key", r"\blin_api_[A-Za-z0-9]{40}\b", ("lin_api_",)),
    _fmt(
        "notion-token",
        r"\b(?:secret|ntn)_[A-Za-z0-9]{43,46}\b",
        ("secret_", "ntn_"),
        validate=_has_base62_mix,
    ),
    _fmt("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b", ("dp.",)),
    _fmt("azure-storage-key", r"AccountKey=([A-Za-z0-9+/]{86,88}={0,2})", ("AccountKey=",), group=1),
    _fmt(
        "bearer-token",
        r"(?i:\bauthorization\b['\"]?\s*[:=]\s*['\"]?bearer|\bbearer)\s+([A-Za-z0-9._~+/=-]{16,})",
        ("bearer",),
        group=1,
        validate=lambda v: _looks_random(v, 16),
        folded=True,
    ),
    _fmt(
        "basic-auth",
        r"(?i:\bauthorization\b['\"]?\s*[:=]\s*['\"]?basic)\s+([A-Za-z0-9+/]{8,}={0,2})",
        ("basic",),
        group=1,
        folded=True,
    ),
)


# --------------------------------------------------------------------------------------------------
# Context rules: assignments, connection strings, high-entropy values
# --------------------------------------------------------------------------------------------------

_KEYWORD = (
    r"(?:password|passwd|passphrase|passcode|pass|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|auth[_-]?key|secret[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|client[_-]?secret"
    r"|credentials?|auth[_-]?token|access[_-]?token|refresh[_-]?token|api[_-]?token|session[_-]?key)"
)
# The keyword is the last word of the key (``db_password``, ``apiKey``, ``AWS_SECRET``): strong context.
_STRICT_KEY_RE = re.compile(rf"(?:^|[_.-]|(?<=[a-z0-9]))(?i:{_KEYWORD})\d*$")
_STRICT_PASS_RE = re.compile(r"(?:^|[_.-])pass\d*$|(?<=[a-z0-9])Pass\d*$|^PASS\d*$|_PASS\d*$", re.IGNORECASE)
_ASSIGN = r"['\"`]?\]?[^\S\n]*(?P<op>:=|=>|==|=|:)(?:\*\*|__)?[^\S\n]*"
_VALUE = (
    r"(?:!!\w+[^\S\n]+)?"
    r"(?:(?P<q>['\"`])(?P<qv>[^'\"`\n]{1,300})(?P=q)"
    r"|(?P<uv>[^\s'\"`,;)\]}]{1,300}))"
)
_KEYWORD_RE = re.compile(_KEYWORD)  # matched against ASCII-lower-cased text (same offsets)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_KEY_TAIL_RE = re.compile(r"(?P<rest>[A-Za-z0-9_.-]*+)" + _ASSIGN + _VALUE)
_KEY_REST_RE = re.compile(r"[A-Za-z0-9_.-]*+")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_MORE_QUOTED_RE = re.compile(r"[^\S\n]*,[^\S\n]*(['\"])([^'\"\n]{1,300})\1")
# A line that is only ``key:`` / ``key =``; the key must then contain a secret keyword.
_BLOCK_HEAD_RE = re.compile(
    r"^(?P<indent>[^\S\n]*+)['\"]?(?P<key>[A-Za-z0-9_.-]++)['\"]?[^\S\n]*+[:=][^\S\n]*+$", re.MULTILINE
)
_BLOCK_SUBKEYS = {"secure", "value", "encrypted", "data", "key", "secret", "password", "token"}
_DISCLOSURE_RE = re.compile(
    r"(?i:\b(?:password|passcode|passphrase|pin|pwd)\s+(?:is|was|=)\s+)"
    r"(?P<q>['\"`]?)(?P<v>[^\s'\"`]{6,100})(?P=q)"
)
_CONN_RE = re.compile(
    r"(?i:\b[a-z][a-z0-9+.-]{1,30})://(?P<user>[^\s:/@?#'\"<>]{0,200}):(?P<pw>[^\s@/?#'\"<>]{1,200})@(?=[\w\[.-])"
)
_QUOTED_TOKEN_RE = re.compile(r"(['\"`])([A-Za-z0-9+/=_-]{20,512})\1")
_ASSIGNED_TOKEN_RE = re.compile(
    r"(?:^|(?<=[\s,{;(]))[\w.-]{1,60}['\"]?[^\S\n]*(?:=|:)[^\S\n]*([A-Za-z0-9+/=_-]{20,512})(?=$|[\s,;)}\]])",
    re.MULTILINE,
)
# The name a value is bound to, looking left from the value: ``invoice_id = "..."`` -> ``invoice_id``.
_KEY_BEFORE_RE = re.compile(r"([\w.-]+)['\"\]]?[^\S\n]*(?::=|=>|=|:)[^\S\n]*['\"`]?$")
_DIGEST_PREFIX_RE = re.compile(r"^(?:sha\d+|md5|sha)[-:]", re.IGNORECASE)


_ENDS_WITH_PASS_RE = re.compile(r"pass\d*$", re.IGNORECASE)
_ENDS_WITH_PASSWORD_RE = re.compile(r"(?:password|passwd|passphrase|passcode)\d*$", re.IGNORECASE)


def _is_strict_key(key: str) -> bool:
    """True when the secret keyword is the key's last word; a bare ``pass`` needs a word boundary
    (``db_pass``, ``dbPass``) so that ``bypass`` or ``compass`` do not count."""
    if _ENDS_WITH_PASS_RE.search(key) and not _ENDS_WITH_PASSWORD_RE.search(key):
        return bool(_STRICT_PASS_RE.search(key))
    return bool(_STRICT_KEY_RE.search(key))


def _is_env_style(key: str, op: str, text: str, op_pos: int) -> bool:
    """``DB_PASSWORD=value`` in a shell/.env file: any value is a secret."""
    return key.isupper() and op == "=" and op_pos > 0 and not text[op_pos - 1].isspace()


def _accept_value(value: str, *, strict: bool, quoted: bool, env_style: bool) -> bool:
    """Decide whether an assigned value is a secret, given how strong the key context is."""
    if _is_placeholder(value) or "[" in value:
        return False
    if env_style:
        return len(value) >= 3
    if " " in value.strip():
        return False  # prose, prompts and descriptions, not credentials
    if strict and quoted:
        # ``credentials: "omit"`` / ``apiKey = "API_KEY"`` are options and names, not secrets.
        plain_word = value.isalpha() and value.islower() and len(value) < 8
        return len(value) >= 4 and not plain_word and not _CONSTANT_NAME_RE.match(value)
    if strict:
        return len(value) >= 6 and (value.isdigit() or _looks_random(value, 6))
    return _looks_random(value, 8)


def _assignment_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """``db_password = "..."``, ``apiKey: ...``, ``DB_PASS=...``: redact the value only.

    Searching for the keyword first and expanding to the surrounding key is much faster than
    letting one regex try every identifier in the text.
    """
    covered = 0  # end of the last identifier examined: each character is walked at most twice
    for keyword in _KEYWORD_RE.finditer(text.translate(_ASCII_LOWER)):
        if keyword.start() < covered:
            continue
        key_start = keyword.start()
        while key_start > covered and text[key_start - 1] in _KEY_CHARS:
            key_start -= 1
        match = _KEY_TAIL_RE.match(text, keyword.end())
        if match is None:
            rest = _KEY_REST_RE.match(text, keyword.end())
            covered = rest.end() if rest else keyword.end()
            continue
        covered = match.end("rest")
        yield from _assignment_value(text, match, text[key_start:covered])


def _assignment_value(text: str, match: re.Match[str], key: str) -> Iterator[tuple[str, int, int]]:
    strict = _is_strict_key(key)
    quoted = match.group("q") is not None
    group = "qv" if quoted else "uv"
    env_style = _is_env_style(key, match.group("op"), text, match.start("op"))
    if _accept_value(match.group(group), strict=strict, quoted=quoted, env_style=env_style):
        yield "password-assignment", match.start(group), match.end(group)
    if quoted:
        yield from _more_quoted_values(text, match.end(), strict)


def _more_quoted_values(text: str, pos: int, strict: bool) -> Iterator[tuple[str, int, int]]:
    """``SECRETS = 'a1b2c3d4e5', 'f6g7h8i9j0'``: every literal of the tuple is a secret."""
    while True:
        more = _MORE_QUOTED_RE.match(text, pos)
        if more is None:
            return
        value = more.group(2)
        if _accept_value(value, strict=strict, quoted=True, env_style=False):
            yield "password-assignment", more.start(2), more.end(2)
        pos = more.end()


def _block_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """YAML/INI blocks whose secret-named key has its value on the following indented lines."""
    for head in _BLOCK_HEAD_RE.finditer(text):
        if not _KEYWORD_RE.search(head.group("key").translate(_ASCII_LOWER)):
            continue
        strict = _is_strict_key(head.group("key"))
        indent = len(head.group("indent").expandtabs())
        pos = head.end() + 1
        while pos < len(text):
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end < 0 else line_end
            line = text[pos:line_end]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            yield from _block_line_value(line, pos, strict)
            pos = line_end + 1


def _block_line_value(line: str, offset: int, strict: bool) -> Iterator[tuple[str, int, int]]:
    body = line.strip()
    if not body or body.startswith(("#", ";")) or body.endswith(":"):
        return  # comments and nested mapping keys carry no value
    start = offset + len(line) - len(line.lstrip())
    sub = re.match(r"([\w.-]+)\s*:\s*(\S.*)$", body)
    if sub:
        if sub.group(1).lower() not in _BLOCK_SUBKEYS:
            return
        body, start = sub.group(2), start + sub.start(2)
    elif body.startswith("- "):
        body, start = body[2:].strip(), start + 2
    body = body.strip("'\"")
    # Under a secret-named key an indented value is as explicit as a quoted one.
    if body and _accept_value(body, strict=strict, quoted=strict, env_style=False):
        begin = offset + line.find(body, start - offset)
        yield "password-assignment", begin, begin + len(body)


def _disclosure_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Chat-style ``my wifi password is Tr0ub4dor&3``: only values that look generated."""
    for match in _DISCLOSURE_RE.finditer(text):
        value = match.group("v").rstrip(".,;:!?")
        if not _is_placeholder(value) and _looks_random(value, 6):
            yield "password-assignment", match.start("v"), match.start("v") + len(value)


def _connection_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _CONN_RE.finditer(text):
        password = match.group("pw")
        if _is_placeholder(password) or password.isdigit() and not match.group("user"):
            continue
        yield "connection-string-password", match.start("pw"), match.end("pw")


def _is_entropy_secret(value: str) -> bool:
    core = value.rstrip("=")
    if len(core) < 20 or _HEX_RE.match(core) or _DIGEST_PREFIX_RE.match(core) or "[REDACTED" in core:
        return False
    if core.startswith("0x") and _HEX_RE.match(core[2:]):
        return False  # blockchain addresses and other 0x-hex literals
    if not _has_base62_mix(core) or _wordiness(core) >= 0.45:
        return False
    if core.count("/") >= 2 and all(part.isalpha() for part in core.split("/") if part):
        return False
    return shannon_entropy(core) >= 4.0


def _bound_to_id(text: str, start: int) -> bool:
    """``invoice_id: in_0KVn...``, ``sha = "..."``: identifiers and digests, not secrets."""
    line_start = text.rfind("\n", 0, start) + 1
    key = _KEY_BEFORE_RE.search(text, line_start, start)
    return key is not None and _ID_KEY_RE.search(key.group(1)) is not None


def _entropy_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    for regex, group in ((_QUOTED_TOKEN_RE, 2), (_ASSIGNED_TOKEN_RE, 1)):
        for match in regex.finditer(text):
            if _is_entropy_secret(match.group(group)) and not _bound_to_id(text, match.start(group)):
                yield "high-entropy-string", match.start(group), match.end(group)


def _format_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    folded = text.lower()
    for rule in _FORMAT_RULES:
        haystack = folded if rule.folded else text
        if not any(needle in haystack for needle in rule.needles):
            continue
        for match in rule.pattern.finditer(text):
            # Validators look at the token body: the last capture group, or the whole match.
            body = match.group(match.re.groups or 0)
            if rule.validate is not None and not rule.validate(body):
                continue
            yield rule.rule, match.start(rule.group), match.end(rule.group)


# --------------------------------------------------------------------------------------------------
# detect-secrets plugins (format-based only)
# --------------------------------------------------------------------------------------------------

# (module, class, rule id, gate regex, gate on lower-cased text?). The gate is a cheap necessary
# condition for the plugin to find anything, so most texts skip most plugins.
_DS_PLUGINS: tuple[tuple[str, str, str, str, bool], ...] = (
    ("aws", "AWSKeyDetector", "aws-access-key", r"akia|asia|abia|acca|a3t|aws", True),
    ("artifactory", "ArtifactoryDetector", "artifactory-token", r"AKC|AP[\dA-F]", False),
    ("azure_storage_key", "AzureStorageKeyDetector", "azure-storage-key", r"accountkey=", True),
    ("basic_auth", "BasicAuthDetector", "connection-string-password", r"://\S*@", False),
    (
        "cloudant",
        "CloudantDetector",
        "cloudant-credentials",
        r"cloudant|cl(?:ou)?[_-]?(?:api)?(?:key|pw|pass|token)",
        True,
    ),
    ("discord", "DiscordBotTokenDetector", "discord-token", r"[MNO][\w-]{23,25}\.", False),
    ("github_token", "GitHubTokenDetector", "github-token", r"gh[pousr]_", False),
    ("gitlab_token", "GitLabTokenDetector", "gitlab-token", r"gl[a-z]{1,6}-|GR1348941", False),
    ("ibm_cloud_iam", "IbmCloudIamDetector", "ibm-cloud-iam-key", r"[\w-]{44}", False),
    ("ibm_cos_hmac", "IbmCosHmacDetector", "ibm-cos-hmac", r"[a-f0-9]{32}", False),
    ("jwt", "JwtTokenDetector", "jwt", r"eyJ", False),
    ("mailchimp", "MailchimpDetector", "mailchimp-key", r"-us\d", False),
    ("npm", "NpmDetector", "npm-token", r"_authtoken", True),
    ("openai", "OpenAIDetector", "openai-key", r"T3BlbkFJ", False),
    ("pypi_token", "PypiTokenDetector", "pypi-token", r"pypi-", False),
    ("sendgrid", "SendGridDetector", "sendgrid-key", r"SG\.", False),
    ("slack", "SlackDetector", "slack-token", r"xox|hooks\.slack\.com", True),
    (
        "softlayer",
        "SoftlayerDetector",
        "softlayer-credentials",
        r"softlayer|sl[_-]?(?:api)?(?:key|pw|pass|token)",
        True,
    ),
    ("square_oauth", "SquareOAuthDetector", "square-oauth-secret", r"sq0csp-", False),
    ("stripe", "StripeDetector", "stripe-key", r"k_live_", False),
    ("telegram_token", "TelegramBotTokenDetector", "telegram-token", r"\d{8,10}:", False),
    ("twilio", "TwilioKeyDetector", "twilio-key", r"AC[a-z0-9]{32}|SK[a-z0-9]{32}", False),
)
_DS_STRIP = " \t\r\n'\"=:`"


@dataclass(frozen=True)
class _DsPlugin:
    rule: str
    plugin: Any
    gate: re.Pattern[str]
    folded: bool


@cache
def _detect_secrets_plugins() -> tuple[_DsPlugin, ...]:
    """Instantiate the plugins once; an unavailable plugin is skipped, not fatal."""
    loaded: list[_DsPlugin] = []
    for module_name, class_name, rule, gate, folded in _DS_PLUGINS:
        try:
            module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
            loaded.append(_DsPlugin(rule, getattr(module, class_name)(), re.compile(gate), folded))
        except (ImportError, AttributeError):  # pragma: no cover - depends on the installed version
            continue
    return tuple(loaded)


def _detect_secrets_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    folded = text.lower()
    for entry in _detect_secrets_plugins():
        if not entry.gate.search(folded if entry.folded else text):
            continue
        for raw in set(entry.plugin.analyze_string(text)):
            value = str(raw).strip(_DS_STRIP)
            if _is_placeholder(value) or not _looks_random(value, 8):
                continue
            yield from _occurrences(text, value, _refine_ds_rule(entry.rule, value))


def _refine_ds_rule(rule: str, value: str) -> str:
    if rule == "aws-access-key" and not re.match(r"(?:A3T|AKIA|ASIA|ABIA|ACCA)", value):
        return "aws-secret-key"
    if rule == "slack-token" and value.startswith("https://"):
        return "slack-webhook"
    return rule


def _occurrences(text: str, value: str, rule: str) -> Iterator[tuple[str, int, int]]:
    start = text.find(value)
    while start >= 0:
        yield rule, start, start + len(value)
        start = text.find(value, start + len(value))


# --------------------------------------------------------------------------------------------------
# Selection and rewriting
# --------------------------------------------------------------------------------------------------

_Detector = Callable[[str], Iterable[tuple[str, int, int]]]
# Order matters only to break ties between equally long candidates: specific formats first.
_DETECTORS: tuple[_Detector, ...] = (
    _format_candidates,
    _detect_secrets_candidates,
    _connection_candidates,
    _assignment_candidates,
    _block_candidates,
    _disclosure_candidates,
    _entropy_candidates,
)


def _candidates(text: str) -> list[_Candidate]:
    found: list[_Candidate] = []
    for priority, detector in enumerate(_DETECTORS):
        for rule, start, end in detector(text):
            if end > start:
                found.append(_Candidate(rule, start, end, priority))
    return found


class _Occupied:
    """Non-overlapping spans sorted by start; overlap queries in O(log n) via bisection."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in sorted(spans):
            self.add(start, end)

    def overlaps(self, start: int, end: int) -> bool:
        index = bisect.bisect_right(self._starts, start)
        if index > 0 and self._ends[index - 1] > start:
            return True
        return index < len(self._starts) and self._starts[index] < end

    def add(self, start: int, end: int) -> None:
        index = bisect.bisect_right(self._starts, start)
        self._starts.insert(index, start)
        self._ends.insert(index, end)


def _select(candidates: list[_Candidate], protected: list[tuple[int, int]]) -> list[_Candidate]:
    """Longest candidate wins an overlap; nothing touching an existing marker is kept."""
    occupied = _Occupied(protected)
    chosen: list[_Candidate] = []
    for cand in sorted(set(candidates), key=lambda c: (c.start - c.end, c.priority, c.start, c.rule)):
        if not occupied.overlaps(cand.start, cand.end):
            occupied.add(cand.start, cand.end)
            chosen.append(cand)
    return sorted(chosen, key=lambda c: c.start)


def redact_secrets(text: str) -> RedactionResult:
    """Replace every detected secret in ``text`` by ``[REDACTED:<rule>:<digest8>]``."""
    if not text:
        return RedactionResult(text=text, findings=[])
    protected = [(m.start(), m.end()) for m in MARKER_RE.finditer(text)]
    chosen = _select(_candidates(text), protected)
    if not chosen:
        return RedactionResult(text=text, findings=[])
    parts: list[str] = []
    findings: list[SecretFinding] = []
    cursor = 0
    for cand in chosen:
        secret = text[cand.start : cand.end]
        parts.append(text[cursor : cand.start])
        parts.append(marker(cand.rule, secret))
        findings.append(SecretFinding(cand.rule, cand.start, cand.end, digest8(secret)))
        cursor = cand.end
    parts.append(text[cursor:])
    return RedactionResult(text="".join(parts), findings=findings)
