"""A problem may ask only so much of the verifier (LIMIT_PROBLEM_WORK) and make only so many
numbers at a time (LIMIT_PROBLEM_VALUES; what it asks, no more than an answer may hold), known
from its shapes before anything runs: refused where it is written, an error verdict where it is
stored."""

import pytest
from django.core.exceptions import ValidationError

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.verification import verdict_decide
from curriculum.domain.work_budget import problem_work
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


def test_a_chapters_problems_together_over_the_chapter_budget_are_refused_where_they_pass_it(
    books, settings
):
    """Each problem within LIMIT_PROBLEM_WORK, and 20 of them 248 s of a core (a hostile
    round): the problem that takes the chapter past LIMIT_CHAPTER_WORK is refused, with its
    path, and nothing is written."""
    one = backward_pass("p0", seq=64)
    each = problem_work(operation=one["operation"], inputs=one["inputs"])
    settings.LIMIT_CHAPTER_WORK = 2 * each
    problems = [backward_pass(f"p{i}", seq=64) for i in range(4)]
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=sketch("II.7", problems=problems))
    over = [e for e in refused.value.errors if "LIMIT_CHAPTER_WORK" in e]
    assert [e.split(":")[0] for e in over] == ["problems[2].inputs"]
    assert "move problems to another chapter" in over[0]
    assert not Problem.objects.filter(chapter__code="II.7").exists()
    chapter_import(document=sketch("II.7", problems=problems[:2]))  # at the limit: stored
    assert Problem.objects.filter(chapter__code="II.7").count() == 2


def test_admins_problem_page_refuses_a_problem_taking_its_chapter_past_the_budget(books, settings):
    chapter_import(document=sketch("II.7", problems=[backward_pass("p1", seq=64)]))
    stored = Problem.objects.get(chapter__code="II.7", key="p1")
    settings.LIMIT_CHAPTER_WORK = problem_work(operation=stored.operation, inputs=stored.inputs)
    stored.full_clean()  # itself alone: within
    second = Problem(
        chapter=stored.chapter,
        key="p2",
        kind=stored.kind,
        variant=stored.variant,
        statement=stored.statement,
        operation=stored.operation,
        inputs=stored.inputs,
        ask=stored.ask,
    )
    with pytest.raises(ValidationError) as refused:
        second.clean()
    assert "LIMIT_CHAPTER_WORK" in str(refused.value.message_dict["inputs"])


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


def positions(key: str, seq_len: int, width: int, ask: dict | None = None) -> dict:
    """A 200-byte problem whose value is a seq_len x width table (a hostile test's: 4096 x 4096
    passed LIMIT_PROBLEM_WORK, then held a worker at 4 GB, kept, until its hard time limit, three
    times, for an error that named no limit)."""
    return {
        "key": key,
        "kind": "worked",
        "variant": key,
        "statement": "Tabulate.",
        "operation": "sinusoidal_positions",
        "inputs": {"seq_len": seq_len, "width": width},
        "ask": ask or {"output": "out"},
        "tolerance": {"digits": 3},
        "solution": {"steps": "Sines.", "answer": 0.5, "published": True},
    }


def test_a_table_an_answer_could_not_hold_is_refused_where_it_asks(books):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=sketch("II.7", problems=[positions("p1", 4096, 4096)]))
    [error] = [e for e in refused.value.errors if "LIMIT_CHAPTER_NUMBERS" in e]
    assert error.startswith("problems[0].ask: the value it asks for holds 16,777,216 numbers")
    assert not Problem.objects.filter(chapter__code="II.7").exists()


def test_one_entry_of_a_table_too_large_to_make_is_refused_by_what_it_makes(books, settings):
    settings.LIMIT_PROBLEM_VALUES = 2**20
    one_entry = {"output": "out", "row": 0, "col": 0}
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=sketch("II.7", problems=[positions("p1", 2048, 1024, one_entry)]))
    [error] = [e for e in refused.value.errors if "LIMIT_PROBLEM_VALUES" in e]
    assert error.startswith("problems[0].inputs: one evaluation of this problem makes 2,097,152")
    assert "(1,048,576)" in error and "make its inputs smaller" in error


def test_a_table_within_both_limits_is_imported_and_one_entry_of_a_large_one_too(books):
    one_entry = {"output": "out", "row": 0, "col": 0}
    problems = [positions("p1", 64, 16), positions("p2", 4096, 4096, one_entry)]
    chapter_import(document=sketch("II.7", problems=problems))
    assert Problem.objects.filter(chapter__code="II.7").count() == 2


def test_a_table_stored_before_the_limits_gets_an_error_verdict_naming_them(books, settings):
    chapter_import(document=sketch("II.7", problems=[positions("p1", 64, 16)]))
    settings.LIMIT_CHAPTER_NUMBERS = 1000
    solution = Solution.objects.get(problem__chapter__code="II.7", problem__key="p1")

    assert verdict_decide(solution_id=solution.pk) == "error"
    assert "LIMIT_CHAPTER_NUMBERS" in Verdict.objects.get(solution=solution).message


def test_admin_refuses_the_table_on_its_ask_field(chapter):
    problem = Problem(
        chapter=chapter,
        **{
            k: v
            for k, v in positions("p9", 4096, 4096).items()
            if k not in ("tolerance", "solution")
        },
    )
    with pytest.raises(ValidationError) as refused:
        problem.full_clean()
    [message] = refused.value.message_dict["ask"]
    assert message.startswith("ask: the value it asks for holds 16,777,216 numbers")
