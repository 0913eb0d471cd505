"""Numbers below float64's normal range are refused, read or computed, never decided: a hostile
author had 0 verified for 1e-200 * 1e-200 * 1e300 * 1e300 (1e200), and 0.8035 for an rms_norm
whose eps of 7e-324 reads as 4.9e-324 (its value as written is 0.75)."""

import numpy as np
import pytest

import attention
from attention.expressions import ExpressionError, evaluate, parse, sides


def no_names(name: str):
    raise KeyError(name)


@pytest.mark.parametrize(
    "text",
    [
        "1e-200 * 1e-200 * 1e300 * 1e300",
        "exp(-800) * 1e300 * 1e300",
        "exp(-800)",
        "log(1 + exp(-800)) * 1e300",
        "softmax(scores=[0, 800]).out[0] * 1e300 * 1e300",
        "[1e-200, 1] @ [1e-200, 0] * 1e300",
        "1e-200 / 1e200",
        "(1e-160) ** 2",
        "sqrt(1e-200 * 1e-200)",
    ],
)
def test_a_value_that_underflows_is_refused(text):
    """An engine call's value as a problem's is (`settled`), an expression's own steps here."""
    with pytest.raises(ExpressionError, match="underflows|falls below 2.23e-308"):
        evaluate(parse(text), no_names)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("rms_norm(x=[1e151]).out[0]", 1.0),
        ("rms_norm(x=[1e-155], eps=1).out[0]", 1e-155),
        ("rms_norm(x=[1e160, 2e160, 3e160]).out[0]", (3 / 14) ** 0.5),  # 1 / rms(1, 2, 3)
    ],
)
def test_an_operation_whose_steps_underflow_harmlessly_is_computed(text, value):
    """rms_norm squares 1e151 on its way to 1: a claim had been refused as underflowing where
    the same problem was verified (a hostile round)."""
    assert float(evaluate(parse(text), no_names)) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text", ["1e-400", "5e-324", "7e-324 * 1e300", "2.2e-308"])
def test_a_number_written_below_the_normal_range_is_refused(text):
    with pytest.raises(ExpressionError, match="below 2.23e-308"):
        parse(text)


@pytest.mark.parametrize("text", ["0x10", "1_000", "0b11", "0o7"])
def test_a_number_is_written_in_decimal(text):
    with pytest.raises(ExpressionError, match="with digits"):
        parse(text)


@pytest.mark.parametrize(
    "text", ["0", "0.0 * 5", "1 - 1", "2.5e-308", "exp(-700)", "1e-300 * 1e-7"]
)
def test_what_float64_holds_is_computed(text):
    assert np.isfinite(evaluate(parse(text), no_names))


def test_a_property_whose_side_underflows_is_refused():
    values = {"s": np.array([0.5, -1.2, 2.0])}
    with pytest.raises(ExpressionError, match="underflows"):
        sides(parse("abs(s) * 1e-200 * 1e-200 * 1e300 < 1"), values.__getitem__)


@pytest.mark.parametrize(
    ("operation", "inputs"),
    [
        ("rms_norm", {"x": [3e-162, 3e-162], "eps": 7e-324}),
        ("softmax", {"scores": [[1e-310, 1.0]]}),
        ("layer_norm", {"x": [[1.0, 2.0]], "eps": 1e-320}),
    ],
)
def test_an_input_below_the_normal_range_is_refused_with_its_path(operation, inputs):
    (name,) = [n for n, v in inputs.items() if np.min(np.abs(np.ravel(v))) < 1e-307]
    problems = attention.check(operation, inputs, {"output": "out"})
    assert [p.path for p in problems] == [f"inputs.{name}"], problems
    assert "2.23e-308" in problems[0].message
