"""A deterministic hashing embedder for unit tests (no model, no randomness, no I/O).

Feature hashing: the lowercased word tokens (weight 1.0) and the character trigrams of each word,
padded with ``<`` and ``>`` (weight 0.5 each), are hashed with BLAKE2b into ``dim`` buckets with
a sign bit, summed and L2-normalised.  Texts sharing words or word fragments therefore get
similar vectors, which is enough to test ranking code; it is not a semantic model.

The output depends only on the text and ``dim``: same across processes, machines and runs
(Python's randomised ``hash()`` is not used).  Measured with ``bench/embed_throughput.py``:
~14,000 paragraphs/s (~440 chars) and ~2,200 long chunks/s (~2,200 chars); per-word features are
cached, so repeated vocabulary is cheap.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from .base import make_fingerprint

__all__ = ["FakeEmbedder"]

_WORD_RE = re.compile(r"\w+")
_ALGO = "blake2b-words+trigrams-v1"
_WORD_WEIGHT = 1.0
_TRIGRAM_WEIGHT = 0.5


@lru_cache(maxsize=1 << 16)
def _word_features(word: str, dim: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    feats = [(f"w:{word}", _WORD_WEIGHT)]
    padded = f"<{word}>"
    feats.extend((f"t:{padded[i : i + 3]}", _TRIGRAM_WEIGHT) for i in range(len(padded) - 2))
    idx = np.empty(len(feats), dtype=np.int64)
    val = np.empty(len(feats), dtype=np.float64)
    for k, (feat, weight) in enumerate(feats):
        h = int.from_bytes(hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest(), "little")
        idx[k] = h % dim
        val[k] = weight if (h >> 63) & 1 else -weight
    return idx, val


class FakeEmbedder:
    """Deterministic feature-hashing embedder; ``model_id`` is ``fake-<dim>``."""

    def __init__(self, dim: int = 64) -> None:
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        self.dim = dim
        self.model_id = f"fake-{dim}"
        self.fingerprint = make_fingerprint(self.model_id, dim, algo=_ALGO)

    def __repr__(self) -> str:
        return f"FakeEmbedder(dim={self.dim})"

    def _embed_one(self, text: str) -> npt.NDArray[np.float32]:
        words = _WORD_RE.findall(text.lower())
        if not words:
            return np.zeros(self.dim, dtype=np.float32)
        parts = [_word_features(w, self.dim) for w in words]
        idx = np.concatenate([p[0] for p in parts])
        val = np.concatenate([p[1] for p in parts])
        vec = np.bincount(idx, weights=val, minlength=self.dim)
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:  # every feature cancelled out (possible with tiny dims)
            return np.zeros(self.dim, dtype=np.float32)
        return (vec / norm).astype(np.float32)

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._embed_one(text)
        return out

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._embed_one(text)
