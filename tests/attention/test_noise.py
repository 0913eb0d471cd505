"""Float noise decided in extended precision: an exact 0 computed inexactly is answered 0, a
value large terms cancel to is a number, and where float64 cannot settle it the engine says so.

Each case is judged as verdicts and reader checks judge (`judged`): the engine's value, its
noise bounds, then the comparison. Exact values come from fractions of the float64 inputs.
"""

from fractions import Fraction

import numpy as np
import pytest

import attention
from tests.attention.test_compare import SDPA, judged

BACKWARD = "scaled_dot_product_attention_backward"
QK_PAST_2_53 = {"q": [[2**30, 1]], "k": [[2**30, 1], [2**30, 0]], "v": [[2**40], [0]]}


def outcome(operation, inputs, answer, ask="out", **tolerance):
    """True or False as `judged` decides, or the engine's refusal when it cannot settle it."""
    try:
        return judged(operation, inputs, answer, {"output": ask}, **tolerance).ok
    except attention.EngineInputError as error:
        return str(error)


def averaged(values):
    """Attention with q = 0 over equal keys: the exact mean of ``values`` (floats as stored)."""
    inputs = {"q": [[0.0]], "k": [[1.0]] * len(values), "v": [[v] for v in values]}
    return inputs, float(sum(map(Fraction, values)) / len(values))


@pytest.mark.parametrize("terms", [1e3, 1e7, 1e9, 1e12, 1e15])
@pytest.mark.parametrize("left", [1e-9, 1e-6, 1e-4, 0.01, 1.0, 100.0])
@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize("tolerance", [{"digits": 6}, {"digits": 3}])
def test_what_large_terms_cancel_to_is_judged_right_or_refused_never_guessed(
    terms, left, count, tolerance
):
    """A hostile author had 0 verified for an exact 1, 0.0100098 and 1e-4 that terms of 1e9 to
    1e15 cancel to. Whatever is left, no wrong answer is verified: the exact value is, or the
    engine says it cannot settle it to the figures asked. Only a value within the inputs' own
    rounding of 0 (the inputs as written, read into binary) is answered 0."""
    if terms + left == terms:
        pytest.skip("nothing is left")
    inputs, exact = averaged([terms + left, -terms] + [0.0] * (count - 2))
    read = 2.0**-53 * terms  # about what reading the inputs into binary moves the value by
    verdicts = [outcome(SDPA, inputs, [[answer]], **tolerance) for answer in (exact, 0.0)]
    wrong = outcome(SDPA, inputs, [[2 * exact + read]], **tolerance)
    if isinstance(verdicts[0], str):  # refused, and no other answer verified
        assert "the engine cannot" in verdicts[0] and verdicts[1] is not True
        assert wrong is not True
        return
    if abs(exact) > 8 * read:  # a number: neither 0 nor a wrong answer is verified
        assert verdicts[1] is not True and wrong is not True
    elif abs(exact) < read / 8:  # noise: 0 is its answer
        assert verdicts[1] is True


@pytest.mark.parametrize(
    ("values", "answer"),
    [([1e15 + 1, -1e15], 0.5), ([1e15 + 2, -1e15], 1.0), ([1e9 + 0.25, -1e9], 0.125)],
)
def test_exact_values_large_terms_cancel_to_are_numbers_to_answer(values, answer):
    """Moved, these move as a rounding residue does; computed in extended precision they are
    what they are, or the engine says it cannot tell (longdouble's own roundings, as moving
    terms of 1e15 measures them, may reach the third figure). 0, 7 and -3 were verified for
    the first, 0 for the others."""
    inputs, exact = averaged(values)
    for tolerance in ({"digits": 6}, {"digits": 3}):  # or the engine says it cannot
        right = outcome(SDPA, inputs, [[exact]], **tolerance)
        assert right is True or "the engine cannot" in right
    for wrong in (0.0, 7.0, -3.0, 2 * exact):
        assert outcome(SDPA, inputs, [[wrong]]) is not True, wrong


def test_a_value_reading_its_inputs_moves_past_its_third_figure_is_refused_not_compared():
    """(1000.00000000001 - 1000) / 3 is 3.3333e-12 as written; reading 1000.00000000001 into
    binary moves it in the third figure (float64 leaves 3.3533e-12), which the engine says
    rather than hold an answer to it."""
    inputs, _ = averaged([1e3 + 1e-11, -1e3, 0.0])
    refused = outcome(SDPA, inputs, [[3.3333e-12]])
    assert "cannot compute the value[0, 0] at these magnitudes: reading its inputs" in refused


def test_a_value_reading_its_inputs_moves_past_six_figures_is_refused():
    """A hostile tester had layer_norm of [2000000, 2000000.0000001, 2000000.0000003] answered
    with float64's [-1.07, -0.268, 1.34] verified: read into binary, those inputs move the
    value in its third figure (as written it is [-1.069, -0.267, 1.336])."""
    inputs = {"x": [2000000, 2000000.0000001, 2000000.0000003], "eps": 1e-300}
    for answer in ([-1.07, -0.268, 1.34], [-1.07, -0.267, 1.34]):
        refused = outcome("layer_norm", inputs, answer, digits=3)
        assert "at these magnitudes: reading its inputs into binary" in refused, answer


@pytest.mark.parametrize(
    ("operation", "inputs"),
    [
        (SDPA, {"q": [[0.0]], "k": [[0.0]] * 3, "v": [[1e15 + 0.3], [-1e15], [-0.3]]}),
        ("softmax_backward", {"y": [[0.5, 0.5]], "grad_y": [[1e15, 1e15 + 0.125]]}),
    ],
)
def test_values_inputs_written_past_float64_decide_are_refused_not_guessed(operation, inputs):
    """1e15 + 0.3 is read as 1e15 + 0.25: reading and rounding the inputs may leave these some
    0.04 from what the inputs as written make them, and the engine says it cannot tell."""
    ask = {"output": "out" if operation == SDPA else "grad_scores"}
    value = attention.evaluate(operation, inputs, ask)
    with pytest.raises(attention.EngineInputError, match="cannot tell .* from 0 at these"):
        attention.noise_bounds(operation, inputs, ask, value)


@pytest.mark.parametrize("gradient", [1e12, 1e15])
def test_noise_too_wide_for_0_to_mean_0_is_refused_not_guessed(gradient):
    """Under a constant upstream gradient of 1e12 the gradient of a softmax row printed to 17
    figures is 0 (the row sums to 1 but for its printing), and reading it may leave it 4e-4
    from 0: no answer of 0 within that says it is 0."""
    y = attention.evaluate("softmax", {"scores": [[1.0, 2.0, 3.0]]}, {"output": "out"}).tolist()
    inputs = {"y": y, "grad_y": [[gradient] * 3]}
    ask = {"output": "grad_scores"}
    value = attention.evaluate("softmax_backward", inputs, ask)
    with pytest.raises(attention.EngineInputError, match="cannot tell .* from 0 at these"):
        attention.noise_bounds("softmax_backward", inputs, ask, value)


def test_gradients_through_identical_keys_and_values_are_answered_zero():
    """dq through identical key rows and identical value rows is exactly 0; the engine leaves
    1e-16 (or 0: it depends on the BLAS kernel the CPU picks), and moved inputs move it only at
    second order (both rows must part), so float64 alone refused 0."""
    inputs = {
        "q": [[-0.7, 0.7], [0.7, -1.5], [0.9, 1.4]],
        "k": [[1.0, -1.0]] * 3,
        "v": [[0.5, 1.5]] * 3,
        "grad_out": [[0.2, -0.1], [0.8, -1.5], [0.1, 1.1]],
    }
    assert outcome(BACKWARD, inputs, [[0.0, 0.0]] * 3, "dq") is True
    assert outcome(BACKWARD, inputs, [[1e-6, 0.0]] + [[0.0, 0.0]] * 2, "dq") is False


@pytest.mark.parametrize("seed", range(8))
def test_weight_gradients_through_identical_rows_are_answered_zero(seed):
    """multi_head_attention_backward with every row of x alike: dw_q and dw_k are exactly 0
    (22 of 24 such cases were refused 0)."""
    rng = np.random.default_rng(seed)
    rows, width = int(rng.integers(2, 5)), 4
    inputs = {
        "x": [rng.normal(size=width).round(1).tolist()] * rows,
        **{w: rng.normal(size=(width, width)).round(1).tolist() for w in ("w_q", "w_k", "w_v")},
        "w_o": rng.normal(size=(width, width)).round(1).tolist(),
        "heads": 2,
        "grad_out": rng.normal(size=(rows, width)).round(1).tolist(),
    }
    for output in ("dw_q", "dw_k"):
        zeros = np.zeros((width, width))
        assert outcome("multi_head_attention_backward", inputs, zeros, output) is True, output
        zeros[0, 0] = 1e-6
        assert outcome("multi_head_attention_backward", inputs, zeros, output) is False, output


@pytest.mark.parametrize("gradient", [1.0, 100.0])
def test_softmax_gradient_under_a_constant_upstream_gradient_is_answered_zero(gradient):
    """y sums to 1 as written, not in binary (0.4999999999 + 1e-10 + 0.5): the gradient is 0 as
    written, 4e-18 in binary, and a tester's identity was refused as 'cannot tell'."""
    y = [[1e-10, 0.9999999999], [1e-10, 0.5], [0.1, 0.2]]
    y[1].append(0.4999999999)
    y[2].append(0.7)
    y[0].append(0.0)
    inputs = {"y": y, "grad_y": [[gradient] * 3] * 3}
    zeros = np.zeros((3, 3))
    assert outcome("softmax_backward", inputs, zeros, "grad_scores") is True
    zeros[2, 2] = 1e-6 * gradient
    assert outcome("softmax_backward", inputs, zeros, "grad_scores") is False


def test_an_exact_zero_float64_rounds_a_number_to_is_refused_not_verified():
    """(1e16 + 1 - 1e16) / 3 rounds to a float64 0.5 or 0 while it is 1/3: no 0 is verified."""
    inputs, exact = averaged([1e16, 1.0, -1e16])
    assert exact == pytest.approx(1 / 3)
    for answer in (0.0, exact):
        assert "the engine cannot" in outcome(SDPA, inputs, [[answer]])


def test_a_value_too_large_for_the_extended_run_is_refused_where_in_doubt(monkeypatch):
    """Longdouble has no BLAS: past EXTENDED_WORK an entry in doubt is refused, not guessed,
    and one well clear of its inputs' moves is still a number."""
    monkeypatch.setattr("attention.reruns.EXTENDED_WORK", 0)
    inputs, _ = averaged([0.1, 0.2, -0.3])
    assert "too large to compute again in extended precision" in outcome(SDPA, inputs, [[0.0]])
    clear = {"q": [[0.0]], "k": [[0.0]] * 2, "v": [[1e-9], [1e3]]}
    assert outcome(SDPA, clear, [[500.0]]) is True


@pytest.mark.parametrize("gradient", [1.0, 100.0, 1e4])
def test_a_softmax_row_printed_to_17_figures_has_gradient_0_under_a_constant_gradient(gradient):
    """As written the row sums to 0.9999999999999999: its gradient is 0 but for the printing,
    which reading it into binary moves as much, so 0 is its answer."""
    y = attention.evaluate(
        "softmax", {"scores": [[1.0, 2.0, 3.0], [0.5, -1, 2]]}, {"output": "out"}
    )
    inputs = {"y": y.tolist(), "grad_y": [[gradient] * 3] * 2}
    zeros = np.zeros((2, 3))
    assert outcome("softmax_backward", inputs, zeros, "grad_scores") is True
    zeros[0, 0] = 1e-9 * gradient
    assert outcome("softmax_backward", inputs, zeros, "grad_scores") is False


@pytest.mark.parametrize("scores", [[2e14, 2e14 - 20], [3e13, 3e13 - 20], [5e14, 5e14 - 20]])
def test_a_number_large_exact_scores_make_is_held_to_its_figures(scores):
    """Scores binary holds as written are not moved: e^-20 from scores of 2e14 is 2.06e-9, and a
    hostile tester had 0, and 1e-5 under three figures, verified for it."""
    inputs = {"scores": [scores] * 50}
    value = attention.evaluate("softmax", inputs, {"output": "out"})
    assert value[0, 1] == pytest.approx(2.0611536e-9)
    for wrong in (0.0, 1e-5, 4e-4):
        answer = value.copy()
        answer[17, 1] = wrong
        assert outcome("softmax", inputs, answer, digits=3) is False, wrong
    loss = {"logits": [scores], "targets": [0]}
    assert outcome("cross_entropy", loss, 2.0611536e-9, "loss", digits=3) is True
    assert outcome("cross_entropy", loss, 0.0, "loss", digits=3) is False


def test_an_accidental_speck_float64_cannot_compute_beside_large_entries_is_noise():
    """Multi-head attention on small whole numbers leaves, one problem in seventy, an entry of
    about 1e-13 beside entries of 10 that float64 computes off in its second figure: within
    2^-40 of its output's largest entry, the band an exact 0 there is given, it is noise (0 and
    float64's value are answers), not an error blocking an ordinary problem."""
    rng = np.random.default_rng(0)
    for _ in range(22):  # problem 22 of bench/verify's: -6.68e-14 beside entries of 10
        inputs = {
            name: rng.integers(-2, 3, size=(4, 8) if name == "x" else (8, 8)).tolist()
            for name in ("x", "w_q", "w_k", "w_v", "w_o")
        }
    inputs = {
        name: rng.integers(-2, 3, size=(4, 8) if name == "x" else (8, 8)).tolist()
        for name in ("x", "w_q", "w_k", "w_v", "w_o")
    } | {"heads": 2}
    value = attention.evaluate("multi_head_attention", inputs, {"output": "out"})
    assert 0 < abs(value[0, 1]) < 1e-12 < 1 < np.max(np.abs(value))
    assert outcome("multi_head_attention", inputs, value) is True
    speck = value.copy()
    speck[0, 1] = 0.0
    assert outcome("multi_head_attention", inputs, speck) is True
    speck[0, 0] *= 1.001
    assert outcome("multi_head_attention", inputs, speck) is False


def test_zeros_in_extended_precision_too_are_refused_where_their_terms_are_too_large():
    """1e20 + 1 - 1e20 is 1, and float64 and longdouble alike leave 0: reading inputs of 1e20
    moves it further than any 0 means, so the engine says it cannot tell (0 was verified)."""
    inputs = {"x": [[1e20, 1, -1e20]], "w_1": [[1], [1], [1]], "b_1": [0], "w_2": [[1]]}
    inputs |= {"b_2": [0], "activation": "relu"}
    refused = outcome("feed_forward", inputs, [[0.0]])
    assert "cannot tell the value[0, 0] from 0 at these magnitudes" in refused


@pytest.mark.parametrize(
    ("operation", "inputs"),
    [
        (SDPA, {"q": [[0.1]], "k": [[1e15], [1e15 + 0.5]], "v": [[1e16], [0]]}),
        ("layer_norm", {"x": [1e12, 1e12 + 0.001, 1e12 + 0.003], "gamma": [1e13] * 3}),
    ],
)
def test_a_large_entry_float64_computes_off_is_never_verified(operation, inputs):
    """A large factor lifted these clear of any doubt, and float64's value, 0.64% and 8% off,
    was verified (a third hostile round): the value held is the extended run's (scores of
    1e14 and 1e14 + 0.05 are what 0.1 reads as), or, where reading the inputs moves it past its
    third figure (1e12 + 0.001 is 1e12 + 0.00098 in binary), the engine says it cannot."""
    value = attention.evaluate(operation, inputs, {"output": "out"})
    assert np.max(np.abs(value)) > 1e12  # nothing small: no entry is in doubt by its size
    assert outcome(operation, inputs, value, digits=3) is not True


def test_a_number_float64_computes_off_beside_1e15_is_no_speck_and_no_band_passes_2_to_the_12():
    """e^-6.36 = 0.0017 beside 1e15, which float64 leaves 3.4e-4, was taken as noise with a
    band of 909 (2^-40 of 1e15), and 500 and -800 were verified (a fourth hostile round); it is
    a number, held at the extended run's value."""
    inputs = {"q": [[1e17, 1.0]], "k": [[1.0, 0.0], [1.0, -9.0]], "v": [[1e15, 0.0], [1e15, 1.0]]}
    exact = float(1 / (1 + np.exp(np.longdouble(9) / np.sqrt(np.longdouble(2)))))
    for digits in (3, 6):  # the extended run's value, or an honest refusal
        right = outcome(SDPA, inputs, [[1e15, exact]], digits=digits)
        assert right is True or "the engine cannot" in right
    assert outcome(SDPA, inputs, [[1e15, 500.0]]) is not True
    wide = {"q": [[0.0]], "k": [[1.0]] * 2, "v": [[1e15, 0.0], [1e15, 0.0]]}
    value = attention.evaluate(SDPA, wide, {"output": "out"})
    assert noise_of(SDPA, wide)[0, 1] <= 2.0**-12 and value[0, 1] == 0
    assert outcome(SDPA, wide, [[1e15, 0.0002]]) is True
    for wrong in (0.001, 500.0):
        assert outcome(SDPA, wide, [[1e15, wrong]]) is False


@pytest.mark.parametrize(
    ("operation", "inputs", "at", "exact"),
    [
        (SDPA, QK_PAST_2_53, (0, 0), 7.316e11),
        (
            "multi_head_attention",
            {"x": [[2**15, 1], [2**15, 0]], "w_q": [[2**15, 0], [0, 1]], "heads": 1}
            | {
                "w_k": [[2**15, 0], [0, 1]],
                "w_v": [[2**20, 0], [0, 2**20]],
                "w_o": [[1, 0], [0, 1]],
            },
            (0, 1),
            697733.5,
        ),
    ],
)
def test_whole_numbers_whose_products_pass_2_to_the_53_are_refused_not_verified(
    operation, inputs, at, exact
):
    """Exact inputs no reading rounds, and nothing small: 2^30 * (2^30 + 1) rounds to 2^60 in
    float64, a score difference of 1 becomes 0, and float64's value, a quarter off, was
    verified. The extended run holds the value answers are held against, and is checked in turn
    by moving every number past longdouble's own grid: past 2^64 its products round too."""
    value = attention.evaluate(operation, inputs, {"output": "out"})
    assert value[at] != pytest.approx(exact, rel=0.1)
    right = value.copy()
    right[at] = exact
    for answer in (value, right):
        refused = outcome(operation, inputs, answer, digits=3)
        assert "its terms cancel past extended precision too" in refused


def test_a_value_too_large_for_the_extended_run_is_refused_where_float64_may_round_it(monkeypatch):
    """Past EXTENDED_WORK nothing can check float64's own roundings: an entry the screening run
    finds they could move past its third figure is refused, not guessed."""
    monkeypatch.setattr("attention.reruns.EXTENDED_WORK", 0)
    value = attention.evaluate(SDPA, QK_PAST_2_53, {"output": "out"})
    refused = outcome(SDPA, QK_PAST_2_53, value)
    assert "cannot settle the value[0, 0]" in refused and "too large to compute again" in refused


def noise_of(operation, inputs, ask="out"):
    value = attention.evaluate(operation, inputs, {"output": ask})
    return attention.noise_bounds(operation, inputs, {"output": ask}, value)


def test_an_exact_number_is_no_noise_for_a_neighbour_float64_computes_off():
    """out[1, 1] is exactly -2.5e-4, and float64 has it to twelve figures; out[0, 0], which
    float64 leaves 0.12 off, lent it a band of 2e-3 and 0 and +-0.0015 were verified (a sixth
    hostile round)."""
    n = 2**27
    inputs = {"q": [[n, 1, 0, 0], [0, 1, 1.001, 0]], "k": [[n, 1, 0, 14], [n, 0, 1, 14]]}
    inputs |= {"v": [[2, 1], [1, -1]]}
    ask = {"output": "out"}
    held = attention.settled(SDPA, inputs, ask, attention.evaluate(SDPA, inputs, ask))[0]
    assert outcome(SDPA, inputs, held, digits=3) is True
    for wrong in (0.0, 0.0015, -0.0015):
        answer = [[held[0, 0], held[0, 1]], [held[1, 0], wrong]]
        assert outcome(SDPA, inputs, answer, digits=3) is not True, wrong


@pytest.mark.parametrize(
    ("operation", "inputs", "at"),
    [  # an angle of 1e9 radians, or one a base near 1 makes: no move of x reaches it
        ("rope", {"x": [[0, 0, 0.42778359026921245, -0.9038811868251173]], "base": 2}, (0, 2)),
        ("sinusoidal_positions", {"seq_len": 11, "width": 4, "base": 1.1257909293593085}, (10, 2)),
    ],
)
def test_an_entry_an_angle_s_rounding_decides_is_refused_not_verified(operation, inputs, at):
    """sin of an angle near a multiple of pi is as far off as the angle: rope with offset
    999999937 held -1.00925e-9 for -1e-9, and a position table computed in float64 alone
    3.67e-16 for -4.35e-16, both verified (a sixth hostile round)."""
    if operation == "rope":
        inputs = inputs | {"offset": 999999937}
    value = attention.evaluate(operation, inputs, {"output": "out"})
    assert abs(value[at]) < 1e-6 < np.max(np.abs(value))
    refused = outcome(operation, inputs, value, digits=3)
    assert isinstance(refused, str) and "the engine cannot" in refused


def test_moves_crafted_to_cancel_under_one_pattern_are_caught_by_another():
    """k[:, 3] is harmless (q[:, 3] is 0) and only changes the inputs' hash: an author tried
    values until the one move of k[0][0] and k[1][0] cancelled, and float64's 5.5e11 was
    verified for 7.364e11 (a sixth hostile round)."""
    n = 2**33
    inputs = {"q": [[n, 1, 0, 0]], "k": [[n, 1, 0, 237], [n, 0, 0, 237]], "v": [[2**40], [0]]}
    value = attention.evaluate(SDPA, inputs, {"output": "out"})
    assert outcome(SDPA, inputs, value, digits=3) is not True


@pytest.mark.parametrize("y", [[0.2] * 5, [0.6, 0.3, 0.1], [0.4, 0.4, 0.2]])
def test_the_softmax_gradient_of_a_decimal_row_under_a_constant_gradient_is_answered_zero(y):
    """Written so, the row sums to 1 and the gradient is 0; float64 leaves 0 where longdouble
    leaves 1e-17, which reading 0.2 moves as far: 0 is its answer (3% of such rows were
    refused)."""
    inputs = {"y": [y], "grad_y": [[3.0] * len(y)]}
    assert outcome("softmax_backward", inputs, [[0.0] * len(y)], "grad_scores") is True


@pytest.mark.parametrize(
    "scores", [[[10**20, 10**20 + 1]], [[2**64, 2**64 + 1]], [[1e20, 10**20 + 1]]]
)
def test_whole_numbers_past_int64_are_read_as_the_floats_they_round_to(scores):
    """numpy holds 10**20 as an object, which the extended run did not widen nor the moves
    move: float64's [0.5, 0.5] was verified for [0.269, 0.731] (a seventh hostile round). Read,
    both round to one float, and the engine says it cannot tell."""
    for answer in ([[0.5, 0.5]], [[0.269, 0.731]]):
        assert "the engine cannot" in outcome("softmax", {"scores": scores}, answer, digits=3)


def test_a_value_written_to_its_last_figure_beside_terms_of_1e12_is_no_zero():
    """4000000000000.0005 - 4e12 is 0.0005 as written, which reading moves by 4.4e-4: a band
    of 2^-8 verified 0, and -0.0005 (a seventh hostile round)."""
    inputs = {"x": [[4000000000000.0005]], "w_1": [[1]], "b_1": [-4e12], "w_2": [[1]]}
    inputs |= {"b_2": [0], "activation": "relu"}
    for answer in (0.0, -0.0005):
        assert outcome("feed_forward", inputs, [[answer]], digits=3) is not True
