"""Operations of the registry on fewer key/value heads and a key/value cache: grouped-query
attention and decoding one token."""

from __future__ import annotations

from attention.decode import attention_decode
from attention.errors import InputProblem
from attention.grouped import grouped_query_attention
from attention.limits import MAX_BATCH, MAX_SEQ_LEN, MAX_WIDTH
from attention.registry.attention_mistakes import (
    cache_only_attention,
    group_modulo,
    head_order_mistakes,
    no_scale,
    self_attention_mistakes,
    width_scale,
)
from attention.registry.convert import dims
from attention.registry.operation import (
    Axes,
    Example,
    Misconception,
    Operation,
    Outputs,
    Parameter,
    Values,
)
from attention.registry.shapes import (
    MASK_INPUTS,
    MATRIX_X,
    MHA_WEIGHTS,
    WEIGHT,
    Plan,
    lead_axes,
    lead_shape,
    work_limit,
    x_dims,
)

_KV_WEIGHT = "(d, kv_heads * d / heads) matrix"
_CACHE = "(S, d_kv) or (B, S, d_kv): earlier tokens' projected keys or values ([] for none)"


def _kv_heads(p: Plan, heads: int | None) -> int | None:
    kv = p.values.get("kv_heads")
    if kv is None or heads is None:
        return None
    if kv < 1 or heads % kv:
        p.add("kv_heads", f"must be a positive divisor of heads ({heads}), got {kv}")
        return None
    return int(kv)


def _plan_gqa(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    dims = x_dims(p)
    if dims is None:
        return None
    batch, seq, width = dims
    ok = p.matrix("w_q", width, width, None) & p.matrix("w_o", width, width, None)
    heads = p.heads(width)
    kv = _kv_heads(p, heads)
    p.mask(seq, seq, batch, p.causal())
    if heads is None or kv is None:
        return None
    d_kv = kv * (width // heads)
    ok &= p.matrix("w_k", width, d_kv, None) & p.matrix("w_v", width, d_kv, None)
    if not ok or not work_limit(p, batch, seq, width, heads, kv):
        return None
    lead = lead_axes(batch)
    return {
        "out": (*lead, ("row", seq), ("col", width)),
        "weights": (*lead, ("head", heads), ("row", seq), ("col", seq)),
    }


def _run_gqa(v: Values, scale: float | None = None) -> Values:
    out, weights = grouped_query_attention(
        v["x"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["w_o"],
        v["heads"],
        v["kv_heads"],
        v.get("mask"),
        v.get("causal") or False,
        scale=scale,
    )
    return {"out": out, "weights": weights}


GQA = Operation(
    "grouped_query_attention",
    "Self-attention where query head i uses key/value head i // (heads / kv_heads).",
    (
        Parameter("x", "matrix", True, MATRIX_X),
        Parameter("w_q", "matrix", True, WEIGHT),
        Parameter("w_k", "matrix", True, _KV_WEIGHT),
        Parameter("w_v", "matrix", True, _KV_WEIGHT),
        Parameter("w_o", "matrix", True, WEIGHT),
        Parameter("heads", "int", True, "positive integer dividing d"),
        Parameter("kv_heads", "int", True, "positive integer dividing heads"),
        *MASK_INPUTS,
    ),
    ("out", "weights"),
    _plan_gqa,
    _run_gqa,
    Example(
        {
            "x": [[2, 0], [0, 2]],
            "w_q": [[1, 0], [0, 1]],
            "w_k": [[1], [0]],
            "w_v": [[1], [1]],
            "w_o": [[1, 0], [0, 1]],
            "heads": 2,
            "kv_heads": 1,
        },
        {"output": "weights", "head": 1},
        [[0.5, 0.5], [0.982, 0.01799]],
        "One shared key head (column 0 of x); head 1's queries are column 1 of x.",
    ),
    misconceptions=(*self_attention_mistakes(_run_gqa), group_modulo(_run_gqa, head_axis=-3)),
)


def _plan_decode(values: Values, problems: list[InputProblem]) -> Outputs | None:
    p = Plan(values, problems)
    x = values.get("x")
    if x is None:
        return None
    batch = x.shape[0] if x.ndim == 2 else None
    width = x.shape[-1]
    ok = p.limit("x", "width", width, MAX_WIDTH)
    if batch is not None:
        ok &= p.limit("x", "batch", batch, MAX_BATCH)
    if width < 1 or batch == 0:
        p.add("x", f"must be a token of at least one feature, got {dims(x.shape)}")
        return None
    heads = p.heads(width) if ok else None
    if heads is None:
        return None
    kv = heads if "kv_heads" not in values else _kv_heads(p, heads)
    if kv is None:
        return None
    d_kv = kv * (width // heads)
    ok = p.matrix("w_q", width, width, None) & p.matrix("w_o", width, width, None)
    ok &= p.matrix("w_k", width, d_kv, None) & p.matrix("w_v", width, d_kv, None)
    tokens = []
    for name in ("k_cache", "v_cache"):
        cache = values.get(name)
        if cache is None:
            return None
        if cache.size == 0:  # [] (or [[], []] batched): no earlier tokens yet
            cache = values[name] = cache.reshape(lead_shape(batch) + (0, d_kv))
        want = lead_shape(batch) + (cache.shape[-2], d_kv)
        if cache.shape != want:
            p.add(name, f"expected {dims(want)} (S earlier tokens), got {dims(cache.shape)}")
            ok = False
        tokens.append(cache.shape[-2])
    if ok and tokens[0] != tokens[1]:
        p.add("v_cache", f"has {tokens[1]} tokens but k_cache has {tokens[0]}")
        ok = False
    if not ok or not p.limit("k_cache", "number of cached tokens", tokens[0], MAX_SEQ_LEN - 1):
        return None
    lead = lead_axes(batch)
    cache_axes: Axes = (*lead, ("row", tokens[0] + 1), ("col", d_kv))
    return {
        "out": (*lead, ("col", width)),
        "weights": (*lead, ("head", heads), ("col", tokens[0] + 1)),
        "k_cache": cache_axes,
        "v_cache": cache_axes,
    }


def _run_decode(v: Values, scale: float | None = None) -> Values:
    out, weights, keys, values = attention_decode(
        v["x"],
        v["k_cache"],
        v["v_cache"],
        v["w_q"],
        v["w_k"],
        v["w_v"],
        v["w_o"],
        v["heads"],
        v.get("kv_heads"),
        scale=scale,
    )
    return {"out": out, "weights": weights, "k_cache": keys, "v_cache": values}


def _cache_projected_again(v: Values) -> Values:
    w_k, w_v = v["w_k"], v["w_v"]
    if w_k.shape[0] != w_k.shape[1]:  # fewer key/value heads: a cached row is d_kv < d long
        return {}
    return _run_decode({**v, "k_cache": v["k_cache"] @ w_k, "v_cache": v["v_cache"] @ w_v})


DECODE = Operation(
    "attention_decode",
    "One new token attending over a key/value cache of earlier tokens and itself; "
    "returns the grown caches.",
    (
        Parameter("x", "vector_or_matrix", True, "the new token: vector of d or (B, d)"),
        Parameter("k_cache", "cache", True, _CACHE),
        Parameter("v_cache", "cache", True, _CACHE),
        Parameter("w_q", "weight", True, WEIGHT),
        Parameter("w_k", "weight", True, _KV_WEIGHT),
        Parameter("w_v", "weight", True, _KV_WEIGHT),
        Parameter("w_o", "weight", True, WEIGHT),
        Parameter("heads", "int", True, "positive integer dividing d"),
        Parameter("kv_heads", "int", False, "positive integer dividing heads"),
    ),
    ("out", "weights", "k_cache", "v_cache"),
    _plan_decode,
    _run_decode,
    Example(
        {
            "x": [0, 0],
            "k_cache": [[1, 0]],
            "v_cache": [[4, 0]],
            **{w: [[1, 0], [0, 1]] for w in MHA_WEIGHTS},
            "heads": 1,
        },
        {"output": "out"},
        [2.0, 0.0],
        "The new token's query is 0, so it weighs the cached token and itself equally: "
        "(4 + 0) / 2.",
    ),
    misconceptions=(
        no_scale(_run_decode),
        width_scale(_run_decode),
        *head_order_mistakes(_run_decode),
        Misconception(
            "self-left-out",
            "This is what you get attending over the cache alone, leaving out the new token's "
            "own key and value.",
            cache_only_attention,
        ),
        Misconception(
            "cache-projected-again",
            "This is what you get multiplying the cached keys and values by w_k and w_v a "
            "second time.",
            _cache_projected_again,
        ),
        group_modulo(_run_decode, head_axis=-2),
    ),
)
