"""The embedder interface shared by every embedding backend.

An :class:`Embedder` turns text into float32 vectors whose rows have unit L2 norm, so cosine
similarity is a plain dot product.  Backends never download anything: when a model, a runtime
or a server is missing they raise :class:`EmbedderUnavailable` with a human-readable ``reason``,
and callers fall back to lexical search and tell the user why.

This module deliberately does not import numpy at run time (only for type checking), so that
``import gno.embed`` stays cheap.
"""

from __future__ import annotations

import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, Self, TypeAlias, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector: TypeAlias = npt.NDArray[np.float32]
    Matrix: TypeAlias = npt.NDArray[np.float32]

__all__ = [
    "Embedder",
    "EmbedderUnavailable",
    "LoadsOnce",
    "make_fingerprint",
    "l2_normalize_rows",
    "module_available",
]


class EmbedderUnavailable(Exception):
    """An embedder cannot be used here; callers degrade to lexical mode and show ``reason``.

    ``reason`` is a short sentence meant for people, e.g. ``"onnxruntime is not installed"``.
    ``embedder`` names the backend that failed (``"minilm"``, ``"wordllama"``, ``"remote"``...)
    when known; ``extra`` is the pip extra that would provide what is missing (``"semantic"``)
    when a package, rather than a file or a server, is the problem.
    """

    def __init__(self, reason: str, *, embedder: str | None = None, extra: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.embedder = embedder
        self.extra = extra

    def __str__(self) -> str:
        if self.embedder:
            return f"{self.embedder}: {self.reason}"
        return self.reason


@runtime_checkable
class Embedder(Protocol):
    """What every embedding backend provides.

    * ``model_id``: stable name of the model, e.g. ``minilm-l6-v2-int8``, ``wordllama-l2-256``,
      ``openai:<url>#<model>``, ``fake-64``.
    * ``dim``: vector dimension.
    * ``fingerprint``: changes whenever the vectors would change (model, weights, dimension,
      tokenisation/pooling settings).  Store it next to the vectors and re-embed when it differs.
    * ``embed_documents(texts)``: float32 array of shape ``[len(texts), dim]``, rows L2-normalised,
      in the order of ``texts``.  A text that yields no token at all (empty or whitespace-only for
      the static and fake backends) gets an all-zero row: it is similar to nothing.
    * ``embed_query(text)``: float32 array of shape ``[dim]``, L2-normalised.

    The attributes are declared as read-only properties so that both plain attributes and
    properties satisfy the protocol.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def fingerprint(self) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> Matrix: ...

    def embed_query(self, text: str) -> Vector: ...


class LoadsOnce(ABC):
    """A backend whose model is built on first embed (or by :meth:`load`), once: the check is made
    again under ``_lock``, so two threads embedding at once build it once and neither sees half of it.

    A subclass sets ``_lock`` in its constructor, says when it is ``loaded`` and builds in ``_load``.
    """

    _lock: threading.Lock

    @property
    @abstractmethod
    def loaded(self) -> bool:
        """Whether the model is built."""

    @abstractmethod
    def _load(self) -> None:
        """Build the model (called under the lock, while it is not loaded)."""

    def load(self) -> Self:
        """Build the model now (otherwise done on first embed)."""
        self._ensure_loaded()
        return self

    def _ensure_loaded(self) -> None:
        if self.loaded:
            return
        with self._lock:
            if not self.loaded:
                self._load()


def make_fingerprint(model_id: str, dim: int, **params: object) -> str:
    """A stable fingerprint ``"<model_id>:<dim>:<12 hex>"`` over the model id, dim and params.

    ``params`` holds everything else that changes the vectors (weights hash, max length,
    pooling...).  Values must be JSON-serialisable.
    """
    import hashlib
    import json

    payload = json.dumps({"model_id": model_id, "dim": dim, **params}, sort_keys=True, default=str)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]
    return f"{model_id}:{dim}:{digest}"


def l2_normalize_rows(matrix: Matrix) -> Matrix:
    """Return ``matrix`` (2-D) as float32 with unit-norm rows; all-zero rows stay zero."""
    import numpy as np

    out = np.ascontiguousarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.maximum(norms, np.float32(1e-12), out=norms)
    result: Matrix = (out / norms).astype(np.float32, copy=False)
    return result


def module_available(name: str) -> bool:
    """Whether ``import name`` can be attempted, without importing it (cheap ``find_spec``).

    A module set to ``None`` in ``sys.modules`` (how tests simulate a missing package) counts as
    unavailable.
    """
    if name in sys.modules:
        return sys.modules[name] is not None
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
