"""Scaled dot-product and multi-head attention: hand values, the loop reference, properties."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import (
    EngineInputError,
    attention_head,
    multi_head_attention,
    scaled_dot_product_attention,
)


def _load_reference():
    path = Path(__file__).with_name("reference.py")
    spec = importlib.util.spec_from_file_location("attention_loop_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load_reference()
E = math.e


def _weights(rng, d, dtype=np.float64):
    return [rng.normal(size=(d, d)).astype(dtype) / math.sqrt(d) for _ in range(4)]


def _random_mask(rng, shape):
    mask = rng.random(shape) < 0.6
    mask[..., 0] = True  # every query may attend at least to token 0
    return mask


# --------------------------------------------------------------------------- hand-computed


def test_sdpa_matches_a_hand_computed_two_token_case():
    a = 1 / math.sqrt(2)
    q = k = [[1.0, 0.0], [0.0, 1.0]]
    v = [[1.0, 2.0], [3.0, 4.0]]
    out, weights = scaled_dot_product_attention(q, k, v)
    big, small = math.exp(a) / (math.exp(a) + 1), 1 / (math.exp(a) + 1)
    np.testing.assert_allclose(weights, [[big, small], [small, big]], rtol=1e-14)
    np.testing.assert_allclose(
        out, [[big + 3 * small, 2 * big + 4 * small], [small + 3 * big, 2 * small + 4 * big]]
    )


def test_two_heads_with_identity_weights_match_hand_values():
    x = [[1.0, 0.0], [0.0, 1.0]]
    eye = np.eye(2)
    out, weights = multi_head_attention(x, eye, eye, eye, eye, heads=2)
    hi, lo = E / (E + 1), 1 / (E + 1)
    np.testing.assert_allclose(
        weights, [[[hi, lo], [0.5, 0.5]], [[0.5, 0.5], [lo, hi]]], rtol=1e-14
    )
    np.testing.assert_allclose(out, [[hi, 0.5], [0.5, hi]], rtol=1e-14)


def test_causal_first_token_attends_only_to_itself():
    x = [[1.0, 0.0], [0.0, 1.0]]
    eye = np.eye(2)
    out, weights = multi_head_attention(x, eye, eye, eye, eye, heads=2, causal=True)
    np.testing.assert_array_equal(weights[:, 0], [[1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_allclose(out[0], [1.0, 0.0])


def test_one_head_equals_single_head_sdpa_composed_with_projections():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 4))
    w_q, w_k, w_v, w_o = _weights(rng, 4)
    out, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, heads=1)
    head_out, head_weights = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    np.testing.assert_allclose(out, head_out @ w_o, rtol=1e-12)
    np.testing.assert_allclose(weights[0], head_weights, rtol=1e-12)


# ---------------------------------------------------------------- against the loop reference


@pytest.mark.parametrize(
    ("batch", "seq", "width", "heads", "masked", "causal"),
    [
        (None, 5, 8, 2, False, False),
        (None, 7, 12, 3, True, False),
        (None, 9, 8, 4, False, True),
        (None, 6, 8, 8, True, True),
        (2, 5, 8, 2, False, False),
        (3, 6, 6, 3, True, True),
        (2, 300, 16, 2, True, True),  # more than one query block
        (None, 513, 8, 2, False, True),
    ],
)
def test_mha_matches_the_loop_reference_on_random_cases(batch, seq, width, heads, masked, causal):
    rng = np.random.default_rng(seq * 31 + width)
    lead = () if batch is None else (batch,)
    x = rng.normal(size=(*lead, seq, width))
    ws = _weights(rng, width)
    mask = _random_mask(rng, (*lead, seq, seq)) if masked else None
    out, weights = multi_head_attention(x, *ws, heads, mask=mask, causal=causal)
    ref_out, ref_weights = reference.reference_mha(x, *ws, heads, mask=mask, causal=causal)
    np.testing.assert_allclose(out, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-10, atol=1e-12)


def test_a_shared_mask_applies_to_every_batch_element():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 5, 4))
    ws = _weights(rng, 4)
    mask = _random_mask(rng, (5, 5))
    out, weights = multi_head_attention(x, *ws, 2, mask=mask)
    ref_out, ref_weights = reference.reference_mha(x, *ws, 2, mask=np.stack([mask, mask]))
    np.testing.assert_allclose(out, ref_out, rtol=1e-10)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-10)


@pytest.mark.parametrize("order", ["<", ">"])  # float32 is float32 in either byte order
@pytest.mark.parametrize("lead", [(2,), ()])  # the general kernel; a tiny call's own path
def test_float32_inputs_stay_float32_and_match_the_reference(order, lead):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(*lead, 10, 8)).astype(f"{order}f4")
    ws = [w.astype(f"{order}f4") for w in _weights(rng, 8, np.float32)]
    out, weights = multi_head_attention(x, *ws, 4, causal=True)
    assert out.dtype == np.float32 and weights.dtype == np.float32
    ref_out, ref_weights = reference.reference_mha(x, *ws, 4, causal=True)
    np.testing.assert_allclose(out, ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(weights, ref_weights, rtol=1e-4, atol=1e-5)


def test_integer_inputs_compute_in_float64():
    x = [[1, 0], [0, 1]]
    eye = np.eye(2, dtype=int)
    out, weights = multi_head_attention(x, eye, eye, eye, eye, heads=1)
    assert out.dtype == np.float64 and weights.dtype == np.float64


def test_sdpa_matches_the_reference_with_batch_dims_and_different_key_count():
    rng = np.random.default_rng(11)
    q, k, v = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 6, 3)), rng.normal(size=(2, 6, 5))
    mask = _random_mask(rng, (4, 6))
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    for b in range(2):
        ref_out, ref_weights = reference.reference_attention(q[b], k[b], v[b], mask, False, False)
        np.testing.assert_allclose(out[b], ref_out, rtol=1e-12)
        np.testing.assert_allclose(weights[b], ref_weights, rtol=1e-12)


def test_attention_head_returns_the_heads_column_slices():
    rng = np.random.default_rng(13)
    x = rng.normal(size=(5, 6))
    w_q, w_k, w_v, w_o = _weights(rng, 6)
    _, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, heads=3, causal=True)
    result = attention_head(x, w_q, w_k, w_v, heads=3, head=1, causal=True)
    np.testing.assert_allclose(result["q"], x @ w_q[:, 2:4])
    np.testing.assert_allclose(result["v"], x @ w_v[:, 2:4])
    np.testing.assert_allclose(result["weights"], weights[1], rtol=1e-12)
    assert result["out"].shape == (5, 2)


# --------------------------------------------------------------------------- properties


def test_permuting_tokens_permutes_the_output():
    rng = np.random.default_rng(17)
    x = rng.normal(size=(7, 8))
    ws = _weights(rng, 8)
    perm = rng.permutation(7)
    out, weights = multi_head_attention(x, *ws, 2)
    out_p, weights_p = multi_head_attention(x[perm], *ws, 2)
    np.testing.assert_allclose(out_p, out[perm], rtol=1e-12)
    np.testing.assert_allclose(weights_p, weights[:, perm][:, :, perm], rtol=1e-12)


@pytest.mark.parametrize(
    ("dtype", "later"),
    [(np.float64, 10.0), (np.float64, 1e5), (np.float32, 10.0), (np.float32, 1e3)],
)
def test_causal_output_at_t_ignores_later_tokens(dtype, later):
    """Even when a later token's scores are large enough that its own softmax must take off
    its row maximum, the rows before it (some in the same block of queries) keep their bits."""
    rng = np.random.default_rng(19)
    x = rng.normal(size=(2, 600, 8)).astype(dtype)
    ws = [w.astype(dtype) for w in _weights(rng, 8)]
    changed = x.copy()
    changed[:, 400:] = rng.normal(size=(2, 200, 8)) * later
    out, weights = multi_head_attention(x, *ws, 4, causal=True)
    out_c, weights_c = multi_head_attention(changed, *ws, 4, causal=True)
    np.testing.assert_array_equal(out[:, :400], out_c[:, :400])
    np.testing.assert_array_equal(weights[:, :, :400], weights_c[:, :, :400])
    assert np.all(np.triu(weights[0, 0], k=1) == 0.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_query_that_sees_one_key_gives_it_all_its_weight_exactly(dtype):
    """The first query under causal, and every query of a single key, past the tiny path."""
    rng = np.random.default_rng(29)
    q, k, v = (rng.normal(size=(16, 300, 8)).astype(dtype) for _ in range(3))
    out, weights = scaled_dot_product_attention(q, k, v, causal=True)
    assert np.all(weights[:, 0, 0] == 1) and np.all(weights[:, 0, 1:] == 0)
    np.testing.assert_array_equal(out[:, 0], v[:, 0])
    out, weights = scaled_dot_product_attention(q, k[:, :1], v[:, :1])
    assert np.all(weights == 1)
    np.testing.assert_array_equal(out, np.broadcast_to(v[:, :1], out.shape))


@pytest.mark.filterwarnings("error")
def test_lengths_too_long_for_the_float_warn_of_nothing_and_still_attend():
    """A query's squared length overflows: its bound is infinite (beside a key of no length,
    NaN), no bound passes, and the row maximum is taken off as always."""
    q = np.full((100, 8), 1e160)
    k = np.full((100, 8), 1e-160)
    k[0] = 0.0
    out, weights = scaled_dot_product_attention(q, k, np.ones((100, 8)), causal=True)
    assert np.all(np.isfinite(weights)) and np.allclose(weights.sum(axis=-1), 1)
    np.testing.assert_allclose(out, 1.0)


def test_inputs_are_not_modified():
    rng = np.random.default_rng(23)
    x = rng.normal(size=(6, 4))
    ws = _weights(rng, 4)
    mask = _random_mask(rng, (6, 6))
    copies = [a.copy() for a in (x, *ws, mask)]
    multi_head_attention(x, *ws, 2, mask=mask, causal=True)
    q = x.copy()
    scaled_dot_product_attention(q, q, q, mask=mask)
    for before, after in zip(copies, (x, *ws, mask), strict=True):
        assert np.array_equal(before, after)
    assert np.array_equal(q, x)


def test_weights_rows_sum_to_one():
    rng = np.random.default_rng(29)
    x = rng.normal(size=(3, 20, 8)) * 30
    _, weights = multi_head_attention(
        x, *_weights(rng, 8), 2, mask=_random_mask(rng, (3, 20, 20)), causal=True
    )
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)


# --------------------------------------------------------------------------- errors


def test_a_query_with_nothing_to_attend_to_raises():
    rng = np.random.default_rng(31)
    x = rng.normal(size=(3, 4))
    mask = np.ones((3, 3), dtype=bool)
    mask[2] = False
    with pytest.raises(EngineInputError, match="query row 2 has nothing to attend to") as info:
        multi_head_attention(x, *_weights(rng, 4), 2, mask=mask)
    assert info.value.problems[0].path == "inputs.mask"


def test_causal_combined_with_a_mask_can_leave_a_row_empty():
    mask = np.ones((3, 3), dtype=bool)
    mask[0, 0] = False  # causal leaves row 0 only key 0, which the mask forbids
    x = np.eye(3, 4)
    with pytest.raises(EngineInputError, match="query row 0"):
        multi_head_attention(x, *[np.eye(4)] * 4, 2, mask=mask, causal=True)
    multi_head_attention(x, *[np.eye(4)] * 4, 2, mask=mask)  # without causal it is fine


@pytest.mark.parametrize(
    ("kwargs", "path", "text"),
    [
        ({"heads": 3}, "inputs.heads", "not divisible"),
        ({"heads": 0}, "inputs.heads", "positive"),
        ({"w_q": np.ones((4, 3))}, "inputs.w_q", "expected 4x4 matrix, got 4x3"),
        ({"x": np.ones(4)}, "inputs.x", "(T, d)"),
        ({"x": [[1.0, np.nan, 0.0, 0.0]]}, "inputs.x", "finite"),
        ({"mask": np.ones((2, 2), dtype=bool)}, "inputs.mask", "expected 3x3 matrix"),
        ({"mask": np.ones((3, 3))}, "inputs.mask", "boolean"),
    ],
)
def test_bad_arguments_raise_with_a_path(kwargs, path, text):
    args = {
        "x": np.ones((3, 4)),
        "w_q": np.eye(4),
        "w_k": np.eye(4),
        "w_v": np.eye(4),
        "w_o": np.eye(4),
        "heads": 2,
    }
    args.update(kwargs)
    with pytest.raises(EngineInputError) as info:
        multi_head_attention(**args)
    assert info.value.problems[0].path == path
    assert text in info.value.problems[0].message


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["x", "w_q", "w_k", "w_v", "w_o"]),
    bad=st.sampled_from([np.nan, np.inf, -np.inf]),
    where=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    causal=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_a_non_finite_input_is_named_on_the_fast_path_too(name, bad, where, causal, seed):
    """float64 arrays with an int head count skip the per-input scans; a NaN or infinity
    anywhere must still be refused, naming its input, never returned as a result."""
    rng = np.random.default_rng(seed)
    args = {"x": rng.normal(size=(4, 8))} | {
        w: rng.normal(size=(8, 8)) for w in ("w_q", "w_k", "w_v", "w_o")
    }
    rows = args[name].shape[0]
    args[name][where[0] % rows, where[1]] = bad
    with pytest.raises(EngineInputError) as info:
        multi_head_attention(**args, heads=2, causal=causal)
    assert info.value.problems[0].path == f"inputs.{name}"


def test_the_fast_path_gives_the_checked_path_s_bits():
    rng = np.random.default_rng(3)
    x, ws = rng.normal(size=(5, 8)), [rng.normal(size=(8, 8)) for _ in range(4)]
    for causal in (False, True):
        fast = multi_head_attention(x, *ws, 2, causal=causal)
        checked = multi_head_attention(x.tolist(), *(w.tolist() for w in ws), 2, causal=causal)
        assert all(np.array_equal(a, b) for a, b in zip(fast, checked, strict=True))
        batched = multi_head_attention(x[None], *ws, 2, causal=causal)  # the general kernel
        for a, b in zip(fast, batched, strict=True):
            assert np.allclose(a, b[0], rtol=1e-14, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("largest", [1.0, 40.0, 75.0, 90.0, 700.0, 1e4])
@pytest.mark.parametrize("seq", [300, 4])  # blocks bounded per head; a tiny call as a whole
def test_large_scores_give_the_softmax_of_a_float64_reference_either_side_of_exp_range(
    dtype, largest, seq
):
    """Scores bounded well inside exp's range skip the row maximum; near and past its edge
    they keep it. Either way every weight is the reference's, and no row overflows."""
    rng = np.random.default_rng(int(largest))
    q = rng.normal(size=(2, seq, 16))
    k = rng.normal(size=(2, seq, 16))
    scores = q @ np.swapaxes(k, -1, -2)
    scale = largest / np.abs(scores).max()  # the largest |score| is `largest`
    _, weights = scaled_dot_product_attention(
        q.astype(dtype), k.astype(dtype), k.astype(dtype), scale=scale
    )
    reference = np.exp(scale * scores - (scale * scores).max(axis=-1, keepdims=True))
    reference /= reference.sum(axis=-1, keepdims=True)
    assert weights.dtype == dtype and np.all(np.isfinite(weights))
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(weights, reference, rtol=tolerance * max(largest, 1), atol=1e-30)
