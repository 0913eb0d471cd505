"""Feed-forward network and the pre-norm transformer block against loop references."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import EngineInputError, evaluate, feed_forward, transformer_block

from .reference import reference_mha
from .reference_ops import reference_feed_forward, reference_layer_norm

CASES = settings(max_examples=25, deadline=None, database=None)


@CASES
@given(
    st.sampled_from(["gelu", "relu", "gelu_tanh"]),
    st.sampled_from([(3,), (2, 3), (2, 2, 3)]),
    st.integers(1, 5),
    st.integers(0, 2**32 - 1),
)
def test_feed_forward_agrees_with_the_loop_reference(activation, shape, hidden, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * 2
    w_1, b_1 = rng.normal(size=(shape[-1], hidden)), rng.normal(size=hidden)
    w_2, b_2 = rng.normal(size=(hidden, 2)), rng.normal(size=2)
    out = feed_forward(x, w_1, b_1, w_2, b_2, activation)
    want = reference_feed_forward(x, w_1, b_1, w_2, b_2, activation)
    np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12)


def test_exact_gelu_uses_erf_and_differs_from_the_tanh_approximation():
    one = np.ones((1, 1))
    zero = np.zeros(1)
    exact = float(feed_forward([[1.0]], one, zero, one, zero, "gelu")[0, 0])
    approx = float(feed_forward([[1.0]], one, zero, one, zero, "gelu_tanh")[0, 0])
    assert exact == pytest.approx(0.5 * (1 + math.erf(1 / math.sqrt(2))), rel=1e-15)
    assert abs(exact - approx) > 1e-5


@pytest.mark.parametrize("z", [-7.0, -8.0, -10.0, -20.0, -30.0])
def test_gelu_of_a_very_negative_input_keeps_its_figures(z):
    """0.5 z (1 + erf(z / sqrt 2)) cancels: at -10 it gave 0 for -7.6e-23, and 0 was verified
    (a hostile round); the tanh form's 1 + tanh(u) likewise. Held to 1e-12 of the value."""
    exact = z * 0.5 * math.erfc(-z / math.sqrt(2))
    twice = 2 * math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)  # negative: no overflow
    tanh_form = z * math.exp(twice) / (1 + math.exp(twice))
    one = ([[z]], [[1.0]], [0.0], [[1.0]], [0.0])
    assert math.isclose(feed_forward(*one, activation="gelu")[0, 0], exact, rel_tol=1e-12)
    got = feed_forward(*one, activation="gelu_tanh")[0, 0]
    assert math.isclose(got, tanh_form, rel_tol=1e-12) and (got != 0 or z < -20)  # e^-1974


@CASES
@given(
    st.one_of(st.none(), st.integers(1, 2)),
    st.integers(1, 4),
    st.integers(1, 2),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_block_is_two_residual_halves_of_the_references(batch, seq, heads, causal, seed):
    rng = np.random.default_rng(seed)
    width = heads * 2
    x = rng.normal(size=(seq, width) if batch is None else (batch, seq, width))
    params = {
        "ln_1_gamma": rng.normal(size=width),
        "ln_1_beta": rng.normal(size=width),
        "w_q": rng.normal(size=(width, width)),
        "w_k": rng.normal(size=(width, width)),
        "w_v": rng.normal(size=(width, width)),
        "w_o": rng.normal(size=(width, width)),
        "ln_2_gamma": rng.normal(size=width),
        "ln_2_beta": rng.normal(size=width),
        "w_1": rng.normal(size=(width, 3)),
        "b_1": rng.normal(size=3),
        "w_2": rng.normal(size=(3, width)),
        "b_2": rng.normal(size=width),
    }
    got = transformer_block(x, heads=heads, causal=causal, **params)
    attn_in = reference_layer_norm(x, params["ln_1_gamma"], params["ln_1_beta"])
    attn, weights = reference_mha(
        attn_in, params["w_q"], params["w_k"], params["w_v"], params["w_o"], heads, causal=causal
    )
    h = x + attn
    ffn_in = reference_layer_norm(h, params["ln_2_gamma"], params["ln_2_beta"])
    out = h + reference_feed_forward(
        ffn_in, params["w_1"], params["b_1"], params["w_2"], params["b_2"]
    )
    np.testing.assert_allclose(got["h"], h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got["out"], out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got["weights"], weights, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (
            lambda: feed_forward([[1, 2]], np.ones((3, 2)), [0, 0], np.ones((2, 1)), [0]),
            "inputs.w_1",
        ),
        (lambda: feed_forward([[1, 2]], np.ones((2, 2)), [0], np.ones((2, 1)), [0]), "inputs.b_1"),
        (
            lambda: feed_forward([[1, 2]], np.ones((2, 2)), [0, 0], np.ones((2, 1)), [0], "tanh"),
            "inputs.activation",
        ),
    ],
)
def test_bad_input_names_the_input(call, path):
    with pytest.raises(EngineInputError) as info:
        call()
    assert [p.path for p in info.value.problems] == [path]


def test_registry_names_every_block_parameter_that_is_wrong():
    example = {
        "x": [[1, -1], [3, 1]],
        "heads": 1,
        "ln_1_gamma": [1, 1],
        "ln_1_beta": [0, 0],
        "ln_2_gamma": [1, 1],
        "ln_2_beta": [0, 0],
        "w_1": [[1, 0], [0, 1]],
        "b_1": [0, 0],
        "w_2": [[1, 0], [0, 1]],
        "b_2": [0, 0],
        **{w: [[0, 0], [0, 0]] for w in ("w_q", "w_k", "w_v", "w_o")},
    }
    bad = {**example, "ln_2_beta": [0], "w_2": [[1], [1]], "activation": "swish"}
    with pytest.raises(EngineInputError) as info:
        evaluate("transformer_block", bad, {"output": "out"})
    assert {p.path for p in info.value.problems} == {
        "inputs.ln_2_beta",
        "inputs.w_2",
        "inputs.activation",
    }
    out = evaluate("transformer_block", example, {"output": "h", "row": 1})
    np.testing.assert_allclose(out, [3, 1])
