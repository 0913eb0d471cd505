"""Grouped-query attention and decoding with a key/value cache."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import (
    EngineInputError,
    attention_decode,
    evaluate,
    grouped_query_attention,
    multi_head_attention,
)

from .reference import reference_mha
from .reference_ops import reference_gqa

CASES = settings(max_examples=40, deadline=None, database=None)


@st.composite
def gqa_cases(draw, dtype=np.float64):
    batch = draw(st.one_of(st.none(), st.integers(1, 3)))
    kv = draw(st.integers(1, 3))
    heads = kv * draw(st.integers(1, 3))
    dk = draw(st.integers(1, 3))
    seq, width = draw(st.integers(1, 6)), heads * dk
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.normal(size=(seq, width) if batch is None else (batch, seq, width))
    ws = [rng.normal(size=(width, n)) for n in (width, kv * dk, kv * dk, width)]
    mask = None
    if draw(st.booleans()):
        shape = (seq, seq) if batch is None or draw(st.booleans()) else (batch, seq, seq)
        mask = rng.random(shape) < 0.5
        mask[..., np.arange(seq), np.arange(seq)] = True
    causal = draw(st.booleans())
    return x.astype(dtype), [w.astype(dtype) for w in ws], heads, kv, mask, causal


@CASES
@given(gqa_cases())
def test_gqa_agrees_with_the_loop_reference(case):
    x, ws, heads, kv, mask, causal = case
    out, weights = grouped_query_attention(x, *ws, heads, kv, mask=mask, causal=causal)
    ref_out, ref_weights = reference_gqa(x, *ws, heads, kv, mask=mask, causal=causal)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-10, atol=1e-12)


@CASES
@given(gqa_cases(dtype=np.float32))
def test_gqa_keeps_float32(case):
    x, ws, heads, kv, mask, causal = case
    out, weights = grouped_query_attention(x, *ws, heads, kv, mask=mask, causal=causal)
    ref_out, _ = reference_gqa(x, *ws, heads, kv, mask=mask, causal=causal)
    assert out.dtype == weights.dtype == np.float32
    np.testing.assert_allclose(out, ref_out, rtol=1e-4, atol=1e-4 * max(1, np.abs(ref_out).max()))


def test_gqa_with_as_many_kv_heads_as_heads_is_multi_head_attention():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 5, 6))
    ws = [rng.normal(size=(6, 6)) for _ in range(4)]
    got = grouped_query_attention(x, *ws, 3, 3, causal=True)
    want = multi_head_attention(x, *ws, 3, causal=True)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-14)


def test_one_kv_head_is_multi_query_attention():
    """Multi-query: every head reads the same keys and values, i.e. MHA with w_k, w_v tiled."""
    rng = np.random.default_rng(6)
    x = rng.normal(size=(4, 8))
    w_q, w_o = rng.normal(size=(8, 8)), rng.normal(size=(8, 8))
    w_k, w_v = rng.normal(size=(8, 2)), rng.normal(size=(8, 2))
    got = grouped_query_attention(x, w_q, w_k, w_v, w_o, 4, 1)
    want = reference_mha(x, w_q, np.tile(w_k, 4), np.tile(w_v, 4), w_o, 4)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)


@settings(max_examples=25, deadline=None, database=None)
@given(
    st.integers(1, 3),
    st.integers(1, 2),
    st.integers(1, 3),
    st.integers(1, 6),
    st.booleans(),
    st.integers(0, 999),
)
def test_decoding_token_by_token_equals_causal_attention(kv, group, dk, seq, batched, seed):
    heads = kv * group
    width = heads * dk
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(2, seq, width) if batched else (seq, width))
    w_q, w_o = rng.normal(size=(width, width)), rng.normal(size=(width, width))
    w_k, w_v = rng.normal(size=(width, kv * dk)), rng.normal(size=(width, kv * dk))
    full_out, full_weights = reference_gqa(x, w_q, w_k, w_v, w_o, heads, kv, causal=True)
    lead = x.shape[:-2]
    k_cache = np.zeros(lead + (0, kv * dk))
    v_cache = np.zeros(lead + (0, kv * dk))
    for t in range(seq):
        out, weights, k_cache, v_cache = attention_decode(
            x[..., t, :], k_cache, v_cache, w_q, w_k, w_v, w_o, heads, kv
        )
        np.testing.assert_allclose(out, full_out[..., t, :], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(weights, full_weights[..., t, : t + 1], rtol=1e-10, atol=1e-12)
    # a row at a time and the whole matrix at once sum in different orders: an entry that
    # cancels to near zero differs in its last bits relative to itself, not to its terms
    np.testing.assert_allclose(k_cache, x @ w_k, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(v_cache, x @ w_v, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (
            lambda: grouped_query_attention(
                np.ones((2, 4)), np.eye(4), np.ones((4, 2)), np.ones((4, 2)), np.eye(4), 2, 3
            ),
            "inputs.kv_heads",
        ),
        (
            lambda: grouped_query_attention(
                np.ones((2, 4)), np.eye(4), np.ones((4, 4)), np.ones((4, 2)), np.eye(4), 2, 1
            ),
            "inputs.w_k",
        ),
        (
            lambda: attention_decode(
                np.ones(4), np.ones((2, 3)), np.ones((2, 4)), *[np.eye(4)] * 4, 2
            ),
            "inputs.k_cache",
        ),
        (
            lambda: attention_decode(
                np.ones(4), np.ones((2, 4)), np.ones((3, 4)), *[np.eye(4)] * 4, 2
            ),
            "inputs.v_cache",
        ),
    ],
)
def test_bad_input_names_the_input(call, path):
    with pytest.raises(EngineInputError) as info:
        call()
    assert [p.path for p in info.value.problems] == [path]


def test_registry_decodes_the_first_token_from_an_empty_cache():
    inputs = {
        "x": [1, 2],
        "k_cache": [],
        "v_cache": [],
        **{w: [[1, 0], [0, 1]] for w in ("w_q", "w_k", "w_v", "w_o")},
        "heads": 2,
    }
    np.testing.assert_allclose(evaluate("attention_decode", inputs, {"output": "out"}), [1, 2])
    cache = evaluate("attention_decode", inputs, {"output": "k_cache"})
    assert cache.shape == (1, 2)


def test_registry_checks_grouped_weight_shapes_against_kv_heads():
    inputs = {
        "x": [[1, 0, 0, 0]],
        "w_q": np.eye(4).tolist(),
        "w_k": np.eye(4).tolist(),
        "w_v": [[0, 0]] * 4,
        "w_o": np.eye(4).tolist(),
        "heads": 2,
        "kv_heads": 1,
    }
    with pytest.raises(EngineInputError) as info:
        evaluate("grouped_query_attention", inputs, {"output": "out"})
    assert [p.path for p in info.value.problems] == ["inputs.w_k"]
    assert "4x2" in str(info.value)
