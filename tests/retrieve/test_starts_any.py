"""`starts_any` (one substring search over NUL-joined tokens) answers exactly what a loop of
`str.startswith` answers, for the snippet's line scores and a passage's covered facets; the word
split and the covered facets answer what their one-character-at-a-time definitions answer."""

from __future__ import annotations

import random
import unicodedata

from gno.evidence.passages import covered, facets_of, stem
from gno.retrieve.grammar import word_tokens
from gno.retrieve.snippets import fold, starts_any


def test_starts_any_is_any_startswith_on_random_tokens() -> None:
    rng = random.Random(5)
    alphabet = "abcé1 "  # tokens never hold a NUL (word_tokens keeps letters and digits); a prefix may
    for _ in range(3000):
        tokens = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 6))]
        prefix = "".join(rng.choice(alphabet + "\0") for _ in range(rng.randint(0, 3)))
        assert starts_any(tokens, prefix) == any(t.startswith(prefix) for t in tokens), (tokens, prefix)


def test_covered_facets_by_stem_or_prefix() -> None:
    assert covered("Deploys happen on Mondays; the deployment script", ["deploy", "monday", "script", "cat"]) == [
        "deploy",
        "monday",
        "script",
    ]
    assert covered("", ["x"]) == []


def _reference_tokens(text: str) -> list[str]:
    """unicode61's split one character at a time: runs of L*, N* and Co, each character lowercased."""
    out, cur = [], []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat[0] in "LN" or cat == "Co":
            cur.append(ch.lower())
        elif cur:
            out.append("".join(cur))
            cur = []
    return [*out, "".join(cur)] if cur else out


def test_word_tokens_split_every_character_as_one_at_a_time() -> None:
    """The regex split of non-ASCII text (a class of the text's own word characters) gives the
    per-character split: over every code point, and on random mixes (final sigma, dotted I, marks)."""
    everything = "".join(chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000)
    for k in range(0, len(everything), 4096):
        chunk = everything[k : k + 4096]
        assert word_tokens(chunk) == _reference_tokens(chunk), k
        spaced = " ".join(chunk[:1024])
        assert word_tokens(spaced) == _reference_tokens(spaced), k
    rng = random.Random(7)
    pool = [*"abcXYZ09 -_]^\\[", *"ΣσςİıéÉ\u0301\u200b’“”¶—漢字한\ue000", " "]
    for _ in range(5000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 24)))
        assert word_tokens(text) == _reference_tokens(text), text


def _reference_covered(text: str, facets: list[str]) -> list[str]:
    raw = set(word_tokens(fold(text)))
    stems = {stem(w) for w in raw}
    return [f for f in facets if f in stems or any(w.startswith(f) for w in raw)]


def test_covered_is_stem_or_prefix_of_some_word_on_random_passages() -> None:
    """`covered` screens ASCII text by substring and stems only irregular forms; the facets it
    returns are those a word of the text has as its stem or starts with."""
    words = (
        "bought buy buying wrote written configuration configure compared comparison theories theory companies "
        "deploys deployment running ran interviews design the of jobs done doing went good left sought caught "
        "Zettelkästen zettelkasten café ΣΟΦΙΑΣ σοφιας İstanbul naïve straße Ålesund 東京 learnt dreamt led lead"
    ).split()
    rng = random.Random(11)
    for _ in range(20000):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 10)))
        text = "".join(ch.upper() if rng.random() < 0.1 else ch for ch in text)
        facets = facets_of(" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))))
        assert covered(text, facets) == _reference_covered(text, facets), (text, facets)


def test_fold_drops_exactly_the_combining_characters_of_the_decomposition() -> None:
    everything = "".join(chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000)
    for k in range(0, len(everything), 4096):
        chunk = everything[k : k + 4096]
        want = "".join(c for c in unicodedata.normalize("NFKD", chunk) if not unicodedata.combining(c))
        assert fold(chunk) == want, k
    assert fold("Zettelkästen café ﬁ") == "Zettelkasten cafe fi"
