"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (llama.cpp server, Ollama, vLLM, LM Studio...).

Configured by one string, ``models.embed: http://host:port/v1#model``: the part before ``#`` is the
API base (a base that already ends in ``/embeddings`` is accepted too), the part after is the model
name sent in each request.  ``model_id`` is ``openai:<base>#<model>``, so moving the server or
changing the model changes the fingerprint and triggers a re-embed.

* Requests: ``POST <base>/embeddings`` with ``{"model", "input": [...], "encoding_format": "float"}``
  in batches of ``batch_size`` texts; rows are put back in order by their ``index`` and
  L2-normalised here (servers differ on that).  Empty strings are sent as a single space (several
  servers reject empty inputs).
* ``dim`` is learned from the first response.  Reading ``dim`` or ``fingerprint`` before any
  embedding sends one small probe request; :meth:`RemoteEmbedder.probe` does it explicitly.
* Failures (connection refused, DNS, timeout, HTTP error status, malformed JSON, wrong row count,
  dimension change) raise :class:`EmbedderUnavailable` with the URL and cause.  There is no retry
  loop: one attempt per batch, bounded by ``timeout`` (connect timeout ``min(timeout, 5 s)``).
* ``api_key`` (optional) is sent as ``Authorization: Bearer``; the registry takes it from the
  ``GNO_EMBED_API_KEY`` environment variable.
* ``httpx`` is imported on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from .base import EmbedderUnavailable, make_fingerprint

__all__ = ["RemoteEmbedder", "parse_remote_spec"]

_NAME = "remote"


def parse_remote_spec(spec: str) -> tuple[str, str, str]:
    """Split ``http(s)://host:port/v1#model`` into ``(base, endpoint, model)``.

    ``base`` has no trailing slash and no ``/embeddings``; ``endpoint`` is ``base + "/embeddings"``.
    Raises ``ValueError`` for anything else.
    """
    url, sep, model = spec.strip().partition("#")
    model = model.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"remote embedder spec must start with http:// or https://, got {spec!r}")
    if not sep or not model:
        raise ValueError(
            f"remote embedder spec {spec!r} needs a model name after '#', "
            "e.g. http://127.0.0.1:8080/v1#nomic-embed-text"
        )
    if parts.query:
        raise ValueError(f"remote embedder spec {spec!r} must not contain a query string")
    base = url.rstrip("/")
    if base.endswith("/embeddings"):
        base = base[: -len("/embeddings")].rstrip("/")
    return base, f"{base}/embeddings", model


class RemoteEmbedder:
    """Client for an OpenAI-compatible embeddings endpoint; see the module docstring."""

    def __init__(
        self,
        spec: str,
        *,
        timeout: float = 30.0,
        batch_size: int = 64,
        dim: int | None = None,
        api_key: str | None = None,
        transport: Any = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0, got {timeout}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._base, self.endpoint, self.model = parse_remote_spec(spec)
        self.model_id = f"openai:{self._base}#{self.model}"
        self._timeout = timeout
        self._batch_size = batch_size
        self._dim: int | None = dim
        self._dim_confirmed = False
        self._api_key = api_key
        self._transport = transport  # an httpx transport, for tests
        self._client: Any = None
        self._lock = threading.Lock()

    # -- attributes ----------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        if self._dim is None:
            self.probe()
        assert self._dim is not None
        return self._dim

    @property
    def fingerprint(self) -> str:
        return make_fingerprint(self.model_id, self.dim, api="openai-embeddings")

    def __repr__(self) -> str:
        return f"RemoteEmbedder({self.endpoint!r}, model={self.model!r})"

    # -- lifecycle -----------------------------------------------------------------------------
    def probe(self) -> int:
        """Send one tiny request; return the dimension or raise :class:`EmbedderUnavailable`."""
        self._request(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def __enter__(self) -> RemoteEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    import httpx
                except ImportError as exc:
                    raise EmbedderUnavailable("httpx is not installed", embedder=_NAME, extra="semantic") from exc
                headers = {"Accept": "application/json"}
                if self._api_key:
                    headers["Authorization"] = f"Bearer {self._api_key}"
                self._client = httpx.Client(
                    timeout=httpx.Timeout(self._timeout, connect=min(self._timeout, 5.0)),
                    headers=headers,
                    transport=self._transport,
                    follow_redirects=False,
                )
            return self._client

    # -- requests ------------------------------------------------------------------------------
    def _fail(self, what: str) -> EmbedderUnavailable:
        return EmbedderUnavailable(f"embedding server {self.endpoint}: {what}", embedder=_NAME)

    def _request(self, batch: list[str]) -> npt.NDArray[np.float32]:
        client = self._get_client()
        import httpx

        payload = {
            "model": self.model,
            "input": [text if text else " " for text in batch],
            "encoding_format": "float",
        }
        try:
            response = client.post(self.endpoint, json=payload)
        except httpx.TimeoutException as exc:
            raise self._fail(f"timed out after {self._timeout:g} s ({type(exc).__name__})") from exc
        except httpx.ConnectError as exc:
            raise self._fail(f"cannot connect ({exc})") from exc
        except httpx.HTTPError as exc:
            raise self._fail(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            body = response.text[:200].replace("\n", " ")
            raise self._fail(f"HTTP {response.status_code}: {body}")
        try:
            data = response.json()["data"]
            rows: list[tuple[int, list[float]]] = []
            for position, item in enumerate(data):
                index = item.get("index", position)
                rows.append((int(index), item["embedding"]))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise self._fail(f"unexpected response ({type(exc).__name__}: {exc})") from exc
        rows.sort(key=lambda r: r[0])
        if len(rows) != len(batch) or [r[0] for r in rows] != list(range(len(batch))):
            raise self._fail(f"returned {len(rows)} embeddings for {len(batch)} inputs")
        try:
            matrix = np.asarray([r[1] for r in rows], dtype=np.float32)
        except (ValueError, TypeError) as exc:
            raise self._fail(f"embeddings are not numeric vectors of one length ({exc})") from exc
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise self._fail(f"embeddings have shape {matrix.shape}")
        if not np.isfinite(matrix).all():
            raise self._fail("embeddings contain NaN or infinity")
        width = int(matrix.shape[1])
        if self._dim is None or not self._dim_confirmed:
            if self._dim is not None and self._dim != width:
                raise self._fail(f"returned {width}-d vectors, configured for {self._dim}-d")
            self._dim, self._dim_confirmed = width, True
        elif width != self._dim:
            raise self._fail(f"returned {width}-d vectors, earlier responses were {self._dim}-d")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        result: npt.NDArray[np.float32] = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
        return result

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._request(texts[i : i + self._batch_size]) for i in range(0, len(texts), self._batch_size)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        row: npt.NDArray[np.float32] = self._request([text])[0]
        return row
