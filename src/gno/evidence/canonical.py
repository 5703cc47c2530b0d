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
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol


def norm_text(s: str) -> str:
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    return s if s.isascii() else unicodedata.normalize("NFC", s)  # ASCII is NFC already


def _norm(obj: Any) -> Any:
    if isinstance(obj, str):
        return norm_text(obj)
    if isinstance(obj, dict):
        return {k: v if v is None or isinstance(v, bool | int | float) else _norm(v) for k, v in obj.items()}
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


#: what an evidence id hashes: the evidence item's fields of these names, in this (sorted) order
EVIDENCE_ID_FIELDS = ("docid", "endLine", "mirrorHash", "passageHash", "sourceHash", "startLine", "uri")


def evidence_id(item: Mapping[str, Any]) -> str:
    """sha256 of the compact JSON of an evidence item's identifying fields, as the reference defines it."""
    payload = {k: item[k] for k in EVIDENCE_ID_FIELDS}
    return sha256_hex(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))


class TokenCounter(Protocol):
    estimator: str
    fingerprint: str

    def count(self, text: str) -> int: ...


class WordPieceCounter:
    """Word pieces of a text, counted through the MiniLM tokenizer and memoised by segment.

    Why by segment: the capsule counts its canonical JSON again and again (each selection trial, each
    round of the used-tokens fixed point, the whole text once more), and most of it is the same
    strings every time (keys, hashes, evidence texts), while tokenizing it took a third of a warm
    `ask`. The shipped tokenizer normalises character by character and splits every punctuation
    character off as a word of its own (BERT's normaliser and pre-tokeniser), and word pieces are
    counted per word, so a text's count is the sum of the counts of its pieces between double quotes
    plus one per quote: each piece is counted once per process. A tokenizer that does not split so
    (`_SPLITS`) is asked for the whole text, as before.
    """

    estimator = "active_tokenizer"
    #: the normaliser and pre-tokeniser under which the count of a text adds up over its quote-split pieces
    _SPLITS = ({"type": "BertNormalizer"}, {"type": "BertPreTokenizer"}, {"type": "WordPiece"})
    _MEMO = 1 << 16

    def __init__(self) -> None:
        import json

        from tokenizers import Tokenizer

        raw = resources.files("gno.embed").joinpath("models/minilm-tokenizer.json").read_bytes()
        self.fingerprint = "minilm-wordpiece:" + hashlib.sha256(raw).hexdigest()[:16]
        self._tok = Tokenizer.from_str(raw.decode("utf-8"))
        self._tok.no_truncation()
        self._tok.no_padding()
        self._counts: dict[str, int] = {}
        # the batch form without character offsets (tokenizers >= 0.21): the same ids, ~40% sooner
        self._encode = getattr(self._tok, "encode_batch_fast", self._tok.encode_batch)
        spec = json.loads(raw)
        parts = (spec.get("normalizer") or {}, spec.get("pre_tokenizer") or {}, spec.get("model") or {})
        self._split = all(part.get("type") == want["type"] for part, want in zip(parts, self._SPLITS, strict=True))
        self._quote = self._encoded(['"'])[0] if self._split else 0
        model = spec.get("model") or {}
        self._digests = (
            DigestPieces(
                self._tok.get_vocab(),
                model.get("continuing_subword_prefix", "##"),
                model.get("max_input_chars_per_word", 100),
            )
            if self._split
            else None
        )

    def _encoded(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self._encode(texts, add_special_tokens=False)]

    def count(self, text: str) -> int:
        """Word pieces of `text` (no special tokens), the same number as one encoding of the whole text."""
        pieces = text.split('"') if self._split else [text]
        counts = self._counts
        todo = [p for p in dict.fromkeys(pieces) if p not in counts]
        if todo:
            if len(counts) + len(todo) > self._MEMO:
                counts.clear()
            if self._digests is not None:  # a digest is one word of hex digits: counted without the model
                digests = [p for p in todo if p and not p.strip(HEX_DIGITS)]
                counts.update((p, self._digests.count(p)) for p in digests)
                todo = [p for p in todo if p not in counts]
            counts.update(zip(todo, self._encoded(todo), strict=True))
        return sum(counts[p] for p in pieces) + self._quote * (len(pieces) - 1)


HEX_DIGITS = "0123456789abcdef"


class DigestPieces:
    """WordPiece's count of one word of lower-case hex digits (a sha256 digest), found by a greedy
    longest match through a trie of the vocabulary's hex pieces, as the model matches them.

    Why: the model tries every end position for each piece it cuts, about 110 us for a 64-digit
    digest, and a Capsule's canonical JSON holds a hundred digests (passage, source and mirror
    hashes, evidence ids) that are new to every Capsule: most of what counting its tokens cost.
    A test holds the count equal to the tokenizer's on random digits of every length."""

    _END = ""  # the key that marks a whole piece in the trie (a character is never empty)

    def __init__(self, vocab: Iterable[str], prefix: str, max_chars: int) -> None:
        self._first: dict[str, Any] = {}
        self._next: dict[str, Any] = {}
        for piece in vocab:
            trie, body = (self._next, piece[len(prefix) :]) if piece.startswith(prefix) else (self._first, piece)
            if body and not body.strip(HEX_DIGITS):
                node = trie
                for ch in body:
                    node = node.setdefault(ch, {})
                node[self._END] = True
        self._max = max_chars

    def count(self, word: str) -> int:
        if len(word) > self._max:
            return 1  # the unknown token, as for any word over the model's limit
        n, start, trie = 0, 0, self._first
        while start < len(word):
            node, end, i = trie, -1, start
            while i < len(word):
                step = node.get(word[i])
                if step is None:
                    break
                node, i = step, i + 1
                if self._END in node:
                    end = i
            if end < 0:
                return 1  # no piece starts here: the whole word is the unknown token
            n, start, trie = n + 1, end, self._next
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
