"""WordLlama ``l2_supercat`` static embeddings (256-d; Matryoshka 64/128 also possible).

The weights (16 MB) and tokenizer ship inside the ``wordllama`` wheel.  wordllama 0.4.0.post1
looks for the tokenizer in ``wordllama/tokenizer/`` but the wheel ships ``wordllama/tokenizers/``
and then tries huggingface.co; the workaround is to pass the package directory as the cache dir:
``WordLlama.load(cache_dir=<package dir>, disable_download=True)``, so nothing is downloaded.

Third-party side effect neutralised here: ``import wordllama`` calls
``logging.basicConfig(level=logging.INFO)`` (it adds a handler to the root logger and changes its
level); the root logger's handlers and level are restored right after the import.  The import
emits no Python warning (checked with ``-W error``), so no warning filter is needed.

Encoding: the wordllama tokenizer without special tokens (as ``WordLlamaInference.embed``),
token vectors averaged (no padding: segment sums over the concatenated tokens), L2-normalised;
texts are capped at ``max_tokens`` (default 8,192) to bound memory.  Matches
``WordLlamaInference.embed(norm=True)`` to float precision.  Texts without any token get a zero row.

About 50x faster to embed than MiniLM and below it in quality: a first stage or a fallback, not
the default (figures: ``docs/benchmarks.md``, "Embedders").
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .base import EmbedderUnavailable, LoadsOnce, make_fingerprint, module_available

__all__ = ["WordLlamaEmbedder", "CONFIG", "TOKENIZER_FILE"]

CONFIG = "l2_supercat"
TOKENIZER_FILE = "l2_supercat_tokenizer_config.json"
_DIMS = (64, 128, 256)
_NAME = "wordllama"
_TOKEN_BUDGET = 1 << 15  # tokens gathered per step: 32k x 256 x 4 B = 32 MB


def _package_dir() -> Path:
    if "wordllama" in sys.modules:
        module = sys.modules["wordllama"]
        if module is None:
            raise EmbedderUnavailable("wordllama is not installed", embedder=_NAME, extra="semantic")
        origin = getattr(module, "__file__", None)
    else:
        try:
            spec = importlib.util.find_spec("wordllama")
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            raise EmbedderUnavailable("wordllama is not installed", embedder=_NAME, extra="semantic")
        origin = spec.origin
    if not origin:
        raise EmbedderUnavailable("wordllama is installed without files", embedder=_NAME)
    return Path(origin).resolve().parent


def model_files() -> list[Path]:
    """The weights and tokenizer files wordllama runs from (`gno doctor` checks them);
    EmbedderUnavailable when the package is not installed."""
    pkg = _package_dir()
    return [pkg / "weights" / f"{CONFIG}_256.safetensors", pkg / "tokenizers" / TOKENIZER_FILE]


def _import_wordllama() -> Any:
    """``import wordllama`` without letting it reconfigure the root logger."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    return wordllama


class WordLlamaEmbedder(LoadsOnce):
    """WordLlama static embedder; ``model_id`` ``wordllama-l2-<dim>`` (default 256)."""

    def __init__(self, *, dim: int = 256, max_tokens: int = 8192) -> None:
        if dim not in _DIMS:
            raise ValueError(f"dim must be one of {_DIMS}, got {dim}")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
        if not module_available("tokenizers"):
            raise EmbedderUnavailable("tokenizers is not installed", embedder=_NAME, extra="semantic")
        weights, tokenizer = model_files()
        pkg = weights.parent.parent
        for path in (weights, tokenizer):
            if not path.is_file():
                raise EmbedderUnavailable(f"{path.name} is missing from the wordllama package at {pkg}", embedder=_NAME)
        self._pkg_dir = pkg
        self.dim = dim
        self._max_tokens = max_tokens
        self.model_id = f"wordllama-l2-{dim}"
        self.fingerprint = make_fingerprint(
            self.model_id,
            dim,
            config=CONFIG,
            weights_bytes=weights.stat().st_size,
            max_tokens=max_tokens,
            pooling="mean",
            normalize=True,
        )
        self._lock = threading.Lock()
        self._matrix: npt.NDArray[np.float32] | None = None
        self._tokenizer: Any = None

    def __repr__(self) -> str:
        return f"WordLlamaEmbedder(dim={self.dim})"

    @property
    def loaded(self) -> bool:
        return self._matrix is not None

    def _load(self) -> None:
        """Load the weights and tokenizer."""
        try:
            wordllama = _import_wordllama()
        except ImportError as exc:
            raise EmbedderUnavailable(f"wordllama cannot be imported ({exc})", embedder=_NAME) from exc
        try:
            model = wordllama.WordLlama.load(
                config=CONFIG,
                cache_dir=self._pkg_dir,
                dim=256,
                trunc_dim=None if self.dim == 256 else self.dim,
                disable_download=True,
            )
        except Exception as exc:  # FileNotFoundError, safetensors errors...
            raise EmbedderUnavailable(
                f"cannot load the wordllama model offline: {type(exc).__name__}: {exc}",
                embedder=_NAME,
            ) from exc
        tokenizer = model.tokenizer
        tokenizer.no_padding()
        tokenizer.no_truncation()
        matrix = np.ascontiguousarray(model.embedding, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] != self.dim:
            raise EmbedderUnavailable(f"unexpected wordllama weight shape {matrix.shape}", embedder=_NAME)
        self._tokenizer = tokenizer
        self._matrix = matrix

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        self._ensure_loaded()
        matrix = self._matrix
        assert matrix is not None
        vocab = matrix.shape[0]
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        cap = self._max_tokens
        id_lists: list[list[int]] = [enc.ids[:cap] for enc in encodings]
        start = 0
        while start < len(id_lists):
            # Group consecutive texts up to the token budget (at least one text per group).
            stop, tokens = start, 0
            while stop < len(id_lists) and (stop == start or tokens + len(id_lists[stop]) <= _TOKEN_BUDGET):
                tokens += len(id_lists[stop])
                stop += 1
            group = id_lists[start:stop]
            lengths = np.fromiter((len(ids) for ids in group), dtype=np.int64, count=len(group))
            if tokens:
                flat = np.fromiter(itertools.chain.from_iterable(group), dtype=np.int64, count=tokens)
                np.clip(flat, 0, vocab - 1, out=flat)
                offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
                nonempty = lengths > 0
                # Empty texts have zero-length segments; skipping their offsets keeps every
                # other segment exact (offsets of non-empty texts are strictly increasing).
                sums = np.add.reduceat(matrix[flat], offsets[nonempty], axis=0)
                norms = np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
                out[start:stop][nonempty] = sums / norms
            start = stop
        return out

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        row: npt.NDArray[np.float32] = self.embed_documents([text])[0]
        return row
