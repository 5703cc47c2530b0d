"""Context rules: a value is a secret because of where it stands, not because of its shape.

Covers ``password = "..."`` style assignments (value only), YAML/INI blocks under a secret-named key or
inside a ``credentials:``/``secrets:`` collection, prose labels ("API key 6a0f...", "the webhook secret is
..."), chat disclosures ("my wifi password is ..."), connection strings (password only) and high-entropy
quoted or assigned values. Why positional: the same 32 hex characters are a secret after ``api_key =`` and
a digest after ``contentHash:``; only the surrounding key or label can tell them apart, so hex digests, git
SHAs, UUIDs and record ids are left alone unless a secret name claims them, and a key that names an id or
a digest *of* a secret (``token_hash``, ``secret_id``) does not claim its value. The one shape-only
exception follows detect-secrets: a lone quoted literal of 32-63 hex digits (not 40) that no key names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gno.guard.secret_values import (
    CONSTANT_NAME_RE,
    HEX_RE,
    ID_KEY_RE,
    decodes_to_words,
    has_base62_mix,
    is_placeholder,
    looks_random,
    shannon_entropy,
    wordiness,
)

_KEYWORD = (
    r"(?:password|passwd|passphrase|passcode|pass(?![a-z])|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|auth[_-]?key|secret[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|client[_-]?secret"
    r"|credentials?|auth[_-]?token|access[_-]?token|refresh[_-]?token|api[_-]?token|session[_-]?key"
    r"|auth(?![a-z])|private(?![a-z]))"
)
# ``auth`` and ``private`` name a secret only as the key's last word (``auth``, ``basicAuth``, ``x_private``):
# ``auth_provider``, ``private_repo`` or ``oauth`` hold settings, not credentials.
_LAST_WORD_ONLY = frozenset({"auth", "private"})
_LAST_WORD_RE = re.compile(r"(?:^|[_.-])(?i:auth|private)['\"]?$|(?<=[a-z0-9])(?:Auth|Private)['\"]?$")
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
# A head naming a *collection* of secrets: every entry under it is a credential, whatever its own name
# (``credentials:\n  other_value_here: 1234567890a``), unless the entry names an identifier or public field.
_COLLECTION_HEAD_RE = re.compile(r"(?:^|[_.-]|(?<=[a-z0-9]))(?i:credentials|creds|secrets|passwords|api[_-]?keys)$")
_PUBLIC_FIELDS = frozenset(
    "user username login email name type kind provider region host hostname port endpoint scope scopes account"
    " project tenant issuer audience expires expiry".split()
)
_SUBKEY_RE = re.compile(r"([\w.-]+)\s*:\s*(\S.*)$")
# Prose labels (``API key 6a0f...``, ``the webhook secret is 9f86...``): the label must touch the value, or
# name what the secret is for in one word before a colon or "is" (``deploy key for prod: 9f8e...``).
_LABEL_NEEDLES = ("key", "secret", "token", "pass", "credential")
_LABEL_RE = re.compile(
    r"(?i:\b(?:(?:api|access|secret|private|signing|encryption|auth|master|client|deploy|webhook|app|license)[ _-]?key"
    r"|(?:api|access|auth|bearer|refresh|session|bot)[ _-]?token|secret|token|password|passphrase|passcode"
    r"|credential)s?)(?:[^\S\n]+(?i:for|of|on|in)[^\S\n]+[\w.-]{1,24}(?=[^\S\n]*[:=]|[^\S\n]+(?i:is|was)[^\S\n]))?"
    r"(?:[^\S\n]+(?i:is|was)[^\S\n]+|[^\S\n]*[:=][^\S\n]*|[^\S\n]+)['\"`]?"
    r"(?P<v>[A-Za-z0-9+/_=-]{16,200})(?![A-Za-z0-9+/_=-])"
)
_DISCLOSURE_RE = re.compile(
    r"(?i:\b(?:password|passcode|passphrase|pin|pwd)"
    r"(?:\s+(?:is|was|=)\s+|[^\S\n]+(?:for|of|on|to)(?:[^\S\n]+[\w.'’-]+){1,4}?(?:[^\S\n]+(?:is|was)[^\S\n]+|[^\S\n]*[:=][^\S\n]*)))"
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
# detect-secrets' HexHighEntropyString, narrowed: a quoted literal of 32-63 hex digits and nothing else.
# Shorter values are ids (``len("012345678a")``, ``mem-<16 hex>``); 64 is a SHA-256 digest and 40 a git SHA.
_QUOTED_HEX_RE = re.compile(r"""(['"])([0-9a-fA-F]{32,63})\1""")
_GIT_SHA_LEN = 40
_HEX_ENTROPY_MIN = 3.0  # detect-secrets' default hex limit


_ENDS_WITH_PASS_RE = re.compile(r"pass\d*$", re.IGNORECASE)
_ENDS_WITH_PASSWORD_RE = re.compile(r"(?:password|passwd|passphrase|passcode)\d*$", re.IGNORECASE)


def _is_strict_key(key: str) -> bool:
    """True when the secret keyword is the key's last word; a bare ``pass`` needs a word boundary
    (``db_pass``, ``dbPass``) so that ``bypass`` or ``compass`` do not count."""
    if _ENDS_WITH_PASS_RE.search(key) and not _ENDS_WITH_PASSWORD_RE.search(key):
        return bool(_STRICT_PASS_RE.search(key))
    return bool(_STRICT_KEY_RE.search(key))


_ENDS_AUTH_OR_PRIVATE_RE = re.compile(r"(?i:auth|private)\d*$")


def _ends_in_secret_word(key: str) -> bool:
    """The key's last word is a secret name other than ``auth``/``private`` (which ``oauth`` or
    ``is_private`` end in too)."""
    return _is_strict_key(key) and not _ENDS_AUTH_OR_PRIVATE_RE.search(key)


def _is_env_style(key: str, op: str, text: str, op_pos: int) -> bool:
    """``DB_PASSWORD=value`` in a shell/.env file: any value is a secret."""
    return key.isupper() and op == "=" and op_pos > 0 and not text[op_pos - 1].isspace()


_LINK_RE = re.compile(r"(?i)^(?:https?://|www\.)")
_LINK_PART_RE = re.compile(r"[/?#&=.:_-]+")


def _plain_link(value: str) -> bool:
    """A link with no generated part (``https://www.example-reset.com/account``): where a secret is set, not
    the secret; a link carrying a long generated part (a webhook's token) is not plain."""
    return bool(_LINK_RE.match(value)) and not any(
        looks_random(part, 16) for part in _LINK_PART_RE.split(value)
    )


def _accept_value(value: str, *, strict: bool, quoted: bool, env_style: bool, alone: bool = False) -> bool:
    """Decide whether an assigned value is a secret, given how strong the key context is.

    ``alone``: the value ends its line (``password = open_sesame`` in an INI or YAML file), which
    makes an unquoted word as explicit as a quoted one."""
    if is_placeholder(value) or "[" in value or _plain_link(value):
        return False  # a link ("reset your password: https://…") is where a secret is set, not the secret
    if env_style:
        return len(value) >= 3
    if " " in value.strip():
        return False  # prose, prompts and descriptions, not credentials
    if strict and (quoted or alone):
        # ``credentials: "omit"`` / ``apiKey = "API_KEY"`` are options and names, not secrets.
        plain_word = value.isalpha() and value.islower() and len(value) < 8
        return len(value) >= 4 and not plain_word and not CONSTANT_NAME_RE.match(value)
    if strict:
        return len(value) >= 6 and (value.isdigit() or looks_random(value, 6))
    return looks_random(value, 8)


def assignment_candidates(text: str) -> Iterator[tuple[str, int, int]]:
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
        key = text[key_start:covered]
        if keyword.group() in _LAST_WORD_ONLY and not _LAST_WORD_RE.search(key) and not _ends_in_secret_word(key):
            continue  # ``auth_provider`` holds a setting; ``REACT_APP_AUTH_PASSWORD`` still ends in a secret name
        if _inside_a_string(text, key_start, match):
            continue
        yield from _assignment_value(text, match, key)


def _inside_a_string(text: str, key_start: int, match: re.Match[str]) -> bool:
    """``passwordLabel:"Password:",rememberMeLabel:…``: the "key" is the text of a string literal and
    the quote after its colon closes that string; what follows is code, not a value."""
    quote = match.group("q")
    if quote is None or key_start == 0 or text[key_start - 1] != quote:
        return False
    return quote not in text[key_start : match.start("op")]


_LINE_REST_RE = re.compile(r"[^\S\n]*(?:(?:#|;|//)[^\n]*)?(?:\n|$)")


def _assignment_value(text: str, match: re.Match[str], key: str) -> Iterator[tuple[str, int, int]]:
    strict = _is_strict_key(key)
    if not strict and ID_KEY_RE.search(key):
        return  # ``token_hash``, ``secret_id``, ``api_key_sha256``: a digest or an id *about* a secret
    quoted = match.group("q") is not None
    group = "qv" if quoted else "uv"
    env_style = _is_env_style(key, match.group("op"), text, match.start("op"))
    alone = not quoted and _LINE_REST_RE.match(text, match.end()) is not None
    if _accept_value(match.group(group), strict=strict, quoted=quoted, env_style=env_style, alone=alone):
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


def block_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """YAML/INI blocks whose secret-named key has its value on the following indented lines."""
    for head in _BLOCK_HEAD_RE.finditer(text):
        key = head.group("key")
        collection = bool(_COLLECTION_HEAD_RE.search(key))
        keyword = _KEYWORD_RE.search(key.translate(_ASCII_LOWER))
        if not collection and (keyword is None or keyword.group() in _LAST_WORD_ONLY and not _LAST_WORD_RE.search(key)):
            continue
        strict = collection or _is_strict_key(key)
        indent = len(head.group("indent").expandtabs())
        pos = head.end() + 1
        while pos < len(text):
            line_end = text.find("\n", pos)
            line_end = len(text) if line_end < 0 else line_end
            line = text[pos:line_end]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            yield from _block_line_value(line, pos, strict, collection)
            pos = line_end + 1


def _block_line_value(line: str, offset: int, strict: bool, collection: bool) -> Iterator[tuple[str, int, int]]:
    body = line.strip()
    if not body or body.startswith(("#", ";")) or body.endswith(":"):
        return  # comments and nested mapping keys carry no value
    start = offset + len(line) - len(line.lstrip())
    sub = _SUBKEY_RE.match(body)
    if sub:
        name = sub.group(1)
        body, start = sub.group(2), start + sub.start(2)
        if name.lower() not in _BLOCK_SUBKEYS:
            if not collection or ID_KEY_RE.search(name) or name.lower() in _PUBLIC_FIELDS:
                return
            # An entry of a credentials collection: as strong as ``name_secret: value``, but a bare word
            # (``not_secret``, ``basic``) is a setting, so the value must look generated.
            value = body.strip("'\"")
            if _accept_value(value, strict=True, quoted=False, env_style=False):
                begin = offset + line.find(value, start - offset)
                yield "password-assignment", begin, begin + len(value)
            return
    elif body.startswith("- "):
        body, start = body[2:].strip(), start + 2
    body = body.strip("'\"")
    # Under a secret-named key an indented value is as explicit as a quoted one.
    if body and _accept_value(body, strict=strict, quoted=strict, env_style=False):
        begin = offset + line.find(body, start - offset)
        yield "password-assignment", begin, begin + len(body)


def disclosure_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """Chat-style ``my wifi password is Tr0ub4dor&3``, or with what it opens named after it (``the password
    for the office wifi is BlueSky2024``): only values that look generated."""
    for match in _DISCLOSURE_RE.finditer(text):
        value = match.group("v").rstrip(".,;:!?")
        if not is_placeholder(value) and looks_random(value, 6):
            yield "password-assignment", match.start("v"), match.start("v") + len(value)


# An HTTP ``Authorization`` header (a request dump, a curl line, a client's config) carries its
# credential after the scheme word, whatever the provider.
_AUTH_HEADER_RE = re.compile(
    r"(?i:\b(?:proxy-)?authorization['\"]?[^\S\n]*[:=][^\S\n]*['\"]?(?:bearer|basic|token|digest)[^\S\n]+)"
    r"(?P<v>[A-Za-z0-9._~+/=-]{8,500})(?![A-Za-z0-9._~+/=-])"
)


def authorization_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """``Authorization: Bearer mF_9.B5f-4.1JqM``: the credential after the scheme, unless a placeholder."""
    if "uthorization" not in text and "UTHORIZATION" not in text:
        return
    for match in _AUTH_HEADER_RE.finditer(text):
        value = match.group("v")
        if is_placeholder(value) or CONSTANT_NAME_RE.match(value) or value.isalpha():
            continue
        yield "authorization-header", match.start("v"), match.end("v")


def labelled_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """``API key 6a0f0731d8...``, ``the webhook secret is 9f86d0...``: prose that names its secret.

    Only values that read as generated (hex with letters and digits, or a random-looking token) count,
    and never a ``0x`` literal (contract and wallet addresses are public).
    """
    folded = text.lower()
    if not any(label in folded for label in _LABEL_NEEDLES):
        return
    for match in _LABEL_RE.finditer(text):
        value = match.group("v")
        if is_placeholder(value) or value.lower().startswith("0x"):
            continue
        hex_token = bool(HEX_RE.match(value)) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
        if hex_token or looks_random(value, 16):
            yield "password-assignment", match.start("v"), match.end("v")


def connection_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _CONN_RE.finditer(text):
        password = match.group("pw")
        if is_placeholder(password) or password.isdigit() and not match.group("user"):
            continue
        yield "connection-string-password", match.start("pw"), match.end("pw")


def _is_entropy_secret(value: str) -> bool:
    core = value.rstrip("=")
    if len(core) < 20 or HEX_RE.match(core) or _DIGEST_PREFIX_RE.match(core) or "[REDACTED" in core:
        return False
    if core.startswith("0x") and HEX_RE.match(core[2:]):
        return False  # blockchain addresses and other 0x-hex literals
    if not has_base62_mix(core) or wordiness(core) >= 0.45:
        return False
    if core.count("/") >= 2 and all(part.isalpha() for part in core.split("/") if part):
        return False
    return shannon_entropy(core) >= 4.0


#: a name given as the argument before the value: ``get("SESSION_ID", "…")``, ``setdefault('order_id', '…')``
_ARG_KEY_BEFORE_RE = re.compile(r"['\"]([\w.-]+)['\"][^\S\n]*,[^\S\n]*['\"`]?$")


def bound_to_id(text: str, start: int) -> bool:
    """``invoice_id: in_0KVn...``, ``sha = "..."``, ``get("SESSION_ID", "...")``: identifiers and digests, not
    secrets."""
    line_start = text.rfind("\n", 0, start) + 1
    key = _KEY_BEFORE_RE.search(text, line_start, start) or _ARG_KEY_BEFORE_RE.search(text, line_start, start)
    return key is not None and ID_KEY_RE.search(key.group(1)) is not None


def _bound_to_key(text: str, start: int) -> bool:
    """``"key": "..."``, ``md5 = '...'``: a named value, which the key rules judge instead."""
    line_start = text.rfind("\n", 0, start) + 1
    return _KEY_BEFORE_RE.search(text, line_start, start) is not None


def plausible_generic(text: str, start: int, end: int) -> bool:
    """Whether a value found by a generic keyword rule (gitleaks' ``generic-api-key``) can stand:
    not a placeholder, not a hex digest or UUID (the hex rules judge those by their key), and not
    bound to a key that names an id or a digest (``secret_id``, ``token_hash``)."""
    value = text[start:end]
    if is_placeholder(value) or HEX_RE.match(value) or _DIGEST_PREFIX_RE.match(value) or decodes_to_words(value):
        return False
    return not bound_to_id(text, start)


def hex_literal_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """A lone quoted hex literal (``"2b00042f...28f33cf"``, ``Client('60b7...')``) that no key names.

    Only 32 to 63 digits, never exactly 40, holding both letters and digits, with entropy above 3.0 bits
    per character: SHA-256 digests, git SHAs, UUIDs, short ids and unquoted prose hex are left alone. A
    value bound to a key is left to the assignment rules, which know ``api_key`` from ``etag`` or ``key``.
    """
    for match in _QUOTED_HEX_RE.finditer(text):
        value = match.group(2)
        if len(value) == _GIT_SHA_LEN or value.isdigit() or not any(c.isdigit() for c in value):
            continue
        if shannon_entropy(value) > _HEX_ENTROPY_MIN and not _bound_to_key(text, match.start(2)):
            yield "high-entropy-hex", match.start(2), match.end(2)


def entropy_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    for regex, group in ((_QUOTED_TOKEN_RE, 2), (_ASSIGNED_TOKEN_RE, 1)):
        for match in regex.finditer(text):
            if _is_entropy_secret(match.group(group)) and not bound_to_id(text, match.start(group)):
                yield "high-entropy-string", match.start(group), match.end(group)


# A secret word as (the end of) a label, touching a token: ``podioToken abcd1234...``, ``vultr_SECRET_ACCESS_KEY
# ABCD...``, ``restpack_key=...``. Bare ``key``/``access`` also name ids, digests and cache or sort keys, so
# after them the value must be long and read as generated, and a UUID or plain hex is left alone.
_KEYED_RE = re.compile(
    r"(?i:(?P<label>key|keys|token|tokens|secret|secrets|access|private|apikey|passwd|password|credentials?|auth))"
    r"(?:['\"]?[^\S\n]*(?::=|=>|[:=])[^\S\n]*|[^\S\n]+)['\"`]?(?P<v>[A-Za-z0-9+/_.=-]{16,200})(?![A-Za-z0-9+/_.=-])"
)
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_WEAK_LABELS = frozenset({"key", "keys", "access", "private"})
_FILE_RE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{1,4}$")  # ``…_md5.webp``: a file name, not a token


def keyed_token_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    """A token right after a secret word (no assignment needed), when it reads as generated."""
    for match in _KEYED_RE.finditer(text):
        value = match.group("v").rstrip(".=")
        label = match.group("label").lower()
        if is_placeholder(value) or value.lower().startswith("0x") or value.count("/") > 1 or _FILE_RE.search(value):
            continue
        if label in _WEAK_LABELS and (_UUID_RE.match(value) or HEX_RE.match(value) or len(value) < 20):
            continue  # ``key: <sha256>``, ``"key": "<md5>"``: cache keys and digests
        if len(set(value)) < 6 or wordiness(value) >= 0.5 or bound_to_id(text, match.start("v")):
            continue
        if looks_random(value, 16):
            yield "keyword-token", match.start("v"), match.start("v") + len(value)
