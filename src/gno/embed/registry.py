"""Resolve an embedder spec (``models.embed``) to an :class:`~gno.embed.base.Embedder`.

Specs (case-insensitive; model ids are accepted too, so a stored ``model_id`` resolves back):

* ``None`` / ``"default"``: MiniLM, else wordllama (the fallback is logged);
* ``"minilm"`` / ``"minilm-l6-v2-int8"``: :class:`~gno.embed.minilm.MiniLMEmbedder`;
* ``"mpnet"`` / ``"all-mpnet-base-v2"``: :class:`~gno.embed.mpnet.MpnetEmbedder` (extra ``[mpnet]``);
* ``"wordllama"`` / ``"wordllama-l2-256"`` / ``"wordllama:64"`` (64, 128, 256):
  :class:`~gno.embed.static.WordLlamaEmbedder`;
* ``"fake"`` / ``"fake:<dim>"`` / ``"fake-<dim>"``: :class:`~gno.embed.fake.FakeEmbedder`;
* ``"http(s)://host:port/v1#model"`` (also ``openai:<that>``, i.e. a remote ``model_id``):
  :class:`~gno.embed.remote.RemoteEmbedder`; the API key, if any, comes from ``GNO_EMBED_API_KEY``.

Nothing ever downloads.  Whatever cannot load raises :class:`EmbedderUnavailable` with a reason
(unknown specs included), and callers switch to lexical mode and show that reason.  Local models
are checked cheaply (packages and files present); the model itself is built on first use unless
``warm=True``.  A remote spec is probed once (one tiny request) to learn its dimension.

Why MiniLM is the default: it is the only local embedder measured to rank better than BM25 on
the benchmark corpora, so it adds a different signal to hybrid search, and its query cost (a few
ms) is negligible; its cost is indexing, done incrementally. wordllama is 50-90x faster to index
and is the first stage for large corpora and the logged fallback of ``"default"`` when MiniLM
cannot load (the fingerprint changes, so stored vectors show as stale). Figures:
``docs/benchmarks.md``, "Embedders".
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .base import Embedder, EmbedderUnavailable

__all__ = ["load_embedder", "available_embedders", "keep_warm", "DEFAULT_ORDER", "SPEC_HELP"]

#: embedders a resident owner's template loaded once for every command it forks (by spec)
_WARM: dict[str, Embedder] = {}

#: What ``None``/``"default"`` tries, in order.
DEFAULT_ORDER: tuple[str, ...] = ("minilm", "wordllama")
SPEC_HELP = "default, minilm, mpnet, wordllama[:64|128|256], fake[:dim], or http(s)://host:port/v1#model"

_MINILM_NAMES = {"minilm", "minilm-l6-v2", "minilm-l6-v2-int8", "all-minilm-l6-v2"}
_MPNET_NAMES = {"mpnet", "mpnet-base-v2", "all-mpnet-base-v2"}
_WORDLLAMA_RE = re.compile(r"^(?:wordllama|static)(?:[:-](?:l2-)?(\d+))?$")
_FAKE_RE = re.compile(r"^fake(?:[:-](\d+))?$")


def load_embedder(
    spec: str | None = None,
    *,
    threads: int | None = None,
    batch_size: int | None = None,
    timeout: float | None = None,
    warm: bool = False,
) -> Embedder:
    """Return the embedder named by ``spec``; raise :class:`EmbedderUnavailable` if it cannot load.

    ``threads``/``batch_size`` apply to MiniLM (``batch_size`` also to remote), ``timeout`` to
    remote; ``warm=True`` builds local models now instead of on first use (so a broken runtime
    is reported here rather than at the first embed).
    """
    raw = (spec or "default").strip()
    name = raw.lower()
    if name in _WARM and threads is None and batch_size is None and timeout is None:
        return _WARM[name]
    if name in ("", "default", "auto"):
        return _load_default(threads=threads, batch_size=batch_size, warm=warm)
    if name in _MINILM_NAMES:
        with _backend_imports("minilm"):
            from .minilm import MiniLMEmbedder

        minilm = MiniLMEmbedder(threads=threads, batch_size=batch_size or 32)
        return minilm.load() if warm else minilm
    if name in _MPNET_NAMES:
        with _backend_imports("mpnet"):
            from .mpnet import MpnetEmbedder

        mpnet = MpnetEmbedder(threads=threads, batch_size=batch_size or 8)
        return mpnet.load() if warm else mpnet
    match = _WORDLLAMA_RE.match(name)
    if match:
        with _backend_imports("wordllama"):
            from .static import WordLlamaEmbedder

        try:
            static = WordLlamaEmbedder(dim=int(match.group(1) or 256))
        except ValueError as exc:
            raise EmbedderUnavailable(str(exc), embedder="wordllama") from exc
        return static.load() if warm else static
    match = _FAKE_RE.match(name)
    if match:
        with _backend_imports("fake"):
            from .fake import FakeEmbedder

        try:
            return FakeEmbedder(dim=int(match.group(1) or 64))
        except ValueError as exc:
            raise EmbedderUnavailable(str(exc), embedder="fake") from exc
    if name.startswith("openai:"):
        raw = raw[len("openai:") :]
        name = raw.lower()
    if name.startswith(("http://", "https://")):
        with _backend_imports("remote"):
            from .remote import RemoteEmbedder

        try:
            remote = RemoteEmbedder(
                raw,
                timeout=timeout or 30.0,
                batch_size=batch_size or 64,
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
    raise EmbedderUnavailable(f"unknown embedder {spec!r}; expected {SPEC_HELP}", embedder=spec)


def keep_warm(spec: str | None) -> Embedder:
    """Load `spec` now and hand this instance to every later `load_embedder(spec)` in this process.

    For a resident owner's template: the processes it forks share the loaded model instead of each
    loading it again (about a second for MiniLM), with the same threads, hence the same vectors.
    onnxruntime's dispatching thread takes back pool work no thread picked up, so a forked copy
    (whose pool threads are gone) still runs. Remote models are not kept (a probe per process)."""
    name = (spec or "default").strip().lower()
    if name.startswith(("http://", "https://", "openai:")):
        raise EmbedderUnavailable("remote embedders are not kept warm", embedder=spec)
    embedder = load_embedder(spec, warm=True)
    embedder.embed_query("warm")
    _WARM[name] = embedder
    return embedder


@contextmanager
def _backend_imports(name: str) -> Iterator[None]:
    """A backend whose dependency (numpy first of all) is not installed needs the semantic extra."""
    try:
        yield
    except ImportError as exc:
        missing = (exc.name or "a dependency").split(".")[0]
        raise EmbedderUnavailable(f"{missing} is not installed", embedder=name, extra="semantic") from exc


def _load_default(*, threads: int | None, batch_size: int | None, warm: bool) -> Embedder:
    reasons: list[str] = []
    missing_extra = True  # every candidate lacked a package (not a file or a broken runtime)
    for candidate in DEFAULT_ORDER:
        try:
            embedder = load_embedder(candidate, threads=threads, batch_size=batch_size, warm=warm)
        except EmbedderUnavailable as exc:
            reasons.append(str(exc))
            missing_extra = missing_extra and exc.extra is not None
            continue
        if reasons:
            import logging  # imported here: logging alone costs ~5 ms at import time

            logging.getLogger("gno.embed").warning(
                "default embedder falls back to %s (%s)", embedder.model_id, "; ".join(reasons)
            )
        return embedder
    raise EmbedderUnavailable(
        "no local embedding model can be loaded (" + "; ".join(reasons) + ")",
        embedder="default",
        extra="semantic" if missing_extra else None,
    )


def available_embedders(*, deep: bool = False, remote: str | None = None) -> list[dict[str, Any]]:
    """Which embedders can load here, and why not.

    One dict per embedder: ``name``, ``spec``, ``model_id``, ``dim``, ``fingerprint``,
    ``available`` (bool), ``reason`` (str or None), ``default`` (bool: what ``load_embedder(None)``
    picks), ``role``.  ``deep=True`` also loads each local model and embeds one text (adds
    ``load_seconds``; MiniLM takes ~0.5 s).  ``remote`` (a spec) adds a probed remote entry.
    """
    entries: list[tuple[str, str, str]] = [
        ("minilm", "minilm", "quality: documents, queries and re-scoring (384-d)"),
        ("mpnet", "mpnet", "optional stronger quality model, 6-10x slower than MiniLM (768-d; extra [mpnet])"),
        ("wordllama", "wordllama", "fast static first stage for large corpora (256-d)"),
        ("fake", "fake", "deterministic hashing embedder for tests (no semantics)"),
    ]
    if remote:
        entries.append(("remote", remote, "OpenAI-compatible /v1/embeddings server"))
    report: list[dict[str, Any]] = []
    default_taken = False
    for name, spec, role in entries:
        row: dict[str, Any] = {
            "name": name,
            "spec": spec,
            "role": role,
            "model_id": None,
            "dim": None,
            "fingerprint": None,
            "available": False,
            "reason": None,
            "default": False,
        }
        try:
            started = time.perf_counter()
            embedder = load_embedder(spec, warm=deep)
            if deep:
                embedder.embed_query("availability probe")
                row["load_seconds"] = round(time.perf_counter() - started, 3)
            row.update(
                model_id=embedder.model_id,
                dim=embedder.dim,
                fingerprint=embedder.fingerprint,
                available=True,
            )
            close = getattr(embedder, "close", None)
            if callable(close):
                close()
        except EmbedderUnavailable as exc:
            row["reason"] = exc.reason
        if row["available"] and name in DEFAULT_ORDER and not default_taken:
            row["default"] = default_taken = True
        report.append(row)
    return report
