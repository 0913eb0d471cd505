"""Chapter files: generated inputs and tolerance modes are kept as written, checked with paths."""

import pytest
import yaml

import attention
from curriculum.domain.chapter_files import ChapterFileError, chapter_export, chapter_import
from curriculum.models import Problem
from tests.conftest import problem, sketch

pytestmark = pytest.mark.django_db

GENERATOR = {"generate": "uniform", "shape": [2, 3], "low": -1, "high": 1, "round": 1, "seed": 5}


def generated(key="p1", **changes):
    return problem(key, "worked") | {"inputs": {"scores": GENERATOR}} | changes


def test_export_keeps_the_generator_not_the_numbers(books):
    chapter_import(document=sketch(problems=[generated()]))
    exported = yaml.safe_load(chapter_export(code="II.7"))
    assert exported["problems"][0]["inputs"] == {"scores": GENERATOR}


def test_a_bad_generator_is_refused_with_its_path(books):
    bad = generated(inputs={"scores": GENERATOR | {"shape": [2, -3], "generate": "uniform"}})
    with pytest.raises(ChapterFileError) as raised:
        chapter_import(document=sketch(problems=[bad]))
    assert any(
        e.startswith("problems[0].inputs.scores.shape: expected a list of positive")
        for e in raised.value.errors
    )


@pytest.mark.parametrize(
    ("answer", "digits"),
    [
        ([[0.2689, 0.7311]], 4),  # worked by hand to 4 figures: checked to 4
        ([[0.26894, 0.73106]], 5),
        ([[0.2689414213699951, 0.7310585786300049]], 6),  # at most what a reader page shows
        ([[0.5, 0.5]], 3),  # at least 3
    ],
)
def test_a_problem_without_a_tolerance_checks_the_figures_its_answer_is_written_to(
    books, answer, digits
):
    without = problem("p1", "worked", scores=[[0.0, 1.0]], answer=answer)
    del without["tolerance"]
    chapter_import(document=sketch(problems=[without]))
    assert Problem.objects.get(chapter__code="II.7", key="p1").digits == digits
    exported = yaml.safe_load(chapter_export(code="II.7"))
    assert exported["problems"][0]["tolerance"] == {"digits": digits}


def test_a_problem_without_a_tolerance_or_an_answer_gets_the_shown_digits(books):
    unsolved = problem("p1", "worked")
    del unsolved["tolerance"], unsolved["solution"]
    chapter_import(document=sketch(problems=[unsolved]))
    assert Problem.objects.get(chapter__code="II.7", key="p1").digits == 6


def test_rtol_and_atol_stay_a_mode_of_their_own(books):
    chapter_import(document=sketch(problems=[problem("p1", "worked")]))
    stored = Problem.objects.get(chapter__code="II.7", key="p1")
    assert (stored.digits, stored.rtol, stored.atol) == (None, 1e-6, 1e-9)
    exported = yaml.safe_load(chapter_export(code="II.7"))
    assert exported["problems"][0]["tolerance"] == {"rtol": 1e-6, "atol": 1e-9}


@pytest.mark.parametrize(
    ("tolerance", "error"),
    [
        ({"digits": 0}, "tolerance.digits: from 3 to 15, got 0"),
        ({"digits": 16}, "tolerance.digits: from 3 to 15, got 16"),
        ({"digits": 4, "rtol": 0.1}, "tolerance.rtol: unknown key (allowed: digits)"),
        ({"digits": "4"}, "tolerance.digits: expected a whole number"),
    ],
)
def test_a_bad_digits_tolerance_says_what_is_wrong(books, tolerance, error):
    with pytest.raises(ChapterFileError) as raised:
        chapter_import(
            document=sketch(problems=[problem("p1", "worked") | {"tolerance": tolerance}])
        )
    assert any(e.startswith(f"problems[0].{error}") for e in raised.value.errors), raised.value


# ------------------------------------------------ no tolerance a file may state accepts anything


def test_a_file_asking_for_one_significant_figure_is_refused_naming_the_rule(books):
    single = problem("p1", "worked", scores=[[3.0]], answer=[[0.5]]) | {"tolerance": {"digits": 1}}
    with pytest.raises(ChapterFileError) as raised:
        chapter_import(document=sketch(problems=[single]))
    assert (
        "problems[0].tolerance.digits: from 3 to 15, got 1: fewer significant figures accept "
        "answers a reader would call wrong (0.5 for 1)"
    ) in raised.value.errors


def test_an_rtol_looser_than_half_a_unit_in_the_third_figure_is_refused(books):
    loose = problem("p1", "worked") | {"tolerance": {"rtol": 0.1, "atol": 1e-9}}
    with pytest.raises(ChapterFileError) as raised:
        chapter_import(document=sketch(problems=[loose]))
    assert any(
        e.startswith("problems[0].tolerance.rtol: at most 0.0005, got 0.1: a wider rtol accepts")
        for e in raised.value.errors
    ), raised.value.errors


def test_an_atol_that_would_accept_zero_for_a_cost_term_is_refused(books):
    inputs = {"seq_len": 4, "width": 8, "heads": 2}
    terms = attention.evaluate("attention_cost", inputs, {"output": "terms"})
    largest = max(terms.values())
    cost = problem("p1", "worked") | {
        "operation": "attention_cost",
        "inputs": inputs,
        "ask": {"output": "terms"},
        "tolerance": {"rtol": 0, "atol": 0.1 * largest},
        "solution": {"answer": dict(terms), "published": True},
    }
    with pytest.raises(ChapterFileError) as raised:
        chapter_import(document=sketch(problems=[cost]))
    [error] = [e for e in raised.value.errors if ".tolerance.atol" in e]
    assert error.startswith("problems[0].tolerance.atol: at most ")
    assert "half a unit in its third significant figure" in error


def test_a_tolerance_within_the_rule_is_accepted(books):
    within = problem("p1", "worked") | {"tolerance": {"rtol": 5e-4, "atol": 1e-6}}
    chapter_import(document=sketch(problems=[within, problem("p2") | {"tolerance": {"digits": 3}}]))
    assert Problem.objects.filter(chapter__code="II.7").count() == 2
