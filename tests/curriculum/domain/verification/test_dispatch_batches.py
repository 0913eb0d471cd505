"""Checks asked for together are decided in batches, as safely as one at a time."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.verification import (
    Reverify,
    fingerprint,
    fingerprint_store,
    verdict_state,
    verdicts_decide,
    verdicts_overdue,
)
from curriculum.models import Chapter, Solution, Verdict
from curriculum.tasks import verify_solution
from tests.curriculum.conftest import import_chapter, uniform_problem


def state_of(solution) -> str:
    """The verdict state readers see (the `verdict_state` expression), read from the database."""
    return Solution.objects.filter(pk=solution.pk).values_list(verdict_state(), flat=True).get()


def test_a_batch_reads_in_bulk_and_writes_each_verdict_by_compare_and_set(books):
    wrong = uniform_problem("wrong", [[2, 3], [2, 4]])
    ids = import_chapter([uniform_problem(f"p{i}", [[2, 3], [2, 3]]) for i in range(40)] + [wrong])
    checks = list(
        Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")
    )
    before = Chapter.objects.get(code="II.9").updated_at

    with CaptureQueriesContext(connection) as queries:
        written = verdicts_decide(checks=checks)

    assert sorted(written.values()).count("verified") == 40
    assert written[ids[-1]] == "mismatch"
    # bulk reads and locks; one statement compares and sets every verdict of the batch
    [writes] = [q for q in queries if 'UPDATE "curriculum_verdict" AS v SET' in q["sql"]]
    assert "jsonb_to_recordset" in writes["sql"]
    # savepoints included, the chapters' search entries moving with their revision, and the
    # webhook endpoints that want `verdict.changed` (one query a batch), and each of the two
    # transactions' commit told not to wait for the disk
    assert sum("synchronous_commit" in q["sql"] for q in queries) == 2
    assert len(queries) <= 15, [q["sql"][:80] for q in queries]
    assert Chapter.objects.get(code="II.9").updated_at > before
    assert verdicts_decide(checks=checks) == {}  # run twice (redelivered): nothing changes


def test_a_check_that_confirms_its_stored_verdict_costs_the_fewest_statements(books):
    """Asked again (an engine upgrade), a verdict that stays what it was changes no status, so
    no webhook endpoint is read; the chapters leaning on the one moved move inside its
    updates, not by a read of their own: two statements each side fewer than before."""
    [solution_id] = import_chapter([uniform_problem("p1", [[2, 3], [2, 3]])])
    verdicts_decide(checks=[(solution_id, None)])
    Reverify(solution_ids=[solution_id]).execute()

    with CaptureQueriesContext(connection) as queries:
        assert verdicts_decide(checks=[(solution_id, None)]) == {solution_id: "verified"}

    read = [q["sql"][:60] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert not [sql for sql in read if "webhookendpoint" in sql or "apparatuslink" in sql[:40]]
    assert len(read) == 9, read  # read; the attempt: 3; the decision: 5


def test_a_batch_skips_what_was_edited_since_it_was_asked_for(books):
    ids = import_chapter(
        [uniform_problem("p1", [[2, 3], [2, 3]]), uniform_problem("p2", [[2, 3], [2, 3]])]
    )
    checks = list(
        Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")
    )
    import_chapter(
        [uniform_problem("p1", [[2, 3], [2, 3]]), uniform_problem("p2", [[2, 3], [9, 9]])]
    )  # p2 edited: a new fingerprint

    assert verdicts_decide(checks=checks) == {ids[0]: "verified"}
    assert Verdict.objects.get(solution_id=ids[1]).status == "pending"


def test_a_check_whose_runs_never_finish_is_an_error_not_sent_forever(books, settings):
    """Runs killed by the hard time limit (or with their worker) leave only the attempt count;
    the next delivery, from a redelivery or the sweep, records the error instead of running."""
    settings.VERIFY_MAX_ATTEMPTS = 3
    [sid] = import_chapter([uniform_problem("p1", [[2, 3], [2, 3]])])
    Verdict.objects.filter(solution_id=sid).update(attempts=3)

    assert verify_solution(sid) == "error"
    verdict = Verdict.objects.get(solution_id=sid)
    assert "never finished in 3 runs" in verdict.message
    assert sid not in dict(verdicts_overdue(older_than=timedelta(0)))


def test_a_killed_batch_comes_back_one_check_at_a_time(books):
    """Redelivered, a batch whose run died decides each check alone, so one problem that
    kills its worker cannot take the others with it."""
    ids = import_chapter([uniform_problem(f"p{i}", [[2, 3], [2, 3]]) for i in range(3)])
    checks = list(
        Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")
    )
    Verdict.objects.filter(solution_id__in=ids).update(attempts=1)  # the run that died

    with CaptureQueriesContext(connection) as queries:
        assert set(verdicts_decide(checks=checks).values()) == {"verified"}
    per_check = [q for q in queries if 'SET "attempts"' in q["sql"]]
    assert len(per_check) == 3
    assert set(Verdict.objects.filter(solution_id__in=ids).values_list("attempts", flat=True)) == {
        2
    }


@pytest.fixture(autouse=True)
def _batches_of_a_hundred(settings):
    settings.VERIFY_BATCH_SIZE = 100


def test_asking_again_reads_no_content_and_the_worker_checks_what_it_finds(books):
    """A forced request puts each verdict row back to pending for the fingerprint it holds;
    content changed under it (a raw UPDATE, no request) is decided as it now reads, and the
    verdict records that content's fingerprint, so it counts for exactly what was checked."""
    ids = import_chapter(
        [uniform_problem("p1", [[2, 3], [2, 3]]), uniform_problem("p2", [[2, 3], [2, 3]])]
    )
    verdicts_decide(checks=[(sid, None) for sid in ids])
    old = dict(
        Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")
    )
    Solution.objects.filter(pk=ids[1]).update(answer=[[2, 3], [2, 30]])  # no request made
    fingerprint_store(Solution.objects.select_related("problem").get(pk=ids[1]))

    with CaptureQueriesContext(connection) as queries:
        asked = Reverify(code="II.9").execute()
    assert sorted(asked) == sorted(ids)
    assert not [q for q in queries if '"curriculum_problem"."inputs"' in q["sql"]]
    pending = dict(
        Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")
    )
    assert pending == old  # each row pending for what it held

    assert verdicts_decide(checks=list(pending.items())) == {ids[0]: "verified", ids[1]: "mismatch"}
    edited = Solution.objects.select_related("problem", "verdict").get(pk=ids[1])
    assert edited.verdict.fingerprint == fingerprint(edited.problem, edited) != old[ids[1]]
    assert state_of(edited) == "mismatch"


def test_a_forced_request_overtaken_by_an_edit_leaves_the_decision_to_the_edit(books):
    ids = import_chapter([uniform_problem("p1", [[2, 3], [2, 3]])])
    verdicts_decide(checks=[(ids[0], None)])
    Reverify(code="II.9").execute()
    [forced] = Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")
    import_chapter([uniform_problem("p1", [[2, 3], [2, 4]])])  # the edit asks for its own check
    [edit] = Verdict.objects.filter(solution_id__in=ids).values_list("solution_id", "fingerprint")

    assert verdicts_decide(checks=[forced]) == {}  # the older request is a no-op
    assert verdicts_decide(checks=[edit]) == {ids[0]: "mismatch"}


def test_asking_again_for_solutions_never_asked_for_fingerprints_them(books):
    ids = import_chapter([uniform_problem("p1", [[2, 3], [2, 3]])])
    Verdict.objects.filter(solution_id__in=ids).delete()

    assert Reverify(code="II.9").execute() == ids
    solution = Solution.objects.select_related("problem", "verdict").get(pk=ids[0])
    assert solution.verdict.status == "pending"
    assert solution.verdict.fingerprint == fingerprint(solution.problem, solution)
    assert state_of(solution) == "pending"
