"""The embedder's own word pieces, for cutting chunks that fit its window.

MiniLM (and mpnet) read at most a fixed number of word pieces; a chunk cut by an estimate of
characters per token either wastes the window or, far more often, runs past it, and the tail is
never embedded. The chunker therefore counts with the same WordPiece vocabulary the embedders
use (MiniLM's ``tokenizer.json``, shipped with gno). Loading it costs ~50 ms once per process;
without the ``tokenizers`` package the chunker falls back to its character estimate.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from .base import module_available

#: MiniLM reads 256 word pieces, two of them [CLS] and [SEP]; the rest leaves room for the title
#: line the embedder puts before a chunk that lacks it.
WINDOW_TOKENS = 256
DEFAULT_CHUNK_TOKENS = 240
#: the same file `gno.embed.minilm` loads (not imported from there: that module pulls in numpy)
TOKENIZER_JSON = Path(__file__).resolve().parent / "models" / "minilm-tokenizer.json"


@functools.lru_cache(maxsize=1)
def wordpiece() -> Any | None:
    """The MiniLM WordPiece tokenizer without truncation or padding, or None when unavailable."""
    if not module_available("tokenizers"):
        return None
    from tokenizers import Tokenizer

    if not TOKENIZER_JSON.is_file():
        return None
    tok = Tokenizer.from_file(str(TOKENIZER_JSON))
    tok.no_truncation()
    tok.no_padding()
    return tok


def token_spans(text: str) -> list[tuple[int, int]] | None:
    """(start, end) character offsets of every word piece of ``text``; None without a tokenizer."""
    tok = wordpiece()
    if tok is None:
        return None
    spans: list[tuple[int, int]] = tok.encode(text, add_special_tokens=False).offsets
    return spans
