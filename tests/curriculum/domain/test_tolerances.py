"""No answer a reader would call wrong is verified, whatever its problem's tolerance: the three
answers hostile authors had verified, imported and decided as the worker decides them."""

import pytest
import yaml
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import attention
from curriculum.domain.chapter_files import ChapterFileError, file_import
from curriculum.domain.verification import fingerprint, verdict_state
from curriculum.models import Problem, Solution, Verdict
from curriculum.tasks import verify_solution
from tests.curriculum.conftest import import_chapter, uniform_problem

pytestmark = pytest.mark.django_db


def state_of(solution) -> str:
    """The verdict state readers see (the `verdict_state` expression), read from the database."""
    return Solution.objects.filter(pk=solution.pk).values_list(verdict_state(), flat=True).get()


def softmax_problem(key: str, inputs: dict, answer, tolerance: dict) -> dict:
    """A softmax problem of `inputs`, answered with `answer` (`uniform_problem`'s, changed)."""
    return uniform_problem(
        key, answer, variant="softmax", operation="softmax", inputs=inputs, tolerance=tolerance
    )


COST_INPUTS = {"seq_len": 4, "width": 8, "heads": 2}


def cost_problem(answer: dict, tolerance: dict) -> dict:
    """attention_cost's terms for COST_INPUTS, answered with `answer`."""
    changes = {"variant": "cost", "operation": "attention_cost", "ask": {"output": "terms"}}
    return uniform_problem("cost", answer, inputs=COST_INPUTS, tolerance=tolerance, **changes)


@pytest.mark.parametrize("tolerance", [{"digits": 3}, {"rtol": 5e-4, "atol": 1e-6}])
def test_a_half_for_the_softmax_of_one_score_is_a_mismatch(books, tolerance):
    [sid] = import_chapter([softmax_problem("one", {"scores": [[3.0]]}, [[0.5]], tolerance)])
    assert verify_solution(sid) == "mismatch"


@pytest.mark.parametrize("tolerance", [{"digits": 3}, {"rtol": 5e-4, "atol": 1e-6}])
def test_a_half_for_a_masked_weight_is_a_mismatch_naming_the_zero_rule(books, tolerance):
    inputs = {"scores": [[1.0, 2.0, 3.0]], "mask": [[True, True, False]]}
    [sid] = import_chapter([softmax_problem("masked", inputs, [[0.269, 0.731, 0.5]], tolerance)])
    assert verify_solution(sid) == "mismatch"
    message = Verdict.objects.get(solution_id=sid).message
    assert "[0, 2]: 0.5 is not 0: an entry that is exactly 0 must be answered 0" in message


def test_zero_for_a_nonzero_cost_term_is_a_mismatch(books):
    terms = attention.evaluate("attention_cost", COST_INPUTS, {"output": "terms"})
    largest = max(terms.values())
    answer = {name: 0 if count < largest else count for name, count in terms.items()}
    cost = cost_problem(answer, {"rtol": 5e-4, "atol": 1e-9})
    [sid] = import_chapter([cost])
    assert verify_solution(sid) == "mismatch"


def test_a_right_answer_is_still_verified_to_three_figures_and_exact_counts(books):
    inputs = {"scores": [[1.0, 2.0, 3.0]], "mask": [[True, True, False]]}
    terms = attention.evaluate("attention_cost", COST_INPUTS, {"output": "terms"})
    ids = import_chapter(
        [
            softmax_problem("masked", inputs, [[0.269, 0.731, 0.0]], {"digits": 3}),
            cost_problem(dict(terms), {"digits": 6}),
        ]
    )
    assert [verify_solution(sid) for sid in ids] == ["verified", "verified"]


# ------------------------------------------------ answers below float64's normal range

BELOW_NORMAL = "problems[0].solution.answer: must be 0 or at least 2.23e-308 in size"


@pytest.mark.parametrize(
    ("answer", "tolerance"),
    [
        ([[2.0, 5e-324], [2.0, 3.0]], {"rtol": 5e-4, "atol": 0}),  # had raised in atol_bound
        ([[2.0, 1e-320], [2.0, 3.0]], {"rtol": 1e-4, "atol": 0}),  # had overflowed there
        ([[2.0, 2.28705e-320], [2.0, 3.0]], {"digits": 6}),
    ],
)
def test_an_answer_below_float64s_normal_range_is_refused_with_its_path(books, answer, tolerance):
    """float64 keeps too few of such a number's figures to judge them (2.28705e-320 is held as
    2.287e-320, so answers wrong in their sixth figure were verified to six): refused as such
    an input is, where a tolerance's bound had raised instead (a 500 from the API and admin)."""
    problem = uniform_problem("tiny", answer, tolerance=tolerance)
    with pytest.raises(ChapterFileError) as refused:
        import_chapter([problem])
    assert BELOW_NORMAL in refused.value.errors
    assert not Solution.objects.filter(problem__chapter__code="II.9").exists()


def test_a_stored_answer_below_normal_range_is_an_error_not_verified(books):
    """One stored before the rule: the verifier says why, and never calls it right."""
    [sid] = import_chapter([uniform_problem("tiny", [[2.0, 3.0], [2.0, 3.0]])])
    Solution.objects.filter(pk=sid).update(answer=[[2.0, 3.0], [2.0, 1e-320]])
    solution = Solution.objects.select_related("problem").get(pk=sid)
    Solution.objects.filter(pk=sid).update(fingerprint=fingerprint(solution.problem, solution))
    Verdict.objects.filter(solution_id=sid).update(
        status="pending", fingerprint=fingerprint(solution.problem, solution)
    )
    assert verify_solution(sid) == "error"
    assert "must be 0 or at least 2.23e-308 in size" in Verdict.objects.get(solution_id=sid).message


# ------------------------------------------------ what was stored before the rule


BEFORE = ("curriculum", "0010_problem_indexes_the_constraint_serves")


def migrate(target: list[tuple[str, str]] | None = None) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(target or executor.loader.graph.leaf_nodes("curriculum"))


def stored_as_verified_before_the_rule(sid: int, **problem_fields) -> None:
    """What the old verifier left: the problem as it was written, its verdict verified."""
    before = Solution.objects.select_related("problem").defer(
        "fingerprint", "problem__hints", "problem__feedback"
    )  # no columns yet
    solution = before.get(pk=sid)
    Problem.objects.filter(pk=solution.problem_id).update(**problem_fields)
    solution = before.get(pk=sid)
    Verdict.objects.filter(solution_id=sid).update(
        status="verified", fingerprint=fingerprint(solution.problem, solution), message=""
    )


def test_an_answer_written_past_float64s_range_in_a_file_is_refused_not_read_as_0(books):
    """YAML read 1e-400 as 0 (and -0.0 for its negative) while 1e-320 was refused: a number
    written nonzero is never 0."""
    document = {
        "code": "II.9",
        "book": "II",
        "number": 9,
        "title": "Verifier fixtures",
        "maturity": "M0",
        "state": "draft",
        "problems": [uniform_problem("tiny", [[2.0, "TINY"], [2.0, 3.0]])],
    }
    text = yaml.safe_dump(document, sort_keys=False).replace("TINY", "-1.0e-400")
    with pytest.raises(ChapterFileError) as refused:
        file_import(text=text)
    assert BELOW_NORMAL in refused.value.errors
