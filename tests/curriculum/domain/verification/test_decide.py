"""Deciding a verdict in-process: pending on save, compare-and-set on the fingerprint."""

from datetime import timedelta

import pytest

import attention
from curriculum.domain.verification import (
    fingerprint,
    verdict_request,
    verdicts_overdue,
)
from curriculum.models import Chapter, Solution, Verdict
from curriculum.tasks import verify_solution
from tests.conftest import verify_now
from tests.curriculum.conftest import import_chapter, uniform_problem

pytestmark = pytest.mark.django_db


def test_importing_a_chapter_marks_every_verdict_pending(books):
    ids = import_chapter(
        [uniform_problem("p1", [[2, 3], [2, 3]]), uniform_problem("p2", [[2, 3], [2, 4]])]
    )
    verdicts = Verdict.objects.filter(solution_id__in=ids)
    assert [v.status for v in verdicts] == ["pending", "pending"]
    for verdict in verdicts:
        assert verdict.fingerprint == fingerprint(verdict.solution.problem, verdict.solution)


def test_the_task_records_what_it_checked(books):
    [sid] = import_chapter([uniform_problem("p1", [[2, 3], [2, 3.5]])])
    assert verify_solution(sid) == "mismatch"
    verdict = Verdict.objects.get(solution_id=sid)
    assert verdict.max_abs_error == pytest.approx(0.5)
    assert verdict.engine_value == [[2, 3], [2, 3]]
    assert verdict.engine_version == attention.ENGINE_VERSION
    assert verdict.duration_ms > 0
    assert verdict.decided_at is not None


def test_an_edit_between_request_and_decision_makes_the_run_a_no_op(books):
    [sid] = import_chapter([uniform_problem("p1", [[2, 3], [2, 3]])])
    requested = Verdict.objects.get(solution_id=sid).fingerprint
    solution = Solution.objects.select_related("problem").get(pk=sid)
    solution.answer = [[2, 3], [2, 30]]
    solution.save()
    verdict_request(solution=solution)

    assert verify_solution(sid, requested) is None
    assert Verdict.objects.get(solution_id=sid).status == "pending"
    assert verify_solution(sid, fingerprint(solution.problem, solution)) == "mismatch"


def test_running_the_task_twice_changes_nothing(books):
    [sid] = import_chapter([uniform_problem("p1", [[2, 3], [2, 3]])])
    checked = Verdict.objects.get(solution_id=sid).fingerprint
    assert verify_solution(sid, checked) == "verified"
    first = Verdict.objects.values().get(solution_id=sid)
    assert verify_solution(sid, checked) is None
    assert Verdict.objects.values().get(solution_id=sid) == first


def test_an_unchanged_save_keeps_its_verdict_and_a_forced_one_asks_again(books):
    [sid] = import_chapter([uniform_problem("p1", [[2, 3], [2, 3]])])
    verify_solution(sid)
    solution = Solution.objects.select_related("problem").get(pk=sid)
    assert verdict_request(solution=solution) is False
    assert Verdict.objects.get(solution_id=sid).status == "verified"
    assert verdict_request(solution=solution, force=True) is True
    assert Verdict.objects.get(solution_id=sid).status == "pending"


def test_the_sweep_finds_only_pendings_older_than_its_cutoff(books):
    verify_now(Chapter.objects.get(code="0.MC.07"))  # the seed's own problems are decided
    ids = import_chapter(
        [uniform_problem("p1", [[2, 3], [2, 3]]), uniform_problem("p2", [[2, 3], [2, 3]])]
    )
    verify_solution(ids[1])
    assert verdicts_overdue(older_than=timedelta(hours=1)) == []
    overdue = verdicts_overdue(older_than=timedelta(0))
    assert overdue == [(ids[0], Verdict.objects.get(solution_id=ids[0]).fingerprint)]


def test_numbers_the_database_writes_in_another_form_are_decided_and_keep_their_verdict(books):
    """jsonb gives back 1e16 as 10000000000000000 and -0.0 as 0.0: the fingerprint asked for
    before the save must be the one the worker finds after it, or the check never runs."""
    big = uniform_problem(
        "p1",
        [[-0.0, 2e16], [-0.0, 2e16]],
        inputs={"q": [[0, 0], [0, 0]], "k": [[1, 0], [0, 1]], "v": [[-0.0, 1e16], [0.0, 3e16]]},
    )
    [sid] = import_chapter([big])
    requested = Verdict.objects.get(solution_id=sid).fingerprint
    assert verify_solution(sid, requested) == "verified"

    import_chapter([big])  # the same file again: nothing changed, nothing to check again
    assert Verdict.objects.get(solution_id=sid).status == "verified"


def test_each_reader_instance_is_computed_once_for_a_verdict(books, monkeypatch):
    """The instances checked for soundness are the ones the misconception warnings read."""
    from attention.registry import table
    from tests.conftest import problem

    scores = {"generate": "normal", "shape": [2, 3], "seed": 7}
    answer = attention.evaluate("softmax", {"scores": scores}, {"output": "out"}).tolist()
    [sid] = import_chapter([problem("p1", scores=scores, answer=answer)])
    runs: list[int] = []
    evaluate = table.evaluate

    def counted(operation, inputs, ask, instance=0):
        runs.append(instance)
        return evaluate(operation, inputs, ask, instance)

    monkeypatch.setattr(table, "evaluate", counted)
    monkeypatch.setattr(attention, "evaluate", counted)
    assert verify_solution(sid) == "verified"
    assert sorted(set(runs)) == list(range(21)) and all(runs.count(n) == 1 for n in range(1, 21))
