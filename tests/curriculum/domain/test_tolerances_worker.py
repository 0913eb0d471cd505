"""Verdicts stored under the old, looser rules, migrated and decided again (committed rows,
apart from test_tolerances.py's module world)."""

import pytest

import attention
from curriculum.models import Problem, Solution, Verdict
from curriculum.tasks import verify_solution
from tests.curriculum.conftest import import_chapter
from tests.curriculum.domain.test_tolerances import (
    BEFORE,
    COST_INPUTS,
    cost_problem,
    migrate,
    softmax_problem,
    state_of,
    stored_as_verified_before_the_rule,
)


@pytest.mark.django_db(transaction=True)
def test_verdicts_stored_under_a_loose_tolerance_are_narrowed_and_decided_again(
    idle_broker, books_committed
):
    """No worker runs: the import's requests wait in the broker, so the verdicts the test
    stores and migrates are decided by no one meanwhile."""
    terms = attention.evaluate("attention_cost", COST_INPUTS, {"output": "terms"})
    largest = max(terms.values())
    zeros = {name: 0 if count < largest else count for name, count in terms.items()}
    import_chapter(
        [
            softmax_problem("one", {"scores": [[3.0]]}, [[0.5]], {"digits": 3}),
            cost_problem(zeros, {"digits": 6}),
            softmax_problem("right", {"scores": [[0.0, 0.0]]}, [[0.5, 0.5]], {"digits": 3}),
        ]
    )
    ids = dict(
        Solution.objects.filter(problem__chapter__code="II.9").values_list("problem__key", "pk")
    )
    migrate([BEFORE])
    stored_as_verified_before_the_rule(ids["one"], digits=1)
    stored_as_verified_before_the_rule(ids["cost"], digits=None, rtol=0.1, atol=0.1 * largest)
    stored_as_verified_before_the_rule(ids["right"])

    migrate()

    one = Problem.objects.get(solution__pk=ids["one"])
    cost = Problem.objects.get(solution__pk=ids["cost"])
    assert one.digits == 3
    assert (cost.rtol, cost.atol) == (5e-4, 0.244)  # 512 to 3 figures, its 0s exactly
    for sid in ids.values():
        solution = Solution.objects.select_related("problem", "verdict").get(pk=sid)
        assert solution.verdict.status == "pending" and state_of(solution) != "verified"
    assert {key: verify_solution(sid) for key, sid in ids.items()} == {
        "one": "mismatch",
        "cost": "mismatch",
        "right": "verified",
    }


@pytest.mark.django_db(transaction=True)
def test_a_small_entry_answered_zero_under_the_old_zero_rule_is_decided_again(books_committed):
    inputs = {"q": [[0.0]], "k": [[0.0], [0.0]], "v": [[1e12, 1998.0], [1e12, 0.0]]}
    wrong = {
        "key": "small",
        "kind": "exercise",
        "variant": "small",
        "statement": "Compute the output.",
        "operation": "scaled_dot_product_attention",
        "inputs": inputs,
        "ask": {"output": "out"},
        "tolerance": {"digits": 6},
        "solution": {"steps": "Mean of v.", "answer": [[1e12, 999.0]], "published": True},
    }
    [sid] = import_chapter([wrong])
    migrate([("curriculum", "0011_tolerances_narrowed")])
    Solution.objects.filter(pk=sid).update(answer=[[1e12, 0.0]])  # verified by 1e-9 x 1e12
    stored_as_verified_before_the_rule(sid)

    migrate()

    assert Verdict.objects.get(solution_id=sid).status == "pending"
    assert verify_solution(sid) == "mismatch"
