"""compare: tolerance checks of values against expected answers."""

import math

import numpy as np
import pytest

from attention import EngineInputError, compare


def test_equal_scalars_compare_ok_with_zero_error():
    result = compare(np.asarray(2.5), 2.5, rtol=1e-6, atol=0.0)
    assert result.ok and result.max_abs_error == 0.0 and result.max_rel_error == 0.0


def test_tolerance_follows_isclose_semantics():
    assert compare(np.asarray(1.0 + 1e-7), 1.0, rtol=1e-6, atol=0.0).ok
    result = compare(np.asarray(1.1), 1.0, rtol=1e-6, atol=0.0)
    assert not result.ok
    assert math.isclose(result.max_abs_error, 0.1) and math.isclose(result.max_rel_error, 0.1)
    assert compare(np.asarray(1e-10), 0.0, rtol=0.0, atol=1e-9).ok


def test_matrices_report_worst_errors_and_ignore_zero_expected_for_relative_error():
    value = np.array([[1.0, 2.2], [0.5, 4.0]])
    result = compare(value, [[1.0, 2.0], [0.0, 4.0]], rtol=1e-3, atol=1e-3)
    assert not result.ok
    assert math.isclose(result.max_abs_error, 0.5)
    assert math.isclose(result.max_rel_error, 0.1)


def test_shape_mismatch_is_not_ok_and_says_so():
    result = compare(np.zeros((2, 3)), [[0.0, 0.0], [0.0, 0.0]], rtol=1e-6, atol=1e-9)
    assert not result.ok
    assert result.message == "the answer is a 2x2 array but the engine's value is a 2x3 array"


def test_mappings_compare_key_by_key():
    value = {"flops": 2736, "params": 256}
    assert compare(value, {"flops": 2736, "params": 256}, rtol=0, atol=0).ok
    wrong = compare(value, {"flops": 2737, "params": 256}, rtol=0, atol=0)
    assert not wrong.ok and "flops" in wrong.message and wrong.max_abs_error == 1.0


def test_missing_or_extra_keys_are_mismatches():
    missing = compare({"flops": 1}, {"flops": 1, "params": 2}, rtol=0, atol=0)
    assert not missing.ok and "the engine gives no value named params" in missing.message
    extra = compare({"flops": 1, "x": 3}, {"flops": 1}, rtol=0, atol=0)
    assert not extra.ok and "the answer leaves out values the engine gives: x" in extra.message


def test_a_nan_value_never_compares_ok():
    assert not compare(np.array([np.nan]), [1.0], rtol=1.0, atol=1.0).ok


@pytest.mark.parametrize(
    "expected", ["0.5", None, [1.0, "a"], [[1.0], [1.0, 2.0]], True, {"a": "x"}]
)
def test_non_numeric_expected_raises_with_path_answer(expected):
    with pytest.raises(EngineInputError) as info:
        compare(np.asarray(1.0), expected, rtol=1e-6, atol=1e-9)
    assert info.value.problems[0].path.startswith("answer")


def test_an_answer_of_a_subnormal_number_compares_without_a_warning():
    """1 against 1e-320: the relative error overflows to infinity, which is said (and stored
    as no value) without numpy printing a RuntimeWarning into a command's output."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = compare(np.array([1.0]), [1e-320], rtol=1e-6, atol=1e-9)
    assert not result.ok and result.max_rel_error == math.inf


def test_a_mapping_answer_against_an_array_says_which_is_which_in_a_bounded_message():
    result = compare(np.zeros((2, 3)), {f"k{i}": 1 for i in range(150_000)}, rtol=1e-6, atol=1e-9)
    assert not result.ok
    assert result.message.startswith("the answer names values (k0, k1, k10, k100, k1000 and")
    assert "149995 more) but the engine's value is not a mapping" in result.message
    assert len(result.message) < 200
