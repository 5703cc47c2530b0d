"""The MPNet encoder as an ONNX graph, built from the safetensors weights and cached on disk.

all-mpnet-base-v2 ships as safetensors only, and onnxruntime (already used for MiniLM) runs the
encoder faster than the same arithmetic written in numpy (fused LayerNorm and GELU kernels, no
temporaries per op, threads inside each op; figures in :mod:`gno.embed.mpnet`). So the graph is
written out once with ``onnx.helper`` and kept beside the extracted weights.

The graph takes ``hidden [b, n, 768]`` (token + position embeddings after the embedding
LayerNorm) and ``bias [b, 12, n, n]`` (the relative-position bias plus the padding mask) and
returns the last hidden state ``[b, n, 768]``; the table look-ups and the bucket arithmetic stay
in numpy, where they are cheap, so the graph has no integer inputs and batch and length are free.

Variants: ``fp32`` (the weights as shipped) and ``int8`` (``quantize_dynamic``: weights of the
linear layers stored as int8, activations quantized per batch). The cached file's name carries the
variant and :data:`GRAPH_VERSION`, so a changed builder never reuses a stale file; writes are
atomic (temp file, then rename), and a missing or unreadable file is rebuilt.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["GRAPH_VERSION", "VARIANTS", "build_encoder", "graph_path", "ensure_graph"]

GRAPH_VERSION = 1
VARIANTS = ("fp32", "int8")
_OPSET = 17  # LayerNormalization is a standard op from 17
F32 = npt.NDArray[np.float32]


def graph_path(model_dir: Path, variant: str) -> Path:
    return model_dir / f"encoder-{variant}-v{GRAPH_VERSION}.onnx"


def build_encoder(weights: Mapping[str, F32], *, heads: int, eps: float = 1e-5) -> Any:
    """An ``onnx.ModelProto`` of the encoder layers over `weights` (the safetensors names)."""
    from onnx import TensorProto, helper, numpy_helper

    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, value: npt.NDArray[Any]) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    dim = int(weights["embeddings.LayerNorm.weight"].shape[0])
    hd = dim // heads
    layers = sum(1 for k in weights if k.startswith("encoder.layer.") and k.endswith(".attention.attn.q.bias"))
    split_shape = const("split_shape", np.array([0, 0, heads, hd], dtype=np.int64))
    merge_shape = const("merge_shape", np.array([0, 0, dim], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(hd), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    one = const("one", np.array(1.0, dtype=np.float32))
    inv_sqrt2 = const("inv_sqrt2", np.array(1.0 / np.sqrt(2.0), dtype=np.float32))

    x = "hidden"
    for i in range(layers):
        p = f"encoder.layer.{i}."

        def linear(src: str, name: str, p: str = p, i: int = i) -> str:
            w = const(f"{p}{name}.wt", weights[p + name + ".weight"].T.astype(np.float32))
            b = const(f"{p}{name}.b", weights[p + name + ".bias"].astype(np.float32))
            tag = f"l{i}.{name.replace('.', '_')}"
            return node("Add", [node("MatMul", [src, w], tag + ".mm"), b], tag)

        def heads_of(src: str, perm: list[int], tag: str) -> str:
            return node("Transpose", [node("Reshape", [src, split_shape], tag + ".r")], tag + ".t", perm=perm)

        def layer_norm(src: str, name: str, tag: str, p: str = p) -> str:
            w = const(f"{p}{name}.w", weights[p + name + ".weight"])
            b = const(f"{p}{name}.bn", weights[p + name + ".bias"])
            return node("LayerNormalization", [src, w, b], tag, axis=-1, epsilon=eps)

        t = f"l{i}"
        q = heads_of(linear(x, "attention.attn.q"), [0, 2, 1, 3], t + ".qh")
        k = heads_of(linear(x, "attention.attn.k"), [0, 2, 3, 1], t + ".kh")
        v = heads_of(linear(x, "attention.attn.v"), [0, 2, 1, 3], t + ".vh")
        scores = node("Add", [node("Mul", [node("MatMul", [q, k], t + ".qk"), scale], t + ".qks"), "bias"], t + ".s")
        probs = node("Softmax", [scores], t + ".p", axis=-1)
        ctx = node("MatMul", [probs, v], t + ".ctx")
        ctx = node("Reshape", [node("Transpose", [ctx], t + ".ctxt", perm=[0, 2, 1, 3]), merge_shape], t + ".ctxm")
        x = layer_norm(
            node("Add", [linear(ctx, "attention.attn.o"), x], t + ".res1"), "attention.LayerNorm", t + ".ln1"
        )
        h = linear(x, "intermediate.dense")
        erf = node("Erf", [node("Mul", [h, inv_sqrt2], t + ".hs")], t + ".erf")
        h = node("Mul", [node("Mul", [h, half], t + ".hh"), node("Add", [erf, one], t + ".erf1")], t + ".gelu")
        x = layer_norm(node("Add", [linear(h, "output.dense"), x], t + ".res2"), "output.LayerNorm", t + ".ln2")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden"], name="last_hidden"))

    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes,
        "mpnet_encoder",
        [
            helper.make_tensor_value_info("hidden", f32, ["batch", "seq", dim]),
            helper.make_tensor_value_info("bias", f32, ["batch", heads, "seq", "seq"]),
        ],
        [helper.make_tensor_value_info("last_hidden", f32, ["batch", "seq", dim])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)], producer_name="gno")
    model.ir_version = 8
    return model


def _atomic_save(model: Any, dest: Path) -> None:
    import onnx

    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        onnx.save_model(model, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as readable as the extracted weights beside it
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def ensure_graph(model_dir: Path, variant: str, load_weights: Callable[[], Mapping[str, F32]], *, heads: int) -> Path:
    """The cached graph for `variant` in `model_dir`, built (and quantized for ``int8``) if missing."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown mpnet graph variant {variant!r} (one of {', '.join(VARIANTS)})")
    dest = graph_path(model_dir, variant)
    if dest.is_file():
        return dest
    model = build_encoder(load_weights(), heads=heads)
    if variant == "fp32":
        _atomic_save(model, dest)
        return dest
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(dir=model_dir, prefix=".build-") as work:
        src = Path(work) / "fp32.onnx"
        _atomic_save(model, src)
        out = Path(work) / "int8.onnx"
        from onnx import TensorProto

        # per-channel weight scales; the FFN's down-projection stays fp32: its input (after GELU) has
        # outliers that a per-tensor activation scale flattens (quantizing it too: cosine 0.89 to fp32)
        keep = [n.name for n in model.graph.node if n.op_type == "MatMul" and n.name.endswith("output_dense.mm")]
        quantize_dynamic(
            src,
            out,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=keep,
            extra_options={"DefaultTensorType": TensorProto.FLOAT},
        )
        os.replace(out, dest)
    return dest
