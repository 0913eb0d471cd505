"""A problem may ask only so much of the verifier (LIMIT_PROBLEM_WORK), estimated from its
shapes before anything runs: refused where it is written, an error verdict where it is stored."""

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.verification import verdict_decide
from curriculum.models import Problem, Solution, Verdict
from tests.conftest import sketch


def generated(*shape: int, seed: int = 1) -> dict:
    return {"generate": "normal", "shape": list(shape), "seed": seed}


def backward_pass(key: str, seq: int = 4096) -> dict:
    """A 3 KB problem: the gradient of multi-head attention over a long sequence of small heads,
    at instance 0 and at every reader instance (about 15 s an evaluation, reported)."""
    weight = generated(16, 16, seed=2)
    return {
        "key": key,
        "kind": "exercise",
        "variant": "backward",
        "statement": "Backpropagate.",
        "operation": "multi_head_attention_backward",
        "inputs": {
            "x": generated(seq, 16),
            "w_q": weight,
            "w_k": weight,
            "w_v": weight,
            "w_o": weight,
            "heads": 4,
            "grad_out": generated(seq, 16, seed=3),
        },
        "ask": {"output": "dx", "row": 0, "col": 0},
        "tolerance": {"digits": 4},
        "solution": {"steps": "Chain rule.", "answer": 0.1234, "published": True},
    }


def test_problems_over_the_work_budget_are_refused_at_import_with_their_paths(books):
    document = sketch("II.7", problems=[backward_pass(f"p{i}") for i in range(4)])

    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)

    over = [e for e in refused.value.errors if "LIMIT_PROBLEM_WORK" in e]
    assert [e.split(":")[0] for e in over] == [f"problems[{i}].inputs" for i in range(4)]
    assert "21 evaluations" in over[0] and "make its inputs smaller" in over[0]
    assert not Problem.objects.filter(chapter__code="II.7").exists()


def test_the_same_problem_at_a_size_within_the_budget_is_imported(books):
    chapter_import(document=sketch("II.7", problems=[backward_pass("p1", seq=64)]))
    assert Problem.objects.filter(chapter__code="II.7", key="p1").exists()


def test_the_limit_is_a_setting(books, settings):
    settings.LIMIT_PROBLEM_WORK = 10**4
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=sketch("II.7", problems=[backward_pass("p1", seq=64)]))
    assert any(
        e.startswith("problems[0].inputs: ") and "(1e+04)" in e for e in refused.value.errors
    )


def test_a_problem_stored_before_the_limit_gets_an_error_verdict_naming_it(books, settings):
    chapter_import(document=sketch("II.7", problems=[backward_pass("p1", seq=64)]))
    settings.LIMIT_PROBLEM_WORK = 10**4
    solution = Solution.objects.get(problem__chapter__code="II.7", problem__key="p1")

    assert verdict_decide(solution_id=solution.pk) == "error"
    assert "LIMIT_PROBLEM_WORK" in Verdict.objects.get(solution=solution).message


def test_a_run_past_the_engine_time_budget_is_an_error_naming_it(books, settings):
    chapter_import(document=sketch("II.7", problems=[backward_pass("p1", seq=256)]))
    settings.VERIFY_ENGINE_SECONDS = 0.01  # its own CPU time: the queue and the load never count
    solution = Solution.objects.get(problem__chapter__code="II.7", problem__key="p1")

    assert verdict_decide(solution_id=solution.pk) == "error"
    message = Verdict.objects.get(solution=solution).message
    assert "more than 0.01 s of CPU time (VERIFY_ENGINE_SECONDS)" in message
