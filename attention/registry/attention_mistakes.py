"""Misconceptions of the attention operations, and the ones every operation built on attention
shares (grouped-query attention, decoding, the block and the backward passes).

A mistake is the operation's own run on changed inputs wherever it can be (no mask, the query
and key weights swapped, a factor on the scores other than 1/√d_k), so it computes with the
engine itself; the few that need scores of their own (a softmax down the wrong axis, masked
scores set to 0, a decoded token left out of its own attention) use the engine's softmax.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

import numpy as np

from attention.core import _split_heads, scaled_dot_product_attention
from attention.registry.operation import Misconception, Values
from attention.softmax import softmax, softmax_rows_inplace

Run = Callable[[Values], Values]


class ScaledRun(Protocol):
    """An operation's run whose ``scale`` replaces 1/√d_k on the scores."""

    def __call__(self, v: Values, scale: float | None = None) -> Values: ...


def _causal(v: Values) -> bool:
    return bool(v.get("causal") or False)


def _scores_shape(v: Values) -> tuple[int, int]:
    """(queries, keys) of the scores: the rows of q and k, or of x for self-attention."""
    if "q" in v:
        return v["q"].shape[-2], v["k"].shape[-2]
    return v["x"].shape[-2], v["x"].shape[-2]


def allowed(v: Values, shift: int = 0) -> np.ndarray | None:
    """Where each query may attend: the mask ANDed with the causal triangle, its edge moved
    ``shift`` keys later; None when every key may be seen."""
    mask = v.get("mask")
    if not _causal(v):
        return mask
    triangle = np.tri(*_scores_shape(v), shift, dtype=bool)
    return triangle if mask is None else mask & triangle


def columns_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Attention whose softmax runs down each column of the scores (over the queries) instead
    of along each row (over the keys); ``q`` is already scaled. It is the engine's row softmax
    of the transposed scores k qᵀ, in place; a column that allows no query comes out NaN, which
    ``misconception_values`` refuses as not finite."""
    scores = k @ np.swapaxes(q, -1, -2)
    if mask is not None:
        np.copyto(scores, -np.inf, where=~np.swapaxes(mask, -1, -2))
    weights = np.swapaxes(softmax_rows_inplace(scores), -1, -2)
    return weights @ v, weights


def block_order(size: int, order: np.ndarray) -> np.ndarray:
    """Indices that put block ``order[i]`` (of ``size`` adjacent entries) in place i."""
    return (np.asarray(order)[:, None] * size + np.arange(size)).reshape(-1)


def _interleaved(width: int, heads: int) -> np.ndarray:
    """Column order that gives head i the columns i, i + h, i + 2h, ... (reshape(dk, h))."""
    return np.arange(width).reshape(width // heads, heads).T.reshape(-1)


def only(outputs: Values, *names: str) -> Values:
    """The outputs a mistake changes, of all a run returns."""
    return {name: outputs[name] for name in names}


NO_SCALE = "This is what you get without the 1/√d_k scale on the scores."
WRONG_AXIS = (
    "This is what you get taking the softmax down each column (over the queries) instead of "
    "along each row (over the keys)."
)
QK_SWAPPED = "This is what you get with queries and keys swapped: scores K Qᵀ instead of Q Kᵀ."


def mask_ignored(run: Run) -> Misconception:
    """The run with neither mask nor causal triangle, for a run that reads ``mask``."""

    def mistaken(v: Values) -> Values:
        return {} if allowed(v) is None else run({**v, "mask": None, "causal": False})

    return Misconception(
        "mask-ignored",
        "This is what you get ignoring the mask, so masked entries keep their weight.",
        mistaken,
    )


def mask_mistakes(run: Run) -> tuple[Misconception, ...]:
    """The mask ignored and the causal triangle one key too wide, for any run that reads the
    ``mask`` and ``causal`` inputs."""

    def off_by_one(v: Values) -> Values:
        return run({**v, "mask": allowed(v, 1), "causal": False}) if _causal(v) else {}

    return (
        mask_ignored(run),
        Misconception(
            "causal-off-by-one",
            "This is what you get when the causal mask lets each query see one future token.",
            off_by_one,
        ),
    )


def no_scale(run: ScaledRun) -> Misconception:
    return Misconception("no-scale", NO_SCALE, lambda v: run(v, scale=1.0))


def width_scale(run: ScaledRun) -> Misconception:
    """1/√d of the model width where one head's 1/√(d/h) belongs."""
    return Misconception(
        "scale-by-width",
        "This is what you get scaling by 1/√d, the whole model width, instead of 1/√d_k, "
        "the width of one head.",
        lambda v: run(v, scale=1.0 / math.sqrt(v["x"].shape[-1])),
    )


def head_order_mistakes(run: Run) -> tuple[Misconception, ...]:
    """Mistakes in joining the heads: reversed before w_o, or w_o left out (it is d x d, so
    the concatenated heads have the output's shape)."""

    def reversed_heads(v: Values) -> Values:
        heads, w_o = v["heads"], v["w_o"]
        rows = block_order(w_o.shape[0] // heads, np.arange(heads)[::-1])
        return only(run({**v, "w_o": w_o[rows]}), "out")

    def no_projection(v: Values) -> Values:
        return only(run({**v, "w_o": np.eye(v["w_o"].shape[0])}), "out")

    return (
        Misconception(
            "heads-reversed",
            "This is what you get concatenating the heads in reverse order before w_o.",
            reversed_heads,
        ),
        Misconception(
            "no-output-projection",
            "This is what you get leaving out the output projection w_o.",
            no_projection,
        ),
    )


def interleaved_heads(run: Run) -> Misconception:
    """Heads split as reshape(T, d_k, h) instead of reshape(T, h, d_k), and joined back the
    same way; key/value weights split into ``kv_heads`` where there are fewer."""

    def mistaken(v: Values) -> Values:
        heads = v["heads"]
        kv = v.get("kv_heads") or heads
        changed = {**v}
        for name, n in (("w_q", heads), ("w_k", kv), ("w_v", kv)):
            changed[name] = v[name][:, _interleaved(v[name].shape[1], n)]
        if "w_o" in v:
            changed["w_o"] = v["w_o"][_interleaved(v["w_o"].shape[0], heads)]
        return run(changed)

    return Misconception(
        "heads-interleaved",
        "This is what you get giving head i every h-th column (i, i + h, ...) instead of a "
        "block of d/h adjacent columns.",
        mistaken,
    )


def _heads_wrong_axis(v: Values) -> Values:
    """Multi-head (or grouped-query) self-attention with the softmax down the columns; query
    heads grouped as (kv_heads, group) so each key/value head broadcasts over its group."""
    x = v["x"]
    x3 = x if x.ndim == 3 else x[None]
    batch, seq, width = x3.shape
    heads = v["heads"]
    kv = v.get("kv_heads") or heads
    scaled = v["w_q"] * (1.0 / math.sqrt(width // heads))
    q = _split_heads(x3 @ scaled, heads).reshape(batch, kv, heads // kv, seq, width // heads)
    k, values = (_split_heads(x3 @ v[name], kv)[:, :, None] for name in ("w_k", "w_v"))
    ok = allowed(v)
    head_out, weights = columns_attention(
        q, k, values, None if ok is None else ok.reshape((-1, 1, 1, seq, seq))
    )
    joined = head_out.reshape(batch, heads, seq, -1).transpose(0, 2, 1, 3)
    out = joined.reshape(batch, seq, width) @ v["w_o"]
    weights = weights.reshape(batch, heads, seq, seq)
    return (
        {"out": out, "weights": weights} if x.ndim == 3 else {"out": out[0], "weights": weights[0]}
    )


HEADS_WRONG_AXIS = Misconception("wrong-axis", WRONG_AXIS, _heads_wrong_axis)


def self_attention_mistakes(run: ScaledRun) -> tuple[Misconception, ...]:
    """Multi-head and grouped-query attention's mistakes."""
    return (
        no_scale(run),
        width_scale(run),
        HEADS_WRONG_AXIS,
        *mask_mistakes(run),
        *head_order_mistakes(run),
        interleaved_heads(run),
    )


def _softmax_wrong_axis(v: Values) -> Values:
    scores = v["scores"]
    return {"out": softmax(scores, v.get("mask"), axis=-2)} if scores.ndim == 2 else {}


def _softmax_no_exp(v: Values) -> Values:
    mask = v.get("mask")
    scores = v["scores"] if mask is None else np.where(mask, v["scores"], 0.0)
    return {"out": scores / scores.sum(axis=-1, keepdims=True)}


def _softmax_mask_as_zero(v: Values) -> Values:
    mask = v.get("mask")
    return {} if mask is None else {"out": softmax(np.where(mask, v["scores"], 0.0))}


MASK_AS_ZERO = (
    "This is what you get setting masked scores to 0 instead of −∞, so masked entries still "
    "get weight."
)


def softmax_mistakes(run: Run) -> tuple[Misconception, ...]:
    return (
        Misconception(
            "wrong-axis",
            "This is what you get taking the softmax down each column instead of along each row.",
            _softmax_wrong_axis,
        ),
        Misconception(
            "no-exp",
            "This is what you get dividing the scores by their sum without exponentiating them.",
            _softmax_no_exp,
        ),
        mask_ignored(run),
        Misconception("mask-as-zero", MASK_AS_ZERO, _softmax_mask_as_zero),
    )


def _sdpa_scores(v: Values) -> np.ndarray:
    q, k = v["q"], v["k"]
    return (q @ np.swapaxes(k, -1, -2)) * (1.0 / math.sqrt(q.shape[-1]))


def _sdpa_wrong_axis(v: Values) -> Values:
    q = v["q"] * (1.0 / math.sqrt(v["q"].shape[-1]))
    out, weights = columns_attention(q, v["k"], v["v"], allowed(v))
    return {"out": out, "weights": weights}


def _sdpa_mask_as_zero(v: Values) -> Values:
    ok = allowed(v)
    if ok is None:
        return {}
    weights = softmax(np.where(ok, _sdpa_scores(v), 0.0))
    return {"out": weights @ v["v"], "weights": weights}


def sdpa_mistakes(run: ScaledRun) -> tuple[Misconception, ...]:
    return (
        no_scale(run),
        Misconception(
            "scale-by-dk",
            "This is what you get dividing the scores by d_k instead of √d_k.",
            lambda v: run(v, scale=1.0 / v["q"].shape[-1]),
        ),
        Misconception("wrong-axis", WRONG_AXIS, _sdpa_wrong_axis),
        Misconception("qk-swapped", QK_SWAPPED, lambda v: run({**v, "q": v["k"], "k": v["q"]})),
        *mask_mistakes(run),
        Misconception("mask-as-zero", MASK_AS_ZERO, _sdpa_mask_as_zero),
    )


def swapped_weights(run: Run) -> Misconception:
    """Queries projected by w_k and keys by w_q: scores K Qᵀ."""
    return Misconception(
        "qk-swapped", QK_SWAPPED, lambda v: run({**v, "w_q": v["w_k"], "w_k": v["w_q"]})
    )


def _head_wrong_axis(v: Values) -> Values:
    width, heads, head = v["x"].shape[-1], v["heads"], v["head"]
    dk = width // heads
    columns = slice(head * dk, (head + 1) * dk)
    q, k, values = (v["x"] @ v[name][:, columns] for name in ("w_q", "w_k", "w_v"))
    out, weights = columns_attention(q * (1.0 / math.sqrt(dk)), k, values, allowed(v))
    return {"out": out, "weights": weights}


def head_mistakes(run: ScaledRun) -> tuple[Misconception, ...]:
    return (
        no_scale(run),
        width_scale(run),
        Misconception("wrong-axis", WRONG_AXIS, _head_wrong_axis),
        swapped_weights(run),
        *mask_mistakes(run),
        interleaved_heads(run),
    )


def cache_only_attention(v: Values) -> Values:
    """The decoded token's output attending over the cache alone, as if its own key and value
    were not appended first; none for the first token, which has nothing else to attend to."""
    if v["k_cache"].shape[-2] == 0:
        return {}
    x, heads = v["x"], v["heads"]
    kv = v.get("kv_heads") or heads
    x2 = x if x.ndim == 2 else x[None]
    batch, width = x2.shape
    q = (x2 @ v["w_q"]).reshape(batch, kv, heads // kv, 1, width // heads)
    k, values = (
        _split_heads(v[name].reshape(batch, -1, v[name].shape[-1]), kv)[:, :, None]
        for name in ("k_cache", "v_cache")
    )
    out = scaled_dot_product_attention(q, k, values)[0].reshape(batch, width) @ v["w_o"]
    return {"out": out if x.ndim == 2 else out[0]}


def group_modulo(run: Run, head_axis: int) -> Misconception:
    """Query head i paired with key/value head i mod kv_heads instead of i // (h / kv_heads):
    the run's own grouping, on query heads (and w_o's rows) reordered to match."""

    def mistaken(v: Values) -> Values:
        heads = v["heads"]
        kv = v.get("kv_heads") or heads
        place = np.arange(heads) % kv * (heads // kv) + np.arange(heads) // kv
        order = np.argsort(place)
        dk = v["w_q"].shape[1] // heads
        columns = block_order(dk, order)
        got = run({**v, "w_q": v["w_q"][:, columns], "w_o": v["w_o"][columns]})
        return {"out": got["out"], "weights": np.take(got["weights"], place, axis=head_axis)}

    return Misconception(
        "kv-group-modulo",
        "This is what you get pairing query head i with key/value head i mod kv_heads instead "
        "of head i ÷ (heads / kv_heads), rounded down.",
        mistaken,
    )
