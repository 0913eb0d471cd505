"""Requests and numpy references for the misconception tests, independent of the engine.

``REQUESTS`` holds, for each operation, inputs on which every one of its misconceptions makes
a difference: masked, causal, several heads, fewer key/value heads, a batch, a cache.
"""

import math

import numpy as np

from attention import misconception_values

RNG = np.random.default_rng(7)


def r(*shape):
    return RNG.normal(size=shape).round(3)


def w(rows, cols=None):
    return r(rows, cols or rows)


X = r(3, 4)
MHA = {"x": X, **{n: w(4) for n in ("w_q", "w_k", "w_v", "w_o")}, "heads": 2, "causal": True}
MASK = np.array([[True, False, True], [True, True, False], [False, True, True]])
_Y = np.exp(r(3, 4))
BLOCK = {
    "x": X,
    "ln_1_gamma": r(4),
    "ln_1_beta": r(4),
    **{n: w(4) for n in ("w_q", "w_k", "w_v", "w_o")},
    "heads": 2,
    "ln_2_gamma": r(4),
    "ln_2_beta": r(4),
    "w_1": w(4, 5),
    "b_1": r(5),
    "w_2": w(5, 4),
    "b_2": r(4),
    "causal": True,
}
GQA = {
    "x": r(3, 8),
    "w_q": w(8),
    "w_k": w(8, 4),
    "w_v": w(8, 4),
    "w_o": w(8),
    "heads": 4,
    "kv_heads": 2,
    "causal": True,
}
DECODE = {
    "x": r(4),
    "k_cache": r(2, 4),
    "v_cache": r(2, 4),
    **{n: w(4) for n in ("w_q", "w_k", "w_v", "w_o")},
    "heads": 2,
}
SDPA = {"q": r(3, 4), "k": r(3, 4), "v": r(3, 2), "causal": True}
FFN = {"x": X, "w_1": w(4, 5), "b_1": r(5), "w_2": w(5, 3), "b_2": r(3)}

REQUESTS = {
    "softmax": [
        {"scores": r(3, 4), "mask": np.array([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 1]]) > 0}
    ],
    "scaled_dot_product_attention": [
        SDPA,
        {"q": r(2, 3, 4), "k": r(2, 3, 4), "v": r(2, 3, 2), "mask": MASK},
    ],
    "multi_head_attention": [MHA, {**MHA, "causal": False, "mask": MASK}],
    "attention_head": [{**{n: v for n, v in MHA.items() if n != "w_o"}, "head": 1}],
    "attention_cost": [
        {"seq_len": 4, "width": 8, "heads": 2, "batch": 2, "bias": True, "kv_heads": 1},
        {"seq_len": 4, "width": 8, "heads": 2, "backward": True},
    ],
    "layer_norm": [{"x": X, "gamma": r(4), "beta": r(4)}],
    "rms_norm": [{"x": X, "gamma": r(4)}],
    "feed_forward": [FFN, {**FFN, "activation": "relu"}],
    "sinusoidal_positions": [{"seq_len": 3, "width": 4}],
    "rope": [{"x": X, "offset": 2}],
    "grouped_query_attention": [GQA],
    "attention_decode": [
        DECODE,
        {**{n: GQA[n] for n in ("w_q", "w_k", "w_v", "w_o", "heads", "kv_heads")}, "x": r(8)}
        | {"k_cache": r(2, 4), "v_cache": r(2, 4)},
    ],
    "softmax_backward": [{"y": _Y / _Y.sum(axis=-1, keepdims=True), "grad_y": r(3, 4)}],
    "scaled_dot_product_attention_backward": [{**SDPA, "grad_out": r(3, 2)}],
    "multi_head_attention_backward": [{**MHA, "grad_out": r(3, 4)}],
    "cross_entropy": [{"logits": np.abs(r(3, 4)) + 0.1, "targets": [0, 2, 1]}],
    "transformer_block": [BLOCK],
}
"""Requests on which every misconception of every operation makes a difference."""


def mistaken(operation, inputs, output, **selectors):
    """The asked output by misconception name."""
    ask = {"output": output, **selectors}
    return {m.name: value for m, value in misconception_values(operation, inputs, ask)}


def softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def attention(q, k, v, allowed=None, scale=None, axis=-1):
    scores = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    weights = softmax(scores, axis)
    return weights @ v, weights


CLOSE = {"rtol": 1e-12, "atol": 1e-14}


def mha_reference(v, kv_of=None, order=None, project=True, scale=None, allowed=None, axis=-1):
    """Multi-head attention by explicit per-head slices; head i uses key/value head kv_of(i),
    the heads are joined in ``order``, and each softmax runs along ``axis``."""
    x, heads = v["x"], v["heads"]
    dk = x.shape[-1] // heads
    outs = []
    for i in range(heads):
        j = i if kv_of is None else kv_of(i)
        q = x @ v["w_q"][:, i * dk : (i + 1) * dk]
        k, val = (x @ v[n][:, j * dk : (j + 1) * dk] for n in ("w_k", "w_v"))
        outs.append(attention(q, k, val, allowed, scale, axis))
    heads_out = [o for o, _ in outs]
    concat = np.concatenate([heads_out[i] for i in order or range(heads)], axis=1)
    return (concat @ v["w_o"] if project else concat), np.stack([p for _, p in outs])
