"""The Capsule budget: bytes and tokens of the canonical payload, measured fast and exactly.

The budget covers the *whole* canonical JSON of a Capsule, including the `usedBytes`/`usedTokens`
that report it, so usage is a fixed point; selection tries each addition against the same measure.
"""

from __future__ import annotations

from typing import Any

from gno.evidence.canonical import canonical_json


class Meter:
    """Bytes and tokens of a payload's canonical JSON, each list item counted once and cached.

    Why: selection and sealing measure the whole payload dozens of times per Capsule, and tokenizing
    50 kB of JSON takes about 10 ms. Canonical JSON puts punctuation (`[`, `, `, `]`, `{`, `}`) at every
    item boundary and the WordPiece pre-tokenizer splits there (bytes add up anyway), so the whole
    counts as its skeleton (evidence and omission lists emptied) plus every item plus each separator.
    `_finish` checks the sealed result against one count of the whole text and falls back to whole-text
    counting should a tokenizer ever disagree. An item measured again as the same object is not
    serialised again: items are never changed once measured (selection and sealing build new ones).
    """

    def __init__(self, counter: Any, whole: bool = False) -> None:
        self.counter = counter
        self.whole = whole
        self._cache: dict[str, tuple[int, int]] = {}
        self._texts: dict[int, tuple[Any, str]] = {}  # id(item) → (the item, kept alive; its canonical JSON)
        self._sep = (2, counter.count(", "))

    def _piece(self, obj: Any) -> tuple[int, int]:
        seen = self._texts.get(id(obj))
        if seen is not None and seen[0] is obj:
            text = seen[1]
        else:
            text = canonical_json(obj)
            self._texts[id(obj)] = (obj, text)
        hit = self._cache.get(text)
        if hit is None:
            hit = self._cache[text] = (len(text.encode("utf-8")), self.counter.count(text))
        return hit

    def measure(self, payload: dict[str, Any]) -> tuple[int, int]:
        if self.whole:
            text = canonical_json(payload)
            return len(text.encode("utf-8")), self.counter.count(text)
        skeleton = dict(payload)
        lists: list[list[Any]] = []
        if isinstance(payload.get("evidence"), list):
            lists.append(payload["evidence"])
            skeleton["evidence"] = []
        if isinstance(payload.get("omissions"), dict) and isinstance(payload["omissions"].get("items"), list):
            lists.append(payload["omissions"]["items"])
            skeleton["omissions"] = {**payload["omissions"], "items": []}
        text = canonical_json(skeleton)
        b, t = len(text.encode("utf-8")), self.counter.count(text)
        for items in lists:
            for item in items:
                pb, pt = self._piece(item)
                b, t = b + pb, t + pt
            if len(items) > 1:
                b, t = b + self._sep[0] * (len(items) - 1), t + self._sep[1] * (len(items) - 1)
        return b, t


def measure(payload: dict[str, Any], meter: Meter, rounds: int = 32) -> tuple[int, int]:
    """Fixed point of (usedBytes, usedTokens) on the canonical bytes that contain them."""
    b, t = 0, 0
    seen: list[tuple[int, int]] = []
    for _ in range(rounds):
        payload["budget"]["usedBytes"], payload["budget"]["usedTokens"] = b, t
        nb, nt = meter.measure(payload)
        if (nb, nt) == (b, t):
            return b, t
        if (nb, nt) in seen:  # digits tokenise differently (1657 ↔ 1658): settle on the upper bound
            b, t = max(x[0] for x in seen[seen.index((nb, nt)) :]), max(x[1] for x in seen[seen.index((nb, nt)) :])
            break
        seen.append((nb, nt))
        b, t = nb, nt
    payload["budget"]["usedBytes"], payload["budget"]["usedTokens"] = b, t
    mb, mt = meter.measure(payload)
    return max(b, mb), max(t, mt)


def fits(
    base: dict[str, Any], items: list[dict[str, Any]], budget_bytes: int, budget_tokens: int, meter: Meter
) -> bool:
    trial = {**base, "evidence": items, "budget": dict(base["budget"])}
    # reserve room for coverage and omission bookkeeping written after selection
    used_bytes, used_tokens = meter.measure(trial)
    reserve = 600
    return used_bytes + reserve <= budget_bytes and used_tokens + reserve // 4 <= budget_tokens
