"""Offline embedders behind one interface.

>>> from gno.embed import load_embedder, EmbedderUnavailable
>>> emb = load_embedder("fake:32")
>>> emb.embed_documents(["hello world"]).shape
(1, 32)

Backends: MiniLM through onnxruntime (quality, default), all-mpnet-base-v2 (onnxruntime; optional,
stronger on chat-like text, 6-10x slower; extra ``[mpnet]``), wordllama (fast static), an
OpenAI-compatible ``/v1/embeddings`` server, and a deterministic fake for tests.  Nothing ever
downloads; what cannot load raises :class:`EmbedderUnavailable` with a ``reason``.

Importing this package is cheap (no numpy, onnxruntime, httpx or wordllama): the backend classes
are imported on first attribute access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Embedder, EmbedderUnavailable, make_fingerprint
from .registry import DEFAULT_ORDER, available_embedders, load_embedder

if TYPE_CHECKING:
    from .fake import FakeEmbedder
    from .minilm import MiniLMEmbedder
    from .mpnet import MpnetEmbedder
    from .remote import RemoteEmbedder
    from .static import WordLlamaEmbedder

__all__ = [
    "DEFAULT_ORDER",
    "Embedder",
    "EmbedderUnavailable",
    "FakeEmbedder",
    "MiniLMEmbedder",
    "MpnetEmbedder",
    "RemoteEmbedder",
    "WordLlamaEmbedder",
    "available_embedders",
    "load_embedder",
    "make_fingerprint",
]

_LAZY = {
    "FakeEmbedder": ".fake",
    "MiniLMEmbedder": ".minilm",
    "MpnetEmbedder": ".mpnet",
    "RemoteEmbedder": ".remote",
    "WordLlamaEmbedder": ".static",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
