"""No one's backlog starves anyone else's verdicts: each request's k-th batch is decided before
any request's (k+1)-th, a single save goes first, and a batch hands on what its slice of the
worker's time did not reach."""

from datetime import timedelta

import pytest
from django.utils import timezone

from curriculum.celery import app
from curriculum.domain.verification import Slice, verdict_request, verdicts_decide, verdicts_sweep
from curriculum.models import Solution, Verdict
from tests.curriculum.conftest import (
    WORKER_ENV,
    decided,
    import_chapter,
    uniform_problem,
    worker_database_url,
)
from tests.processes import Worker

pytestmark = pytest.mark.worker

RIGHT = [[2, 3], [2, 3]]


def uniform(prefix: str, count: int) -> list[dict]:
    return [uniform_problem(f"{prefix}{i}", RIGHT) for i in range(count)]


@pytest.fixture
def one_worker(idle_broker, tmp_path):
    """Started by the test once everything is queued, so the order is the broker's alone."""
    worker = Worker(
        name="fair",
        broker_url=idle_broker,
        database_url=worker_database_url(),
        logdir=tmp_path,
        env=WORKER_ENV,
        beat=False,
    )
    yield worker
    worker.stop()


def in_file_order(code: str) -> list[int]:
    """The chapter's solutions in the order of its problems (the order their checks are sent)."""
    return list(
        Solution.objects.filter(problem__chapter__code=code)
        .order_by("problem__position", "problem_id")
        .values_list("pk", flat=True)
    )


def decided_in_order(ids: list[int]) -> list[int]:
    decided(ids, timeout=60)
    return list(
        Verdict.objects.filter(solution_id__in=ids)
        .order_by("decided_at", "solution_id")
        .values_list("solution_id", flat=True)
    )


def test_a_big_chapters_backlog_waits_behind_a_single_save_and_another_chapter(
    one_worker, books_committed, settings
):
    settings.VERIFY_BATCH_SIZE = 2
    import_chapter(uniform("b", 12), code="II.9")  # six batches, one behind another
    big = in_file_order("II.9")
    other = import_chapter(uniform("o", 2), code="II.8")  # another author's chapter, later
    [single] = import_chapter(uniform("s", 1), code="II.7")
    solution = Solution.objects.select_related("problem").get(pk=single)
    solution.answer = [[2, 3], [2, 4]]  # an edit in admin: one check, sent on its own
    solution.save()
    verdict_request(solution=solution)

    one_worker.start()
    order = decided_in_order(big + other + [single])

    # the big chapter's first batch was queued first; everything else goes before its second
    assert set(order[:2]) == set(big[:2])
    assert set(order[2:5]) == {*other, single}
    assert Verdict.objects.get(solution_id=single).status == "mismatch"


def test_asking_again_for_a_chapter_with_a_backlog_waits_behind_it(
    one_worker, books_committed, settings
):
    settings.VERIFY_BATCH_SIZE = 2
    problems = uniform("b", 12)
    import_chapter(problems, code="II.9")  # six batches, twelve checks waiting
    for edited in problems[:2]:
        edited["solution"]["answer"] = [[2, 3], [2, 4]]
    import_chapter(problems, code="II.9")  # the author edits and imports again meanwhile
    other = import_chapter(uniform("o", 2), code="II.8")
    big = in_file_order("II.9")

    one_worker.start()
    order = decided_in_order(big + other)

    # the first import's first batch is stale now; the edit joined its chapter's backlog
    assert set(order[:2]) == set(other)
    assert Verdict.objects.get(solution_id=big[0]).status == "mismatch"


def test_a_batch_hands_on_what_its_slice_did_not_reach(one_worker, books_committed):
    ids = import_chapter(uniform("p", 3))
    app.control.purge()  # the import's own task: this test decides the batch itself
    checks = list(
        Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")
    )

    assert len(verdicts_decide(checks=checks, run=Slice(seconds=0))) == 1  # no time after one

    pending = Verdict.objects.filter(solution_id__in=ids, status="pending")
    assert pending.count() == 2
    assert set(pending.values_list("attempts", flat=True)) == {0}  # never started: not counted
    one_worker.start()
    assert {v.status for v in decided(ids).values()} == {"verified"}
    assert one_worker.received("verify_batch") == 1  # the two, handed on in one task


def test_the_sweep_resends_behind_what_others_ask_for(one_worker, books_committed, settings):
    settings.VERIFY_BATCH_SIZE = 2
    lost = import_chapter(uniform("l", 1), code="II.8")
    app.control.purge()  # its task lost, as if the broker had been down when it was saved
    Verdict.objects.filter(solution_id__in=lost).update(
        requested_at=timezone.now() - timedelta(hours=1)
    )
    assert verdicts_sweep(older_than=timedelta(minutes=1)) == 1
    fresh = import_chapter(uniform("f", 6), code="II.9")  # asked for after the sweep ran

    one_worker.start()
    order = decided_in_order(fresh + lost)

    assert order[-1] == lost[0]
