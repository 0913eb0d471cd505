"""Cross-entropy: loop reference, huge logits, gradient by finite differences, errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import EngineInputError, cross_entropy, evaluate

from .reference_ops import central_difference, reference_cross_entropy


@settings(max_examples=40, deadline=None, database=None)
@given(
    st.integers(1, 5),
    st.integers(1, 6),
    st.sampled_from([1.0, 30.0, 3e3]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_loss_and_gradient_agree_with_references(rows, classes, scale, vector, seed):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(classes,) if vector else (rows, classes)) * scale
    targets = rng.integers(0, classes, size=() if vector else rows)
    loss, grad = cross_entropy(logits, targets)
    assert loss.shape == () and grad.shape == logits.shape
    assert float(loss) == pytest.approx(
        reference_cross_entropy(logits, targets), rel=1e-10, abs=1e-12
    )
    if scale == 1.0:
        numeric = central_difference(
            lambda z: reference_cross_entropy(z, targets), [logits.copy()], 0
        )
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_huge_logits_are_exact_and_uniform_logits_give_log_classes():
    loss, grad = cross_entropy([[3000.0, 0.0]], [1])
    assert float(loss) == 3000.0
    np.testing.assert_allclose(grad, [[1.0, -1.0]])
    assert float(cross_entropy(np.zeros((3, 5)), [0, 1, 4])[0]) == pytest.approx(math.log(5))


def test_gradient_rows_sum_to_zero_and_scale_with_one_over_rows():
    grad = cross_entropy(np.random.default_rng(1).normal(size=(4, 3)), [0, 1, 2, 0])[1]
    np.testing.assert_allclose(grad.sum(axis=-1), 0, atol=1e-15)
    assert np.all(grad.min(axis=-1) >= -1 / 4)


@pytest.mark.parametrize(
    ("targets", "message"),
    [([0, 3], "outside 0..2"), ([0.0, 1.0], "integer"), ([0], "one per row"), ([0, -1], "-1")],
)
def test_bad_targets_are_named(targets, message):
    with pytest.raises(EngineInputError) as info:
        cross_entropy(np.zeros((2, 3)), np.array(targets))
    assert info.value.problems[0].path == "inputs.targets"
    assert message in str(info.value)


def test_registry_refuses_fractional_and_out_of_range_targets():
    for targets in ([0.5], [7], True):
        problems = None
        with pytest.raises(EngineInputError) as info:
            evaluate("cross_entropy", {"logits": [[1, 2]], "targets": targets}, {"output": "loss"})
        problems = info.value.problems
        assert [p.path for p in problems] == ["inputs.targets"]
    grad = evaluate(
        "cross_entropy",
        {"logits": [[0, 0], [5, 5]], "targets": [0, 1]},
        {"output": "grad", "row": 1},
    )
    np.testing.assert_allclose(grad, [0.25, -0.25])


@pytest.mark.parametrize("margin", [40.0, 60.0, 700.0])
def test_a_confident_right_answer_keeps_its_tiny_loss_and_gradient(margin):
    """log(1 + e^-m) and the target's gradient -e^-m/(1 + e^-m) are far below 1's precision:
    they must not cancel to 0 (an answer of 0 would then be verified)."""
    loss, grad = cross_entropy([[margin, 0.0]], [0])
    tiny = math.exp(-margin)
    assert float(loss) == pytest.approx(math.log1p(tiny), rel=1e-12)
    assert grad[0, 0] == pytest.approx(-tiny / (1 + tiny), rel=1e-12)
    assert grad[0, 1] == pytest.approx(tiny / (1 + tiny), rel=1e-12)
    assert grad[0, 0] < 0 < grad[0, 1]


def test_a_confident_answer_between_ties_and_in_float32_stays_exact():
    loss, grad = cross_entropy(np.array([[50.0, 50.0, 0.0]], dtype=np.float32), [1])
    assert loss.dtype == np.float32 and grad.dtype == np.float32
    assert float(loss) == pytest.approx(math.log(2), rel=1e-6)
    assert float(grad[0, 2]) == pytest.approx(math.exp(-50) / 2, rel=1e-5)
