"""Phrase-rule machinery shared by the poisoning rule families.

Why needles: a rule's regex only runs when every group of its cheap substring pre-checks is present, which
keeps the whole detector at microseconds per record. Why mentions: a short quotation inside a note that
discusses attacks is a mention, not an instruction, for the rules that allow it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

Needles = tuple[tuple[str, ...], ...]
# Shared vocabulary: "you are" / "you're", as role and directive rules both address the reader.
YOU_ARE = r"you(?:'re|\s+are)"


@dataclass(frozen=True)
class Phrase:
    """A pattern plus substrings it cannot match without: every group needs one present needle."""

    pattern: re.Pattern[str]
    needles: Needles

    def possible(self, text: str) -> bool:
        return all(any(needle in text for needle in group) for group in self.needles)


def phrase(pattern: str, *needles: tuple[str, ...]) -> Phrase:
    return Phrase(re.compile(pattern, re.MULTILINE), needles)


def alts(spec: str) -> tuple[str, ...]:
    """``"a|b c|d"`` -> ``("a", "b c", "d")``: compact needle lists."""
    return tuple(spec.split("|"))


# A quoted phrase inside a note *about* injections is a mention, not an instruction.
META_CUE_RE = re.compile(
    r"prompt[\s-]+injection|injection|jailbreak|attack|attacker|malicious|adversarial|phrases?\s+like|such\s+as|e\.g\."
    r"|for\s+example|payload|red[\s-]?team|classic|well-known|common\s+(?:trick|pattern)"
)
_QUOTES = "\"'`"
_MAX_MENTION_CHARS = 90


def quoted_mention(text: str, start: int, end: int) -> bool:
    """True if [start, end) sits inside a short quotation on its line and the text discusses attacks."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    for quote in _QUOTES:
        opening = text.rfind(quote, line_start, start)
        closing = text.find(quote, end, line_end)
        if opening >= 0 and closing >= 0 and closing - opening <= _MAX_MENTION_CHARS:
            return bool(META_CUE_RE.search(text))
    return False


def phrase_matches(rule: Phrase, text: str, allow_mentions: bool) -> Iterator[re.Match[str]]:
    """The rule's matches in ``text`` (none unless its needles are present), mentions skipped if allowed."""
    if not rule.possible(text):
        return
    for match in rule.pattern.finditer(text):
        if allow_mentions and quoted_mention(text, match.start(), match.end()):
            continue
        yield match


def phrase_hits(phrases: tuple[Phrase, ...], text: str, allow_mentions: bool) -> Iterator[str]:
    for rule in phrases:
        for match in phrase_matches(rule, text, allow_mentions):
            yield match.group().strip()
