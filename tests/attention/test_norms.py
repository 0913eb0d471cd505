"""Layer norm and RMS norm: loop reference, mean 0 / variance 1, dtypes and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import EngineInputError, evaluate, layer_norm, rms_norm

from .reference_ops import reference_layer_norm, reference_rms_norm

CASES = settings(max_examples=40, deadline=None, database=None)


@st.composite
def feature_arrays(draw):
    shape = draw(st.sampled_from([(5,), (3, 4), (2, 3, 6)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([1e-2, 1.0, 1e3]))
    return rng.normal(size=shape) * scale + draw(st.floats(-50, 50)), rng


@CASES
@given(feature_arrays(), st.booleans())
def test_layer_norm_agrees_with_the_loop_reference(case, affine):
    x, rng = case
    d = x.shape[-1]
    gamma, beta = (rng.normal(size=d), rng.normal(size=d)) if affine else (None, None)
    out = layer_norm(x, gamma, beta, eps=1e-5)
    np.testing.assert_allclose(
        out, reference_layer_norm(x, gamma, beta, 1e-5), rtol=1e-10, atol=1e-12
    )


@CASES
@given(feature_arrays(), st.booleans())
def test_rms_norm_agrees_with_the_loop_reference(case, affine):
    x, rng = case
    gamma = rng.normal(size=x.shape[-1]) if affine else None
    np.testing.assert_allclose(
        rms_norm(x, gamma), reference_rms_norm(x, gamma), rtol=1e-10, atol=1e-12
    )


def test_layer_norm_gives_mean_zero_and_variance_one_per_row():
    x = np.random.default_rng(3).normal(size=(4, 16)) * 7 + 3
    out = layer_norm(x, eps=1e-12)
    np.testing.assert_allclose(out.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(out.var(axis=-1), 1, rtol=1e-9)


def test_rms_norm_gives_unit_root_mean_square():
    out = rms_norm(np.random.default_rng(4).normal(size=(3, 8)) * 5, eps=1e-14)
    np.testing.assert_allclose(np.sqrt(np.mean(out**2, axis=-1)), 1, rtol=1e-9)


def test_float32_in_float32_out_and_mixed_is_float64():
    x = np.ones((2, 3), dtype=np.float32) * np.arange(3, dtype=np.float32)
    assert layer_norm(x).dtype == np.float32
    assert layer_norm(x, np.ones(3)).dtype == np.float64
    assert rms_norm(x).dtype == np.float32


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (lambda: layer_norm([[1, 2], [3, 4]], gamma=[1, 2, 3]), "inputs.gamma"),
        (lambda: layer_norm([1, 2], beta=[[1, 2]]), "inputs.beta"),
        (lambda: layer_norm([1.0, float("nan")]), "inputs.x"),
        (lambda: layer_norm([1, 2], eps=0), "inputs.eps"),
        (lambda: rms_norm(3.0), "inputs.x"),
        (lambda: rms_norm([1, 2], eps=-1), "inputs.eps"),
    ],
)
def test_bad_input_names_the_input(call, path):
    with pytest.raises(EngineInputError) as info:
        call()
    assert [p.path for p in info.value.problems] == [path]


def test_registry_reports_every_shape_problem_at_once():
    with pytest.raises(EngineInputError) as info:
        evaluate(
            "layer_norm",
            {"x": [[1, 2, 3]], "gamma": [1, 2], "beta": [1], "eps": -1},
            {"output": "out"},
        )
    assert {p.path for p in info.value.problems} == {"inputs.gamma", "inputs.beta", "inputs.eps"}


def test_registry_selects_a_row():
    value = evaluate(
        "rms_norm", {"x": [[3, 4], [1, 7]], "eps": 1e-300}, {"output": "out", "row": 1}
    )
    np.testing.assert_allclose(value, [0.2, 1.4], rtol=1e-12)


def test_a_constant_row_normalises_to_exact_zeros_whatever_eps():
    """The mean's rounding is not a deviation: normalised by a tiny eps it would read as ±1."""
    for eps in (1e-300, 1e-5):
        out = layer_norm(np.array([[0.1, 0.1, 0.1], [0.3, 0.3, 0.3], [1.0, 2.0, 3.0]]), eps=eps)
        assert np.all(out[:2] == 0)
        np.testing.assert_allclose(out[2], [-1.224744871391589, 0, 1.224744871391589], rtol=1e-4)


def test_a_near_constant_row_keeps_its_deviations():
    """[c, c, c + ulp]: the exact deviations are -ulp/3, -ulp/3, 2ulp/3, so the normalised row
    is [-1/√2, -1/√2, √2]; one rounded mean would lose them."""
    c = 0.1
    row = np.array([[c, c, np.nextafter(c, 1.0)]])
    out = layer_norm(row, eps=1e-300)
    np.testing.assert_allclose(out[0], [-(0.5**0.5), -(0.5**0.5), 2**0.5], rtol=1e-6)
