"""Softmax: exactness, stability and masking."""

import math

import numpy as np
import pytest

from attention import EngineInputError, softmax


def test_softmax_matches_hand_computed_values():
    total = math.e + math.e**2 + math.e**3
    expected = [math.e / total, math.e**2 / total, math.e**3 / total]
    np.testing.assert_allclose(softmax([1.0, 2.0, 3.0]), expected, rtol=1e-15)


def test_softmax_is_exact_for_large_inputs():
    small = softmax([0.0, 1.0, 2.0])
    for shift in (1e3, 1e5, -1e5):
        big = softmax(np.array([0.0, 1.0, 2.0]) + shift)
        assert np.all(np.isfinite(big))
        np.testing.assert_allclose(big, small, rtol=1e-10)


def test_softmax_of_widely_separated_scores_is_one_hot_without_nan():
    out = softmax([[-1e4, 0.0, 1e4]])
    assert np.array_equal(out, [[0.0, 0.0, 1.0]])


def test_softmax_rows_sum_to_one_along_any_axis():
    scores = np.random.default_rng(1).normal(size=(3, 4, 5)) * 50
    for axis in (0, 1, 2, -1):
        np.testing.assert_allclose(softmax(scores, axis=axis).sum(axis=axis), 1.0)


def test_masked_entries_get_exactly_zero_weight():
    out = softmax([[1.0, 2.0, 3.0]], mask=[[True, False, True]])
    assert out[0, 1] == 0.0
    np.testing.assert_allclose(out[0, [0, 2]], [1 / (1 + math.e**2), math.e**2 / (1 + math.e**2)])


def test_a_fully_masked_row_raises_instead_of_nan():
    with pytest.raises(EngineInputError, match="row 1") as info:
        softmax([[1.0, 2.0], [3.0, 4.0]], mask=[[True, False], [False, False]])
    assert info.value.problems[0].path == "mask"


def test_softmax_keeps_float32_and_does_not_modify_input():
    scores = np.array([[1.0, 2.0]], dtype=np.float32)
    before = scores.copy()
    out = softmax(scores)
    assert out.dtype == np.float32
    assert np.array_equal(scores, before)


def test_softmax_rejects_non_finite_scores():
    with pytest.raises(EngineInputError, match="finite"):
        softmax([1.0, float("nan")])
