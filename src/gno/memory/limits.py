"""The memory contract's limits, its scope rule and a fact's text identity, apart from the fact files.

A cold `gno recall` or `gno remember` proposal (`gno.cli.cold_memory`) validates scopes and
budgets and compares texts with these and nothing else of `gno.memory.records` (YAML-free but
heavy: dataclasses, dates, the error table), which re-exports them all.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

TYPE_CHECKING = False  # not typing's: a cold recall does not import typing
if TYPE_CHECKING:
    from typing import Any

MEMORY_CANDIDATE_POOL = 16
MEMORY_SEMANTIC_LIKELY_THRESHOLD = 0.83
MEMORY_LEXICAL_LIKELY_THRESHOLD = 0.5
MEMORY_RECALL_MAX_FACTS = 8
MEMORY_RECALL_MAX_TOKENS = 512
MEMORY_RECALL_RETRIEVAL_LIMIT = 32
MEMORY_RRF_K = 60
#: RRF constant when the vector leg joins (measured on LoCoMo dialog R@10, bench/locomo_hybrid.py:
#: k = 60 flattens the top ranks of a 32-deep leg and gave 0.599; k = 10 gave 0.624)
MEMORY_HYBRID_RRF_K = 10
MEMORY_TOKEN_BYTES_ESTIMATE = 4
MEMORY_MAX_SCOPES = 8
MEMORY_MAX_SCOPE_CHARS = 64
MEMORY_MAX_FACT_BYTES = 4096
MEMORY_SUPERSEDES_EDGE = "supersedes"
MEMORY_FRONTMATTER_KEY = "memory"
MEMORY_RECORD_ID_PREFIX = "mem-"
#: one line, returned verbatim by every surface: it names the write path and, for a user who has
#: no memory collection yet, the command that makes one
MEMORY_EMPTY_RECALL_HINT = (
    'No memories exist in this scope yet; store one with `gno remember "<fact>" --scope <scope> --decision add` '
    "(memory lives in a collection added with `gno collection add <dir> --memory`)."
)

_WS_RE = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """NFC, whitespace collapsed to single spaces, trimmed: the identity of a fact's text."""
    return _WS_RE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()


def token_set(text: str) -> set[str]:
    out: set[str] = set()
    cur: list[str] = []
    for ch in normalize_text(text).lower():
        if unicodedata.category(ch)[0] in "LN":
            cur.append(ch)
        elif cur:
            out.add("".join(cur))
            cur = []
    if cur:
        out.add("".join(cur))
    return out


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


_SCOPE_EXTRA = frozenset("._:/@-")


def _scope_ok(s: str) -> bool:
    if not s or len(s) > MEMORY_MAX_SCOPE_CHARS:
        return False
    if unicodedata.category(s[0])[0] not in "LN":
        return False
    if s.endswith(":") or "::" in s:
        return False  # `project:` names a kind of scope with no value: every project would share it
    return all(unicodedata.category(c)[0] in "LN" or c in _SCOPE_EXTRA for c in s)


def normalize_scope(raw: str) -> str:
    return unicodedata.normalize("NFC", raw).strip().lower()


def _scopes_error(message: str, *, required: bool = False, **details: object) -> Exception:
    from gno.errors import ErrorCode, ValidationError

    code = ErrorCode.MEMORY_SCOPES_REQUIRED if required else ErrorCode.MEMORY_SCOPES_INVALID
    return ValidationError(message, code=code, details=details or None)


_NO_SCOPES = "memory calls need explicit scopes (there is no global scope): name at least one scope (`scopes`)"


def validate_scopes(raw: Any) -> list[str]:
    """1–8 scopes, each NFC → trim → lowercase, deduplicated in order, well-formed."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise _scopes_error(_NO_SCOPES, required=True)
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or not all(isinstance(x, str) for x in items):
        raise _scopes_error("scopes must be a list of strings")
    out: list[str] = []
    for s in (normalize_scope(x) for x in items):
        if s and s not in out:
            out.append(s)
    if not out:
        raise _scopes_error(_NO_SCOPES, required=True)
    if len(out) > MEMORY_MAX_SCOPES:
        raise _scopes_error(f"at most {MEMORY_MAX_SCOPES} scopes per call (got {len(out)})", scopes=out)
    bad = [s for s in out if not _scope_ok(s)]
    if bad:
        raise _scopes_error(
            f"invalid scope {bad[0]!r}: letters and digits, then . _ : / @ -, a value after each ':' "
            f"(project:gno, not project:), at most {MEMORY_MAX_SCOPE_CHARS} characters",
            invalid=bad,
        )
    return out
