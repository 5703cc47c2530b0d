"""The fact-file contract: normalisation, hashes, scopes, serialisation and validation.

One fact per markdown file at `facts/<YYYY-MM-DD>/mem-<16 hex>.md`, front matter `memory`
block (`recordId, scopes, caller, session, createdAt, contentHash`, optional `source` and
`validFrom`, the event time when the caller knows it), a
successor's `relations.supersedes` with its predecessor's URI, body = the fact text. Files are
canonical: a hand-edited file that breaks the contract is reported (never repaired) and left
out of recall, while staying an ordinary document for search.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gno.errors import ValidationError
from gno.memory.instants import parse_instant, start_of
from gno.memory.limits import (  # noqa: F401 - the contract's limits and scope rule, re-exported
    MEMORY_CANDIDATE_POOL,
    MEMORY_EMPTY_RECALL_HINT,
    MEMORY_FRONTMATTER_KEY,
    MEMORY_HYBRID_RRF_K,
    MEMORY_LEXICAL_LIKELY_THRESHOLD,
    MEMORY_MAX_FACT_BYTES,
    MEMORY_MAX_SCOPE_CHARS,
    MEMORY_MAX_SCOPES,
    MEMORY_RECALL_MAX_FACTS,
    MEMORY_RECALL_MAX_TOKENS,
    MEMORY_RECALL_RETRIEVAL_LIMIT,
    MEMORY_RECORD_ID_PREFIX,
    MEMORY_RRF_K,
    MEMORY_SEMANTIC_LIKELY_THRESHOLD,
    MEMORY_SUPERSEDES_EDGE,
    MEMORY_TOKEN_BYTES_ESTIMATE,
    content_hash,
    jaccard,
    normalize_scope,
    normalize_text,
    token_set,
    validate_scopes,
)

RECORD_ID_RE = re.compile(r"^mem-[0-9a-f]{16}$")
HASH_RE = re.compile(r"^[0-9a-f]{64}$")


def record_id_for(chash: str, created_at: str, caller: str, session: str) -> str:
    raw = f"{chash}\n{created_at}\n{caller}\n{session}"
    return MEMORY_RECORD_ID_PREFIX + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]


def fact_rel_path(record_id: str, created_at: str) -> str:
    return f"facts/{created_at[:10]}/{record_id}.md"


def _yaml_printable(ch: str) -> bool:
    o = ord(ch)
    return (
        o in (0x9, 0xA, 0xD, 0x85)
        or 0x20 <= o <= 0x7E
        or 0xA0 <= o <= 0xD7FF
        or 0xE000 <= o <= 0xFFFD
        or 0x10000 <= o <= 0x10FFFF
    )


def _q(s: str) -> str:
    """A YAML double-quoted scalar: JSON escapes, plus \\uXXXX for what YAML may not contain raw."""
    out = json.dumps(s, ensure_ascii=False)
    if all(_yaml_printable(c) for c in out):
        return out
    return "".join(
        c if _yaml_printable(c) else (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}") for c in out
    )


def serialize_fact(
    *,
    text: str,
    record_id: str,
    scopes: list[str],
    caller: str,
    session: str,
    created_at: str,
    chash: str,
    source: str | None = None,
    supersedes: list[str] | None = None,
    valid_from: str | None = None,
) -> str:
    norm = normalize_text(text)
    lines = [
        "---",
        f"title: {_q(norm[:80])}",
        "memory:",
        f"  recordId: {_q(record_id)}",
        "  scopes: [" + ", ".join(_q(s) for s in scopes) + "]",
        f"  caller: {_q(caller)}",
        f"  session: {_q(session)}",
        f"  createdAt: {_q(created_at)}",
        f"  contentHash: {_q(chash)}",
    ]
    if valid_from:
        lines.append(f"  validFrom: {_q(valid_from)}")
    if source:
        lines.append(f"  source: {_q(source)}")
    if supersedes:
        lines.append("relations:")
        lines.append("  supersedes:")
        lines.extend(f"    - {_q(u)}" for u in supersedes)
    lines += ["---", "", text.strip(), ""]
    return "\n".join(lines)


@dataclass
class RecordCheck:
    """Validation outcome of one fact file: valid or not, with every diagnostic code."""

    valid: bool
    diagnostics: list[str] = field(default_factory=list)
    record_id: str | None = None
    content_hash: str | None = None
    scopes: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def _iso_ok(v: Any) -> bool:
    if isinstance(v, datetime):
        return True
    if not isinstance(v, str):
        return False
    try:
        datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def check_record(frontmatter: dict[str, Any] | None, body: str) -> RecordCheck:
    diags: list[str] = []
    if frontmatter is None:
        return RecordCheck(False, ["MEMORY_FRONTMATTER_MISSING"])
    mem = frontmatter.get(MEMORY_FRONTMATTER_KEY)
    if not isinstance(mem, dict):
        return RecordCheck(False, ["MEMORY_FRONTMATTER_MISSING" if mem is None else "MEMORY_FRONTMATTER_INVALID"])
    rid = mem.get("recordId")
    if not isinstance(rid, str) or not RECORD_ID_RE.match(rid):
        diags.append("MEMORY_RECORD_ID_INVALID")
    scopes_raw = mem.get("scopes")
    scopes: list[str] = []
    if not isinstance(scopes_raw, list) or not scopes_raw:
        diags.append("MEMORY_SCOPES_EMPTY" if not scopes_raw else "MEMORY_SCOPES_INVALID")
    else:
        try:
            scopes = validate_scopes([str(s) for s in scopes_raw])
        except ValidationError:
            diags.append("MEMORY_SCOPES_INVALID")
    caller, session = mem.get("caller"), mem.get("session")
    if not (isinstance(caller, str) and caller.strip() and isinstance(session, str) and session.strip()):
        diags.append("MEMORY_IDENTITY_MISSING")
    created = mem.get("createdAt")
    if not _iso_ok(created):
        diags.append("MEMORY_CREATED_AT_INVALID")
    chash = mem.get("contentHash")
    text = body.strip()
    if not text:
        diags.append("MEMORY_BODY_EMPTY")
    if not isinstance(chash, str) or not HASH_RE.match(chash):
        diags.append("MEMORY_CONTENT_HASH_INVALID")
    elif text and content_hash(text) != chash:
        diags.append("MEMORY_CONTENT_HASH_MISMATCH")
    supersedes: list[str] = []
    rel = frontmatter.get("relations")
    if rel is not None:
        sup = rel.get(MEMORY_SUPERSEDES_EDGE) if isinstance(rel, dict) else None
        if isinstance(rel, dict) and sup is not None:
            vals = sup if isinstance(sup, list) else [sup]
            if not all(isinstance(v, str) and v.strip().startswith("gno://") for v in vals):
                diags.append("MEMORY_SUPERSEDES_INVALID")
            else:
                supersedes = [v.strip() for v in vals]
        elif not isinstance(rel, dict):
            diags.append("MEMORY_SUPERSEDES_INVALID")
    source = mem.get("source")
    valid_from = mem.get("validFrom")
    if valid_from is not None and parse_instant(valid_from) is None:
        diags.append("MEMORY_VALID_FROM_INVALID")
    rid_s = rid if isinstance(rid, str) else None
    chash_s = chash if isinstance(chash, str) else None
    meta: dict[str, Any] = {
        "recordId": rid if isinstance(rid, str) else None,
        "scopes": scopes,
        "caller": caller if isinstance(caller, str) else None,
        "session": session if isinstance(session, str) else None,
        "createdAt": created
        if isinstance(created, str)
        else (created.isoformat() if isinstance(created, datetime) else None),
        "contentHash": chash if isinstance(chash, str) else None,
        "supersedes": supersedes,
        "source": source if isinstance(source, str) else None,
        "validFrom": parse_instant(valid_from),
    }
    meta["startAt"] = start_of(meta)  # when the fact starts being current (`recall --as-of`)
    return RecordCheck(not diags, diags, rid_s, chash_s, scopes, meta)
