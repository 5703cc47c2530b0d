"""`starts_any` (one substring search over NUL-joined tokens) answers exactly what a loop of
`str.startswith` answers, for the snippet's line scores and a passage's covered facets."""

from __future__ import annotations

import random

from gno.evidence.passages import covered
from gno.retrieve.snippets import starts_any


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
