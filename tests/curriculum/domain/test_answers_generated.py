"""Generated problems: the author's answer is for instance 0, and every reader instance must
compute, or the verdict is an error naming the instance."""

import numpy as np
import pytest

import attention
from attention import generated
from curriculum.domain.answers import answer_check
from curriculum.models import Problem, Verdict
from curriculum.tasks import verify_solution
from tests.curriculum.conftest import import_chapter

pytestmark = pytest.mark.django_db

SCORES = {"generate": "normal", "shape": [2, 3], "seed": 11, "round": 1}
ASK = {"output": "out"}


def softmax_of(instance: int) -> list:
    inputs = attention.expand_inputs({"scores": SCORES}, instance)
    return attention.evaluate("softmax", inputs, ASK).tolist()


def generated_problem(answer, **changes) -> dict:
    return {
        "key": "g1",
        "kind": "exercise",
        "variant": "softmax-generated",
        "statement": "Compute the softmax of each row of $s$.",
        "operation": "softmax",
        "inputs": {"scores": SCORES},
        "ask": ASK,
        "solution": {"steps": "Exponentiate and normalise.", "answer": answer, "published": True},
    } | changes


def six_figures(values: list) -> list:
    return [[float(f"{v:.6g}") for v in row] for row in values]


def test_an_answer_for_instance_zero_written_to_six_figures_is_verified(books):
    [sid] = import_chapter([generated_problem(six_figures(softmax_of(0)))])
    assert verify_solution(sid) == "verified"
    held = Verdict.objects.get(solution_id=sid).engine_value  # in extended precision, rounded
    assert np.allclose(held, softmax_of(0), rtol=1e-15, atol=0)


def test_an_answer_for_another_instance_is_a_mismatch(books):
    [sid] = import_chapter([generated_problem(six_figures(softmax_of(1)))])
    assert verify_solution(sid) == "mismatch"


def test_an_instance_that_cannot_be_computed_is_an_error_naming_it(books, monkeypatch, settings):
    [sid] = import_chapter([generated_problem(six_figures(softmax_of(0)))])
    settings.PRACTICE_INSTANCES = 5
    real = generated.generate

    def overflowing_at_three(name, spec, instance=0):
        values = real(name, spec, instance)
        return np.full((2, 3), np.inf).tolist() if instance == 3 else values

    monkeypatch.setattr(generated, "generate", overflowing_at_three)
    assert verify_solution(sid) == "error"
    message = Verdict.objects.get(solution_id=sid).message
    assert message.startswith("instance 3: inputs.scores: must be finite")


@pytest.mark.parametrize("seed", [1, 2, 6])
def test_a_reader_instance_below_float64s_normal_range_is_an_error_naming_it(books, seed):
    """Scores drawn at scale 300: instance 0 computes, a later one weighs a score 885 below
    its row's largest, e^-885, which float64 makes 0. The problem had been verified, and a
    reader typing that instance's 0 told it was wrong (a hostile round)."""
    scores = {"generate": "normal", "shape": [1, 2], "scale": 300, "round": 0, "seed": seed}
    inputs = attention.expand_inputs({"scores": scores}, 0)
    right = attention.evaluate("softmax", inputs, ASK).tolist()
    [sid] = import_chapter([generated_problem(right, inputs={"scores": scores})])
    assert verify_solution(sid) == "error"
    message = Verdict.objects.get(solution_id=sid).message
    assert message.startswith("instance ") and "falls below 2.23e-308" in message


NEAR_EQUAL = {  # queries of 1e6 drawn 1e-6 apart: some instances' scores cancel past reading
    "q": {
        "generate": "normal",
        "shape": [1, 2],
        "mean": 1e6,
        "scale": 1e-6,
        "round": 10,
        "seed": 3,
    },
    "k": [[1.0, 0.0], [0.0, 1.0]],
    "v": [[1.0], [-1.0]],
}
SDPA = "scaled_dot_product_attention"


def test_a_reader_instance_the_engine_cannot_settle_is_an_error_naming_it(books):
    """Instance 0 settles; instance 14 does not (reading its inputs into binary moves it past
    its third figure). It had been verified and published, and readers told "not right"
    whatever they typed (a hostile round)."""
    value = attention.evaluate(SDPA, NEAR_EQUAL, ASK)
    held = attention.settled(SDPA, NEAR_EQUAL, ASK, value)[0]
    answer = [[float(f"{held[0][0]:.4g}")]]
    changes = {"operation": SDPA, "inputs": NEAR_EQUAL, "tolerance": {"digits": 3}}
    [sid] = import_chapter([generated_problem(answer, **changes)])
    assert verify_solution(sid) == "error"
    message = Verdict.objects.get(solution_id=sid).message
    assert message.startswith("instance ") and "cannot" in message


def test_instances_past_the_setting_are_not_checked(books, monkeypatch, settings):
    [sid] = import_chapter([generated_problem(six_figures(softmax_of(0)))])
    settings.PRACTICE_INSTANCES = 2
    real = generated.generate
    monkeypatch.setattr(
        generated,
        "generate",
        lambda name, spec, instance=0: (
            np.full((2, 3), np.inf).tolist() if instance == 3 else real(name, spec, instance)
        ),
    )
    assert verify_solution(sid) == "verified"


def test_a_reader_answer_is_checked_against_its_instance_with_the_problem_tolerance(books):
    import_chapter([generated_problem(six_figures(softmax_of(0)))])
    problem = Problem.objects.get(key="g1")
    right = answer_check(problem=problem, instance=4, answer=six_figures(softmax_of(4)))
    assert right.ok and right.message == ""
    assert right.answer_shape == right.expected_shape == (2, 3)
    wrong = answer_check(problem=problem, instance=4, answer=six_figures(softmax_of(5)))
    assert not wrong.ok and wrong.message == "not the engine's value to 6 significant figures"
    shaped = answer_check(problem=problem, instance=4, answer=[0.5, 0.5])
    assert not shaped.ok
    assert shaped.message == "the answer is a matrix of 2 × 3 numbers"
    assert (shaped.answer_shape, shaped.expected_shape) == ((2,), (2, 3))
    nonsense = answer_check(problem=problem, instance=4, answer="many")
    assert not nonsense.ok and not nonsense.read and "must be a number" in nonsense.message


def test_a_reader_is_told_an_instance_the_engine_cannot_settle_cannot_be_checked(books):
    """Not "not right", whatever was typed: nothing is judged there (a hostile round; such a
    problem is now an error, but a release made before keeps it)."""
    problem = Problem(operation=SDPA, inputs=NEAR_EQUAL, ask=ASK, digits=3)
    held = attention.settled(SDPA, NEAR_EQUAL, ASK, attention.evaluate(SDPA, NEAR_EQUAL, ASK))
    assert answer_check(problem=problem, instance=0, answer=held[0].tolist()).ok
    unsettled = [
        n
        for n in range(1, 21)
        if not answer_check(problem=problem, instance=n, answer=[[0.0]]).decided
    ]
    assert unsettled
    checked = answer_check(problem=problem, instance=unsettled[0], answer=[[0.0]])
    assert (checked.ok, checked.decided) == (False, False)
    assert checked.message.startswith("this instance cannot be checked")
