"""compare: tolerance checks of values against expected answers."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attention
from attention import EngineInputError, compare, compare_each


def test_equal_scalars_compare_ok_with_zero_error():
    result = compare(np.asarray(2.5), 2.5, rtol=1e-6, atol=0.0)
    assert result.ok and result.max_abs_error == 0.0 and result.max_rel_error == 0.0


def test_tolerance_follows_isclose_semantics():
    assert compare(np.asarray(1.0 + 1e-7), 1.0, rtol=1e-6, atol=0.0).ok
    result = compare(np.asarray(1.1), 1.0, rtol=1e-6, atol=0.0)
    assert not result.ok
    assert math.isclose(result.max_abs_error, 0.1) and math.isclose(result.max_rel_error, 0.1)
    assert compare(np.asarray(1.0 + 5e-10), 1.0, rtol=0.0, atol=1e-9).ok
    noise = [0.0, 4e-13]  # where the engine found 1e-13 to be noise (noise_bounds)
    assert compare(np.array([1.0, 1e-13]), [1.0, 0.0], rtol=0.0, atol=1e-9, zero=noise).ok
    assert not compare(np.array([1.0, 1e-13]), [1.0, 0.0], rtol=0.0, atol=1e-9).ok  # a number
    assert not compare(np.asarray(1e-10), 0.0, rtol=0.0, atol=1e-9).ok  # 1e-10 is all there is


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


def test_an_answer_of_a_subnormal_number_is_refused_without_a_warning():
    """1e-320 is held to fewer figures than written (2.28705e-320 reads as 2.287e-320), so no
    comparison may turn on it: refused as an input there is, without numpy printing a
    RuntimeWarning into a command's output."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(EngineInputError) as info:
            compare(np.array([1.0]), [1e-320], rtol=1e-6, atol=1e-9)
    assert str(info.value.problems[0]) == "answer: must be 0 or at least 2.23e-308 in size"


def test_a_mapping_answer_against_an_array_says_which_is_which_in_a_bounded_message():
    result = compare(np.zeros((2, 3)), {f"k{i}": 1 for i in range(150_000)}, rtol=1e-6, atol=1e-9)
    assert not result.ok
    assert result.message.startswith("the answer names values (k0, k1, k10, k100, k1000 and")
    assert "149995 more) but the engine's value is not a mapping" in result.message
    assert len(result.message) < 200


# ------------------------------------------------ no tolerance verifies a wrong answer


def test_one_significant_figure_never_verifies_a_half_for_the_softmax_of_one_score():
    """The softmax of a single score is exactly 1; 0.5 is wrong whatever the file says."""
    value = attention.evaluate("softmax", {"scores": [[3.0]]}, {"output": "out"})
    result = compare(value, [[0.5]], digits=1)
    assert not result.ok
    assert "0.5 is not 1 to 3 significant figures" in result.message


def test_a_masked_weight_that_is_exactly_zero_must_be_answered_zero():
    inputs = {"scores": [[1.0, 2.0, 3.0]], "mask": [[True, True, False]]}
    value = attention.evaluate("softmax", inputs, {"output": "out"})
    right = [[0.268941, 0.731059, 0.0]]
    assert compare(value, right, digits=6).ok
    for tolerance in ({"digits": 1}, {"digits": 6}, {"rtol": 0.1, "atol": 0.1}):
        wrong = compare(value, [[0.268941, 0.731059, 0.5]], **tolerance)
        assert not wrong.ok, tolerance
        assert "[0, 2]: 0.5 is not 0: an entry that is exactly 0 must be answered 0" in (
            wrong.message
        )


def test_an_entry_within_float_noise_of_zero_is_answered_zero():
    assert compare(np.array([1.0, 3e-17]), [1.0, 0.0], rtol=1e-6, atol=0.0, zero=[0, 1e-16]).ok
    assert compare(np.array([1.0, 0.0]), [1.0, 1e-13], digits=6).ok
    assert not compare(np.array([1.0, 0.0]), [1.0, 1e-6], rtol=1e-6, atol=1e-6).ok


def judged(operation: str, inputs: dict, answer, ask=None, **tolerance):
    """As verdicts and practice checks judge: an entry is 0 only where the engine finds it
    float noise."""
    ask = ask or {"output": "out"}
    value = attention.evaluate(operation, inputs, ask)
    held, zero, unsure = attention.settled(operation, inputs, ask, value)
    return compare(held, answer, zero=zero, unsure=unsure, **(tolerance or {"digits": 6}))


SDPA = "scaled_dot_product_attention"


def test_a_small_entry_beside_a_huge_one_is_no_zero_and_must_be_answered():
    """Entries computed apart (columns of attention's output, rows of a softmax) are exact at
    any ratio: 999 beside 1e12, 0.3 beside 1e12, 1e290 beside 1e300 are numbers to answer."""
    for big, small in ((1e12, 999.0), (1e15, 1e6), (1e300, 1e290), (1e12, 0.3)):
        inputs = {"q": [[0.0]], "k": [[0.0], [0.0]], "v": [[big, 2 * small], [big, 0.0]]}
        for tolerance in ({"digits": 6}, {"digits": 3}, {"rtol": 0.0, "atol": 0.0}):
            assert not judged(SDPA, inputs, [[big, 0.0]], **tolerance).ok, (big, small)
        assert not judged(SDPA, inputs, [[big, 1.9 * small]], digits=3).ok
        assert judged(SDPA, inputs, [[big, small]]).ok
    masked = {
        "q": [[1.0, 0.0]],
        "k": [[1.0, 0.0], [0.0, 1.0]],
        "v": [[1e12, 0.3], [1e12, 0.7]],
        "mask": [[True, False]],
    }
    assert not judged(SDPA, masked, [[1e12, 0.0]]).ok
    rows = {"scores": [[0.1, 0.2], [1e12, 0.0]]}
    assert not judged("softmax", rows, [0.0, 0.0], ask={"output": "out", "row": 0}).ok
    assert not judged("softmax", rows, [[0.0, 0.0], [1.0, 0.0]]).ok


@pytest.mark.parametrize("gap", [709.0, 720.0, 745.0, 800.0, 1000.0])
def test_a_value_below_float64s_normal_range_is_refused_not_held(gap):
    """e^-709 .. e^-1000 is a number no answer can write (2e-313 is refused as an answer) and
    float64 keeps too few of its figures, or none: 0 for e^-800 had been verified, and 0 for
    e^-720 told to write 2.03223e-313 (a hostile round)."""
    for operation, inputs, ask in (
        ("softmax", {"scores": [[-gap, 0.0]]}, {"output": "out"}),
        ("softmax", {"scores": [[0.0, gap]]}, {"output": "out", "row": 0}),
        ("cross_entropy", {"logits": [-gap, 0.0], "targets": 1}, {"output": "grad"}),
    ):
        with pytest.raises(attention.EngineInputError, match="falls below 2.23e-308"):
            judged(operation, inputs, [[0.0, 1.0]], ask=ask)
    assert judged("softmax", {"scores": [[-700.0, 0.0]]}, [[9.85968e-305, 1.0]]).ok


def test_an_output_of_tiny_numbers_is_held_to_its_figures_not_taken_as_zeros():
    inputs = {"q": [[0.0]], "k": [[0.0], [0.0]], "v": [[8e-13, 6e-13], [8e-13, 6e-13]]}
    for wrong in ([[0.0, 0.0]], [[1e-13, 1e-13]]):
        assert not judged(SDPA, inputs, wrong).ok
    assert judged(SDPA, inputs, [[8e-13, 6e-13]]).ok
    tiny = {"x": [[1e-13]], "w_1": [[1.0]], "b_1": [0.0], "w_2": [[1.0]], "b_2": [0.0]}
    value = attention.evaluate("feed_forward", tiny, {"output": "out"}).tolist()
    assert 1e-14 < value[0][0] < 1e-12
    assert not judged("feed_forward", tiny, [[0.0]]).ok
    assert judged("feed_forward", tiny, value).ok


def test_an_exact_zero_computed_as_rounding_noise_is_answered_zero():
    """Softmax's gradient under a constant upstream gradient is exactly 0; summed in floats it
    comes out as noise, which the engine tells from a number by moving its inputs."""
    inputs = {"y": [0.1, 0.2, 0.3, 0.4], "grad_y": [0.7, 0.7, 0.7, 0.7]}
    ask = {"output": "grad_scores"}
    value = attention.evaluate("softmax_backward", inputs, ask)
    assert judged("softmax_backward", inputs, [0.0, 0.0, 0.0, 0.0], ask=ask).ok, value
    assert not judged("softmax_backward", inputs, [0.0, 0.0, 0.0, 1e-6], ask=ask).ok


def test_attention_cost_counts_are_compared_exactly_whatever_the_tolerance():
    inputs = {"seq_len": 4, "width": 8, "heads": 2}
    terms = attention.evaluate("attention_cost", inputs, {"output": "terms"})
    flops = attention.evaluate("attention_cost", inputs, {"output": "flops"})
    largest = max(terms.values())
    zeros = {name: 0 if count < largest else count for name, count in terms.items()}
    loose = {"rtol": 0.1, "atol": 0.1 * largest}
    result = compare(terms, zeros, **loose)
    assert not result.ok
    assert "a count is compared exactly" in result.message
    assert not compare(flops, int(flops) + 1, **loose).ok
    assert not compare(flops, int(flops) + 1, digits=3).ok
    assert compare(flops, float(flops), digits=3).ok


def test_a_count_past_2_to_the_53_is_compared_exactly_never_as_the_float_it_rounds_to():
    """7920000981600018092 and 7920000981600018592 are the same float64: an answer 500 off
    was verified "exactly (a count)". Written as an integer it is compared as one; written
    with a point past 2**53 no float can say which count it means."""
    inputs = {"seq_len": 300000007, "width": 16, "heads": 4}
    flops = attention.evaluate("attention_cost", inputs, {"output": "flops"})
    assert int(flops) == 7920000981600018592
    off = compare(flops, 7920000981600018092, digits=3)
    assert not off.ok
    assert off.message == (
        "7920000981600018092 is not 7920000981600018592: a count is compared exactly"
    )
    assert compare(flops, 7920000981600018592, digits=3).ok
    assert not compare(flops, 7920000981600018592.0, digits=3).ok
    assert not compare(flops, int(flops) + 1).ok
    answers = [7920000981600018092, 7920000981600018592, 7.920000981600018e18, int(flops) - 1]
    assert compare_each(flops, answers, digits=3) == [False, True, False, False]
    assert compare_each(12, [12, 12.0, 13, 12.5]) == [True, True, False, False]


def test_a_loose_tolerance_is_narrowed_to_half_a_unit_in_the_third_figure_of_each_entry():
    value = np.array([1.0, 0.012345])
    assert compare(value, [1.004, 0.01234], rtol=0.1, atol=0.0).ok
    refused = compare(value, [1.006, 0.01234], rtol=0.1, atol=0.0)
    assert not refused.ok and "1.006 is not 1 to 3 significant figures" in refused.message
    assert not compare(value, [1.0, 0.0124], rtol=0.1, atol=0.0).ok


@pytest.mark.parametrize(("answer", "ok"), [(0.269, True), (0.2685, True), (0.268, False)])
def test_three_figures_accept_what_rounds_to_the_value_and_nothing_further(answer, ok):
    assert compare(np.asarray(0.26894142), answer, digits=3).ok is ok


def test_more_figures_than_three_stay_as_tight_as_they_say():
    assert compare(np.asarray(0.26894142), 0.26894, digits=5).ok
    assert not compare(np.asarray(0.26894142), 0.2689, digits=5).ok


@pytest.mark.parametrize("offset", [1e13, 2e13, 1e14, 1e15])
def test_a_value_its_inputs_move_a_long_way_is_a_number_not_noise(offset):
    """The softmax of offset and offset + 1 is computed exactly at any offset; moved by 2^-44,
    such inputs move it all the way, and a hostile client had [[1, 0]] and [[0.5, 0.5]]
    verified for [[0.269, 0.731]]: a value the move swamps goes no further when moved further,
    as a rounding residue would, and is held to its figures."""
    scores = {"scores": [[offset, offset + 1]]}
    for wrong in ([[1.0, 0.0]], [[0.5, 0.5]], [[0.0, 0.731059]], [[0.0, 0.0]]):
        assert not judged("softmax", scores, wrong).ok, wrong
    assert judged("softmax", scores, [[0.269, 0.731]], digits=3).ok  # six figures: the
    # engine cannot settle them, as moving inputs this large past its grid says
    row = {"x": [[offset, offset + 1]]}
    for wrong in ([[5.0, 7.0]], [[1.0, -1.0]], [[0.0, 0.0]], [[0.3, -0.3]]):
        for tolerance in ({"digits": 6}, {"digits": 15}, {"rtol": 0.0, "atol": 0.0}):
            assert not judged("layer_norm", row, wrong, **tolerance).ok, (wrong, tolerance)
    assert judged("layer_norm", row, [[-0.99998, 0.99998]]).ok
    far = {"q": [[1e8]], "k": [[1e7], [1e7 + 1e-6]], "v": [[0.0], [1.0]]}
    assert not judged(SDPA, far, [[0.9]]).ok


def test_sums_that_cancel_at_ordinary_sizes_are_answered_zero():
    """Inputs all moved one way keep their ratios: a second sign pattern finds the residue."""
    relu = {"x": [[1.0]], "w_1": [[0.1, 0.2, 0.3]], "b_1": [0.0, 0.0, 0.0]}
    relu |= {"w_2": [[1.0], [1.0], [-1.0]], "b_2": [0.0], "activation": "relu"}
    assert judged("feed_forward", relu, [[0.0]]).ok
    assert not judged("feed_forward", relu, [[1e-6]]).ok
    cancelling = {"q": [[0.0]], "k": [[0.0]] * 3, "v": [[0.1], [0.2], [-0.3]]}
    assert judged(SDPA, cancelling, [[0.0]]).ok


@pytest.mark.parametrize("instance", range(6))
def test_causal_attention_gradients_through_identical_values_are_answered_zero(instance):
    """Rows of values moved alike by two sign patterns stay alike: a third, drawn apart, finds
    the residue (a tester's causal dq was refused 0 at four instances in eight)."""
    normal = {"generate": "normal"}
    inputs = {
        "q": normal | {"shape": [3, 4], "seed": 1},
        "k": normal | {"shape": [4, 4], "seed": 2},
        "v": normal | {"shape": [4, 2], "seed": 3, "mean": 0.3, "scale": 1e-9, "round": 1},
        "grad_out": normal | {"shape": [3, 2], "seed": 4},
        "causal": True,
    }
    operation, ask = "scaled_dot_product_attention_backward", {"output": "dq"}
    value = attention.evaluate(operation, inputs, ask, instance)
    zero = attention.noise_bounds(operation, inputs, ask, value, instance)
    assert compare(value, np.zeros((3, 4)), zero=zero, digits=6).ok
    assert not compare(value, np.full((3, 4), 1e-6), zero=zero, digits=6).ok


def test_exact_zeros_of_an_output_that_is_all_noise_are_answered_zero():
    """x - mean of a constant row, and the gradients of attention whose values are all alike,
    are exactly 0 and come out as noise; measured against the inputs, 0 is their answer."""
    assert judged("layer_norm", {"x": [0.1, 0.1, 0.1]}, [0.0, 0.0, 0.0]).ok
    backward = {
        "q": [[0.1, 0.7], [0.9, -0.3]],
        "k": [[0.2, 0.4], [-0.5, 0.8], [0.3, 0.3]],
        "v": [[0.1, 0.2]] * 3,
        "grad_out": [[1.0, 2.0], [3.0, -1.0]],
    }
    operation = "scaled_dot_product_attention_backward"
    for output in ("dq", "dk"):
        zeros = [[0.0, 0.0]] * (2 if output == "dq" else 3)
        assert judged(operation, backward, zeros, ask={"output": output}).ok, output


def test_norms_of_huge_rows_are_computed_not_overflowed_to_zero():
    assert judged("rms_norm", {"x": [1e200, 1e200]}, [1.0, 1.0]).ok
    assert not judged("rms_norm", {"x": [1e200, 1e200]}, [0.0, 0.0]).ok
    assert judged("layer_norm", {"x": [1e200, -1e200]}, [1.0, -1.0]).ok
    assert judged("layer_norm", {"x": [3e155, 1e155]}, [1.0, -1.0]).ok


def test_shown_figures_take_an_entry_rounded_as_printed_and_keep_zeros_and_counts_exact():
    value = np.array([0.2689414213699951, 0.0])
    assert not compare(value, [0.268941, 0.0], rtol=1e-6, atol=1e-9).ok
    assert compare(value, [0.268941, 0.0], rtol=1e-6, atol=1e-9, shown=6).ok
    refused = compare(value, [0.26894, 0.0], rtol=1e-6, atol=1e-9, shown=6)
    assert not refused.ok and refused.message.endswith("to 6 significant figures")
    assert not compare(value, [0.268941, 1e-7], rtol=1e-6, atol=1e-9, shown=6).ok  # 0 is 0
    assert not compare(np.array(1216), 1216.004, shown=6).ok  # a count is exact
    assert not compare(np.asarray(0.2689), 0.27, rtol=1e-6, atol=1e-9, shown=2).ok  # the floor
    loose = compare(np.asarray(1.0), 1.0006, rtol=5e-4, atol=0.0, shown=6)  # the looser rule
    assert not loose.ok and loose.message.endswith("within rtol=0.0005, atol=0")
    assert compare(np.asarray(1.0), 1.0004, rtol=5e-4, atol=0.0, shown=6).ok


@pytest.mark.parametrize(
    "value, answer",
    [
        (np.array([0.5, 2.0]), [0.5, 2.1]),
        ({"out": np.array([1.0]), "n": np.array(3)}, {"out": [1.0], "n": 4}),
    ],
)
def test_a_comparison_not_asked_to_explain_decides_alike_and_writes_no_message(value, answer):
    explained = compare(value, answer, digits=3)
    quiet = compare(value, answer, digits=3, explain=False)
    assert not explained.ok and explained.message
    assert (quiet.ok, quiet.max_abs_error, quiet.max_rel_error) == (
        explained.ok,
        explained.max_abs_error,
        explained.max_rel_error,
    )
    assert quiet.message == ""


def _answers_near(value: np.ndarray, draw_scales: list[float]) -> list[object]:
    """Answers a reader or a misconception might give for ``value``: nudged by each scale,
    rounded, of another shape, not finite, not numbers, named."""
    near: list[object] = [value * (1 + s) + s * 1e-9 for s in draw_scales]
    near += [np.round(value, 2), value.tolist(), np.zeros(value.shape + (1,)), [[1.0, 2.0], [3.0]]]
    near += [np.full(value.shape, np.nan), "0.5", {"out": 1.0}, value.astype(np.int64)]
    return near


@settings(max_examples=300, deadline=None)
@given(
    value=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
        elements=st.one_of(st.just(0.0), st.floats(-1e6, 1e6, allow_subnormal=False)),
    ),
    scales=st.lists(st.sampled_from([0.0, 1e-12, 1e-7, 4e-6, 1e-4, 5e-3, -2e-3, 0.5]), max_size=8),
    rule=st.sampled_from(
        [{"rtol": 1e-6, "atol": 1e-9}, {"rtol": 1e-3, "atol": 0.0}, {"digits": 4}, {"digits": 8}]
    ),
    shown=st.sampled_from([None, 3, 6]),
    counted=st.booleans(),
)
def test_compare_each_decides_every_answer_as_compare_does(value, scales, rule, shown, counted):
    """The misconceptions and the reader's answers are told apart in one pass: never otherwise
    than answer by answer."""
    value = np.round(value).astype(np.int64) if counted else value
    answers = _answers_near(np.asarray(value, dtype=np.float64), scales)
    one_by_one = []
    for answer in answers:
        try:
            one_by_one.append(compare(value, answer, **rule, shown=shown, explain=False).ok)
        except (TypeError, ValueError):
            one_by_one.append(False)
    assert attention.compare_each(value, answers, **rule, shown=shown) == one_by_one


def test_an_answer_of_zeros_that_is_wrong_has_no_finite_relative_error():
    """|v - 0| / 0: a mismatch had said its relative error was 0.0 beside an absolute one of
    1.5 (a verdict stores infinity as no value); zeros answered exactly are still 0.0."""
    wrong = compare(np.array([1.5, -0.5]), [0, 0], rtol=1e-6, atol=1e-9)
    assert not wrong.ok and wrong.max_abs_error == 1.5 and wrong.max_rel_error == math.inf
    right = compare(np.array([0.0, 0.0]), [0, 0], rtol=1e-6, atol=1e-9)
    assert right.ok and right.max_rel_error == 0.0
