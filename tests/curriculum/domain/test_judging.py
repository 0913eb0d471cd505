"""When a reader's answer is right: within the tolerance, or as a page prints the engine's value
(never looser than the engine's floor, an exact 0 still 0, a count still exact); and a reader
who gives the figures the page asks for is right."""

import math

import numpy as np
import pytest

from curriculum.domain.answer_tables import number
from curriculum.domain.judging import (
    figures_wanted,
    judged_words,
    reader_asks,
    reader_right,
    tolerance_of,
)
from curriculum.domain.placeholders import SHOWN_DIGITS
from curriculum.models import Problem

SOFTMAX = np.array([[0.2689414213699951, 0.7310585786300049, 0.0], [0.5, 0.0, 0.5]])
STRICT = {"rtol": 1e-6, "atol": 1e-9}


def printed(value):
    """A value typed back exactly as a page prints it."""
    return np.vectorize(lambda x: float(number(float(x))))(value).tolist()


def test_the_answer_a_page_prints_is_right_though_the_tolerance_is_tighter():
    assert printed(SOFTMAX) == [[0.268941, 0.731059, 0.0], [0.5, 0.0, 0.5]]
    assert reader_right(SOFTMAX, printed(SOFTMAX), STRICT)
    assert reader_right(SOFTMAX, [[0.2689414, 0.7310586, 0], [0.5, 0, 0.5]], STRICT)
    assert not reader_right(SOFTMAX, [[0.26894, 0.73106, 0], [0.5, 0, 0.5]], STRICT)  # 5 figures
    assert not reader_right(SOFTMAX, [[0.268942, 0.731059, 0], [0.5, 0, 0.5]], STRICT)  # misrounded


@pytest.mark.parametrize(
    "tolerance", [STRICT, {"rtol": 1e-12, "atol": 0.0}, {"rtol": 0.0, "atol": 1e-15}, {"digits": 9}]
)
def test_every_printed_value_is_right_whatever_the_tolerance(tolerance):
    rng = np.random.default_rng(21)
    for scale in (1e-7, 1e-3, 1.0, 7.0, 1e4, 1e9):
        value = rng.uniform(-1, 1, size=(40, 5)) * scale
        assert reader_right(value, printed(value), tolerance), (scale, tolerance)


def test_an_exact_zero_is_still_answered_zero_and_a_count_exactly():
    half_unit_at_six = 5e-6  # what SHOWN_DIGITS figures would allow beside a 1
    assert not reader_right(np.array([1.0, 0.0]), [1.0, half_unit_at_six / 2], STRICT)
    assert not reader_right(np.array(1216), 1216.004, STRICT)  # 1216.00 to 6 figures
    assert reader_right(np.array(1216), 1216, STRICT)
    assert reader_right(np.array(1_572_864), float(number(1_572_864)), STRICT)  # printed whole
    assert number(1_572_864) == "1572864" and number(0.2689414213699951) == "0.268941"


def test_never_looser_than_the_tolerance_where_it_is_looser_than_the_printed_figures():
    assert reader_right(np.array(0.2689414), 0.2689, {"digits": 4})
    assert not reader_right(np.array(0.2689414), 0.269, {"digits": 4})
    assert reader_right(np.array(1.0), 1.0004, {"rtol": 5e-4, "atol": 0.0})
    assert not reader_right(np.array(1.0), 1.0006, {"rtol": 5e-4, "atol": 0.0})


@pytest.mark.parametrize(
    ("tolerance", "figures"),
    [
        (STRICT, 6),
        ({"rtol": 1e-12, "atol": 0.0}, 6),
        ({"rtol": 5e-4, "atol": 0.0}, 4),
        ({"rtol": 1e-4, "atol": 1e-9}, 5),
        ({"rtol": 0.0, "atol": 1e-9}, 6),
        ({"digits": 4}, 4),
        ({"digits": 3}, 3),
        ({"digits": 11}, 6),
    ],
)
def test_a_reader_who_gives_the_figures_asked_for_is_right(tolerance, figures):
    assert figures_wanted(tolerance) == figures
    rng = np.random.default_rng(figures)
    value = rng.uniform(-1, 1, size=2000) * 10.0 ** rng.integers(-6, 6, size=2000)
    rounded = [float(f"{x:.{figures}g}") for x in value]
    assert reader_right(value, rounded, tolerance)
    if figures > 3 and "digits" in tolerance:  # one figure fewer is not always enough
        assert not reader_right(value, [float(f"{x:.{figures - 1}g}") for x in value], tolerance)


def test_the_page_says_how_many_figures_and_a_count_is_exact():
    softmax = {"operation": "softmax", "tolerance": STRICT}
    assert reader_asks(softmax).startswith(f"Give {SHOWN_DIGITS} significant figures")
    assert "rtol 1e-06" in judged_words(softmax)
    assert reader_asks({"operation": "softmax", "tolerance": {"digits": 4}}).startswith(
        "Give 4 significant figures"
    )
    count = {"operation": "attention_cost", "tolerance": STRICT}
    assert judged_words(count) == "exactly (a count)"
    assert "rtol" not in reader_asks(count) and "exactly" in reader_asks(count)


def test_the_words_say_the_floor_the_rule_applies_whatever_rtol_and_atol_say():
    """At rtol 0, atol 50 an instance whose value is 417.5 takes 417.6 and not 460 (the third
    figure's half unit, 0.5, is tighter than 50): the reader is told that rule, not atol 50."""
    wide = {"rtol": 0.0, "atol": 50.0}
    assert not reader_right(np.array(417.5), 460, wide)
    assert reader_right(np.array(417.5), 417.6, wide)
    assert reader_asks({"operation": "softmax", "tolerance": wide}) == (
        "Give 6 significant figures (as many as the page prints): every entry is checked within "
        "rtol 0, atol 50 but never looser than 3 significant figures, or to the 6 significant "
        "figures printed; an entry that is 0 is answered 0."
    )


def test_one_function_reads_a_tolerance_from_a_problem_a_snapshot_and_a_file():
    stored = Problem(operation="softmax", rtol=1e-6, atol=1e-9, digits=None)
    assert tolerance_of(stored) == tolerance_of({"tolerance": STRICT}) == tolerance_of(STRICT)
    assert tolerance_of(Problem(digits=4, rtol=0.0, atol=0.0)) == {"digits": 4}
    assert tolerance_of({"digits": 4, "rtol": 1e-6, "atol": 0.0}) == {"digits": 4}
    assert math.isclose(tolerance_of({"tolerance": {"rtol": 1e-6}})["rtol"], 1e-6)
