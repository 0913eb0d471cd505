"""Chapter files: generated inputs and tolerance modes are kept as written, checked with paths."""

import pytest
import yaml

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
    assert any(e.startswith("problems[0].inputs.scores.shape: expected a list of positive")
               for e in raised.value.errors)


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
        ({"digits": 0}, "tolerance.digits: must be at least 1, got 0"),
        ({"digits": 16}, "tolerance.digits: must be at most 15, got 16"),
        ({"digits": 4, "rtol": 0.1}, "tolerance.rtol: unknown key (allowed: digits)"),
        ({"digits": "4"}, "tolerance.digits: expected a whole number"),
    ],
)
def test_a_bad_digits_tolerance_says_what_is_wrong(books, tolerance, error):
    with pytest.raises(ChapterFileError) as raised:
        chapter_import(document=sketch(problems=[problem("p1", "worked") | {
            "tolerance": tolerance}]))
    assert any(e.startswith(f"problems[0].{error}") for e in raised.value.errors), raised.value
