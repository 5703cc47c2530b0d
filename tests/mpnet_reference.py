"""The MPNet encoder written out in numpy: the reference the onnxruntime graph is checked against.

It was gno's production encoder before the graph (176 word pieces/s on one core, against the
graph's figures in ``gno.embed.mpnet``); it stays as an independent statement of the arithmetic,
used by the tests (tiny random model) and by ``bench/mpnet_variants.py`` (the real weights).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from gno.embed.mpnet import PAD_ID, _buckets, _layer_norm

F32 = npt.NDArray[np.float32]


def _erf(x: F32) -> F32:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592
    out: F32 = (s * (1.0 - poly * t * np.exp(-a * a))).astype(np.float32)
    return out


def reference_forward(w: Mapping[str, F32], ids: npt.NDArray[np.int64], mask: F32, heads: int) -> F32:
    """Unit-norm mean-pooled vectors for a padded batch `ids` [b, n] with `mask` [b, n]."""
    b, n = ids.shape
    positions = (np.cumsum(ids != PAD_ID, axis=1) * (ids != PAD_ID) + PAD_ID).astype(np.int64)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    bias = w["encoder.relative_attention_bias.weight"][_buckets(n)].transpose(2, 0, 1)[None]
    bias = bias + ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
    dim = x.shape[-1]
    hd = dim // heads
    scale = np.float32(1.0 / np.sqrt(hd))
    layers = sum(1 for k in w if k.startswith("encoder.layer.") and k.endswith(".attention.attn.q.bias"))
    for i in range(layers):
        p = f"encoder.layer.{i}."

        def lin(t: F32, name: str, p: str = p) -> F32:
            out: F32 = t @ w[p + name + ".weight"].T + w[p + name + ".bias"]
            return out

        q = lin(x, "attention.attn.q").reshape(b, n, heads, hd).transpose(0, 2, 1, 3)
        k = lin(x, "attention.attn.k").reshape(b, n, heads, hd).transpose(0, 2, 3, 1)
        v = lin(x, "attention.attn.v").reshape(b, n, heads, hd).transpose(0, 2, 1, 3)
        s = (q @ k) * scale + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b, n, dim)
        x = _layer_norm(
            lin(ctx, "attention.attn.o") + x, w[p + "attention.LayerNorm.weight"], w[p + "attention.LayerNorm.bias"]
        )
        h = lin(x, "intermediate.dense")
        h = h * 0.5 * (1.0 + _erf(h / np.float32(np.sqrt(2.0))))
        x = _layer_norm(lin(h, "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    pooled = np.einsum("bsd,bs->bd", x, mask) / np.maximum(mask.sum(1, keepdims=True), 1.0)
    out: F32 = (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
    return out
