"""Gradients: each agrees with central finite differences of a loop reference, in float64."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import (
    EngineInputError,
    evaluate,
    multi_head_attention_backward,
    scaled_dot_product_attention,
    scaled_dot_product_attention_backward,
    softmax,
    softmax_backward,
)

from .reference import reference_attention, reference_mha
from .reference_ops import central_difference, reference_softmax_backward

CASES = settings(max_examples=20, deadline=None, database=None)
FD = {"rtol": 1e-6, "atol": 1e-7}  # central differences with eps=1e-6 in float64


def _mask(rng, batch, rows, cols, causal):
    if rng.random() < 0.5:
        return None
    shape = (rows, cols) if batch is None or rng.random() < 0.5 else (batch, rows, cols)
    mask = rng.random(shape) < 0.6
    mask[..., :, 0] = True  # key 0 is visible to every query, causal or not
    return mask


def _sdpa_reference(q, k, v, mask, causal):
    if q.ndim == 2:
        return reference_attention(q, k, v, mask, causal, False)[0]
    masks = [
        None if mask is None else (mask if mask.ndim == 2 else mask[b]) for b in range(q.shape[0])
    ]
    return np.stack(
        [
            reference_attention(q[b], k[b], v[b], masks[b], causal, False)[0]
            for b in range(q.shape[0])
        ]
    )


@CASES
@given(
    st.one_of(st.none(), st.integers(1, 2)),
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(1, 3),
    st.integers(1, 3),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_attention_gradients_agree_with_finite_differences(batch, rows, cols, dk, dv, causal, seed):
    rng = np.random.default_rng(seed)
    lead = () if batch is None else (batch,)
    cols = max(cols, rows) if causal else cols
    q, k = rng.normal(size=lead + (rows, dk)), rng.normal(size=lead + (cols, dk))
    v, grad_out = rng.normal(size=lead + (cols, dv)), rng.normal(size=lead + (rows, dv))
    mask = _mask(rng, batch, rows, cols, causal)

    grads = scaled_dot_product_attention_backward(q, k, v, grad_out, mask=mask, causal=causal)

    def loss(q, k, v):
        return float(np.sum(_sdpa_reference(q, k, v, mask, causal) * grad_out))

    arrays = [q.copy(), k.copy(), v.copy()]
    for i, grad in enumerate(grads):
        assert grad.shape == arrays[i].shape
        np.testing.assert_allclose(grad, central_difference(loss, arrays, i), **FD)


@CASES
@given(
    st.one_of(st.none(), st.integers(1, 2)),
    st.integers(1, 4),
    st.integers(1, 2),
    st.integers(1, 2),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_multi_head_gradients_agree_with_finite_differences(batch, seq, heads, dk, causal, seed):
    rng = np.random.default_rng(seed)
    width = heads * dk
    x = rng.normal(size=(seq, width) if batch is None else (batch, seq, width))
    ws = [rng.normal(size=(width, width)) for _ in range(4)]
    grad_out = rng.normal(size=x.shape)
    mask = _mask(rng, batch, seq, seq, causal)

    grads = multi_head_attention_backward(x, *ws, heads, grad_out, mask=mask, causal=causal)

    def loss(x, w_q, w_k, w_v, w_o):
        out = reference_mha(x, w_q, w_k, w_v, w_o, heads, mask=mask, causal=causal)[0]
        return float(np.sum(out * grad_out))

    arrays = [x.copy(), *(w.copy() for w in ws)]
    for i, grad in enumerate(grads):
        np.testing.assert_allclose(grad, central_difference(loss, arrays, i), **FD)


@CASES
@given(st.sampled_from([(4,), (3, 5), (2, 2, 3)]), st.integers(0, 2**32 - 1))
def test_softmax_backward_is_the_explicit_jacobian_product(shape, seed):
    rng = np.random.default_rng(seed)
    scores, grad_y = rng.normal(size=shape) * 3, rng.normal(size=shape)
    y = softmax(scores)
    got = softmax_backward(y, grad_y)
    np.testing.assert_allclose(got, reference_softmax_backward(y, grad_y), rtol=1e-10, atol=1e-13)

    def loss(s):
        return float(np.sum(softmax(s) * grad_y))

    np.testing.assert_allclose(got, central_difference(loss, [scores.copy()], 0), **FD)


def test_a_broadcast_key_collects_the_gradient_of_every_batch():
    rng = np.random.default_rng(9)
    q, k, v = rng.normal(size=(3, 2, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    grad_out = rng.normal(size=(3, 2, 2))
    _, dk, dv = scaled_dot_product_attention_backward(q, k, v, grad_out)
    parts = [scaled_dot_product_attention_backward(q[b], k, v, grad_out[b]) for b in range(3)]
    np.testing.assert_allclose(dk, sum(p[1] for p in parts), rtol=1e-12)
    np.testing.assert_allclose(dv, sum(p[2] for p in parts), rtol=1e-12)


def test_float32_gradients_stay_float32():
    q = np.ones((2, 2), dtype=np.float32)
    grads = scaled_dot_product_attention_backward(q, q, q, q)
    assert all(g.dtype == np.float32 for g in grads)


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (lambda: softmax_backward([0.5, 0.5], [1, 0, 0]), "inputs.grad_y"),
        (
            lambda: scaled_dot_product_attention_backward(
                np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 1)), np.ones((2, 2))
            ),
            "inputs.grad_out",
        ),
        (
            lambda: scaled_dot_product_attention_backward(
                np.ones((2, 2)),
                np.ones((2, 2)),
                np.ones((2, 2)),
                np.ones((2, 2)),
                mask=np.zeros((2, 2), dtype=bool),
            ),
            "inputs.mask",
        ),
        (
            lambda: multi_head_attention_backward(
                np.ones((2, 4)), *[np.eye(4)] * 4, 2, np.ones((2, 3))
            ),
            "inputs.grad_out",
        ),
    ],
)
def test_bad_input_names_the_input(call, path):
    with pytest.raises(EngineInputError) as info:
        call()
    assert [p.path for p in info.value.problems] == [path]


def test_registry_gives_each_gradient_and_selects_into_it():
    rng = np.random.default_rng(2)
    x, grad_out = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    ws = [rng.normal(size=(4, 4)) for _ in range(4)]
    inputs = {
        "x": x.tolist(),
        **{n: w.tolist() for n, w in zip(("w_q", "w_k", "w_v", "w_o"), ws, strict=True)},
        "heads": 2,
        "grad_out": grad_out.tolist(),
        "causal": True,
    }
    grads = multi_head_attention_backward(x, *ws, 2, grad_out, causal=True)
    for name, grad in zip(("dx", "dw_q", "dw_k", "dw_v", "dw_o"), grads, strict=True):
        np.testing.assert_array_equal(
            evaluate("multi_head_attention_backward", inputs, {"output": name}), grad
        )
    np.testing.assert_array_equal(
        evaluate("multi_head_attention_backward", inputs, {"output": "dw_k", "row": 2}), grads[2][2]
    )
    with pytest.raises(EngineInputError) as info:
        evaluate("multi_head_attention_backward", {**inputs, "grad_out": [[1.0]]}, {"output": "dx"})
    assert [p.path for p in info.value.problems] == ["inputs.grad_out"]


@pytest.mark.parametrize("causal", [False, True])
def test_sequences_longer_than_a_block_give_the_textbook_gradients(causal):
    """Past one block of queries the weights are recomputed block by block; the gradients are
    still dV = P^T G, dS = P * (dP - rowsum(dP * P)), dQ = dS K / sqrt(d), dK = dS^T Q / sqrt(d)."""
    rng = np.random.default_rng(11)
    q, k, v = (rng.normal(size=(300, 4)) for _ in range(3))
    grad_out = rng.normal(size=(300, 4))
    mask = rng.random((300, 300)) < 0.7
    mask[:, 0] = True
    _, p = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal)
    dp = grad_out @ v.T
    ds = p * (dp - np.sum(dp * p, axis=-1, keepdims=True))
    dq, dk, dv = scaled_dot_product_attention_backward(q, k, v, grad_out, mask=mask, causal=causal)
    np.testing.assert_allclose(dv, p.T @ grad_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dq, ds @ k / 2, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dk, ds.T @ q / 2, rtol=1e-10, atol=1e-12)
