"""gno's own embedders, registered through the ``gno.embedders`` entry point like any plugin.

Specs (case-insensitive; model ids are accepted too, so a stored ``model_id`` resolves back):

* ``"minilm"`` / ``"minilm-l6-v2-int8"``: :class:`~gno.embed.minilm.MiniLMEmbedder`;
* ``"mpnet"`` / ``"all-mpnet-base-v2"``: :class:`~gno.embed.mpnet.MpnetEmbedder` (extra ``[mpnet]``);
* ``"wordllama"`` / ``"wordllama-l2-256"`` / ``"wordllama:64"`` (64, 128, 256):
  :class:`~gno.embed.static.WordLlamaEmbedder`;
* ``"fake"`` / ``"fake:<dim>"`` / ``"fake-<dim>"``: :class:`~gno.embed.fake.FakeEmbedder`;
* ``"http(s)://host:port/v1#model"`` (also ``openai:<that>``, i.e. a remote ``model_id``):
  :class:`~gno.embed.remote.RemoteEmbedder`; the API key, if any, comes from ``GNO_EMBED_API_KEY``.

Each backend module is imported only when its spec is asked for, so listing the plugins costs no
numpy or onnxruntime import.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

from .base import Embedder, EmbedderUnavailable
from .plugins import EmbedderOptions, EmbedderPlugin

_MINILM_NAMES = {"minilm", "minilm-l6-v2", "minilm-l6-v2-int8", "all-minilm-l6-v2"}
_MPNET_NAMES = {"mpnet", "mpnet-base-v2", "all-mpnet-base-v2"}
_WORDLLAMA_RE = re.compile(r"^(?:wordllama|static)(?:[:-](?:l2-)?(\d+))?$")
_FAKE_RE = re.compile(r"^fake(?:[:-](\d+))?$")


@contextmanager
def _backend_imports(name: str) -> Iterator[None]:
    """A backend whose dependency (numpy first of all) is not installed needs the semantic extra."""
    try:
        yield
    except ImportError as exc:
        missing = (exc.name or "a dependency").split(".")[0]
        raise EmbedderUnavailable(f"{missing} is not installed", embedder=name, extra="semantic") from exc


def _minilm(spec: str, opts: EmbedderOptions) -> Embedder | None:
    if spec.lower() not in _MINILM_NAMES:
        return None
    with _backend_imports("minilm"):
        from .minilm import MiniLMEmbedder

    minilm = MiniLMEmbedder(threads=opts.threads, batch_size=opts.batch_size or 32)
    return minilm.load() if opts.warm else minilm


def _mpnet(spec: str, opts: EmbedderOptions) -> Embedder | None:
    if spec.lower() not in _MPNET_NAMES:
        return None
    with _backend_imports("mpnet"):
        from .mpnet import MpnetEmbedder

    mpnet = MpnetEmbedder(threads=opts.threads, batch_size=opts.batch_size or 8)
    return mpnet.load() if opts.warm else mpnet


def _wordllama(spec: str, opts: EmbedderOptions) -> Embedder | None:
    match = _WORDLLAMA_RE.match(spec.lower())
    if not match:
        return None
    with _backend_imports("wordllama"):
        from .static import WordLlamaEmbedder

    try:
        static = WordLlamaEmbedder(dim=int(match.group(1) or 256))
    except ValueError as exc:
        raise EmbedderUnavailable(str(exc), embedder="wordllama") from exc
    return static.load() if opts.warm else static


def _fake(spec: str, opts: EmbedderOptions) -> Embedder | None:
    match = _FAKE_RE.match(spec.lower())
    if not match:
        return None
    with _backend_imports("fake"):
        from .fake import FakeEmbedder

    try:
        return FakeEmbedder(dim=int(match.group(1) or 64))
    except ValueError as exc:
        raise EmbedderUnavailable(str(exc), embedder="fake") from exc


def _remote(spec: str, opts: EmbedderOptions) -> Embedder | None:
    raw = spec[len("openai:") :] if spec.lower().startswith("openai:") else spec
    if not raw.lower().startswith(("http://", "https://")):
        return None
    with _backend_imports("remote"):
        from .remote import RemoteEmbedder

    try:
        remote = RemoteEmbedder(
            raw,
            timeout=opts.timeout or 30.0,
            batch_size=opts.batch_size or 64,
            api_key=os.environ.get("GNO_EMBED_API_KEY") or None,
        )
    except ValueError as exc:
        raise EmbedderUnavailable(str(exc), embedder="remote") from exc
    try:
        remote.probe()
    except EmbedderUnavailable:
        remote.close()
        raise
    return remote


#: what the entry point registers, in the order `available_embedders` lists them
BUILTIN = (
    EmbedderPlugin("minilm", "minilm", "quality: documents, queries and re-scoring (384-d)", _minilm),
    EmbedderPlugin(
        "mpnet", "mpnet", "optional stronger quality model, 6-10x slower than MiniLM (768-d; extra [mpnet])", _mpnet
    ),
    EmbedderPlugin("wordllama", "wordllama", "fast static first stage for large corpora (256-d)", _wordllama),
    EmbedderPlugin("fake", "fake", "deterministic hashing embedder for tests (no semantics)", _fake),
    EmbedderPlugin("remote", "http://host:port/v1#model", "OpenAI-compatible /v1/embeddings server", _remote, False),
)
