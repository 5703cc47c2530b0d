"""Canonical JSON, hashes and token counting for Context Capsules.

Canonical JSON = keys sorted (code-unit order), `", "`/`": "` separators, UTF-8 unescaped, text
normalised (CRLF → LF, NFC). The capsule's budget is counted on exactly these bytes, so a
Capsule printed by gno (or re-serialised by a client with the same separators) never exceeds
its budget. Tokens are counted with a deterministic tokenizer (the MiniLM WordPiece vocabulary
that ships with gno: `active_tokenizer`); without it, 1 token per UTF-8 byte
(`unicode_conservative`, an upper bound).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol


def norm_text(s: str) -> str:
    return unicodedata.normalize("NFC", s.replace("\r\n", "\n").replace("\r", "\n"))


def _norm(obj: Any) -> Any:
    if isinstance(obj, str):
        return norm_text(obj)
    if isinstance(obj, dict):
        return {k: _norm(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_norm(v) for v in obj]
    return obj


def canonical_json(obj: Any) -> str:
    return json.dumps(_norm(obj), sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def identity_json(obj: Any) -> str:
    """Compact key-sorted JSON (JavaScript's JSON.stringify of a key-sorted object): what ids hash."""
    return json.dumps(_norm(obj), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def capsule_id(payload: dict[str, Any]) -> str:
    """sha256 of the Capsule without its id and without budget.usedBytes/usedTokens."""
    ident = {k: v for k, v in payload.items() if k != "capsuleId"}
    ident["budget"] = {k: v for k, v in payload["budget"].items() if k not in ("usedBytes", "usedTokens")}
    return sha256_hex(identity_json(ident))


def sha256_hex(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def evidence_id(
    *, docid: str, end_line: int, mirror_hash: str, passage_hash: str, source_hash: str, start_line: int, uri: str
) -> str:
    """sha256 of compact JSON with these keys in this (sorted) order, as the reference defines it."""
    payload = {
        "docid": docid,
        "endLine": end_line,
        "mirrorHash": mirror_hash,
        "passageHash": passage_hash,
        "sourceHash": source_hash,
        "startLine": start_line,
        "uri": uri,
    }
    return sha256_hex(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))


class TokenCounter(Protocol):
    estimator: str
    fingerprint: str

    def count(self, text: str) -> int: ...


class WordPieceCounter:
    estimator = "active_tokenizer"

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        raw = resources.files("gno.embed").joinpath("models/minilm-tokenizer.json").read_bytes()
        self.fingerprint = "minilm-wordpiece:" + hashlib.sha256(raw).hexdigest()[:16]
        self._tok = Tokenizer.from_str(raw.decode("utf-8"))
        self._tok.no_truncation()
        self._tok.no_padding()
        self._counts: dict[str, int] = {}
        # the batch form without character offsets (tokenizers >= 0.21): the same ids, ~40% sooner
        self._encode = getattr(self._tok, "encode_batch_fast", self._tok.encode_batch)

    def count(self, text: str) -> int:
        """Word pieces of `text`, memoised: a capsule's meters count the same evidence texts again."""
        n = self._counts.get(text)
        if n is None:
            if len(self._counts) >= 4096:
                self._counts.clear()
            n = self._counts[text] = len(self._encode([text], add_special_tokens=False)[0].ids)
        return n


class ByteCounter:
    estimator = "unicode_conservative"
    fingerprint = "utf8-bytes"

    def count(self, text: str) -> int:
        return len(text.encode("utf-8"))


@lru_cache(maxsize=1)
def token_counter() -> TokenCounter:
    try:
        return WordPieceCounter()
    except Exception:  # noqa: BLE001 - tokenizers missing or vocabulary unreadable
        return ByteCounter()
