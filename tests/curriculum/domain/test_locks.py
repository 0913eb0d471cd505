"""Operations over several chapters lock them in primary-key order, so two of them, started in
opposite orders, queue instead of deadlocking (PostgreSQL)."""

import threading
import time

import pytest
from django.db import connection, transaction

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.locks import chapter_lock, chapters_lock
from curriculum.domain.verification import Reverify, verdict_request, verdicts_all_request
from curriculum.models import Chapter, Solution
from tests.conftest import sketch
from tests.curriculum.conftest import decided
from tests.curriculum.domain.test_gate_concurrency import in_thread

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks")


def waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()"
        )
        return cursor.fetchone()[0]


def until(condition, timeout: float = 30.0) -> bool:
    """Poll a condition with a generous timeout: load can slow it, never decide it."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def lockable_now(chapter_id: int) -> bool:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM curriculum_chapter WHERE id = %s FOR UPDATE SKIP LOCKED",
            [chapter_id],
        )
        return cursor.fetchone() is not None


def settled(*chapters: Chapter) -> None:
    """Let the imports' own verdicts land: the worker locks a chapter while it decides them, and
    a test that holds or waits on these locks must be the only one taking them."""
    decided(list(Solution.objects.values_list("pk", flat=True)))
    assert until(lambda: all(lockable_now(chapter.pk) for chapter in chapters))


def verify_in_order(chapter_ids: list[int]) -> int:
    """A multi-chapter operation handed its chapters in the caller's order."""
    with transaction.atomic():
        chapters_lock(chapter_ids=chapter_ids)
        solutions = Solution.objects.filter(problem__chapter_id__in=chapter_ids)
        return sum(verdict_request(solution=s, force=True) for s in solutions)


@pytest.mark.django_db(transaction=True)
def test_two_multi_chapter_operations_in_opposite_orders_both_finish(books_committed, worker):
    for code in ("II.7", "II.8"):
        chapter_import(document=sketch(code))
    first, second = Chapter.objects.order_by("pk").filter(code__in=["II.7", "II.8"])
    settled(first, second)
    release_holder = threading.Event()

    def hold_first():
        with transaction.atomic():
            chapter_lock(chapter_id=first.pk)  # a single-chapter writer, mid-save
            release_holder.wait(60)

    held, _ = in_thread(hold_first)
    assert until(lambda: not lockable_now(first.pk))
    backwards, backwards_out = in_thread(lambda: verify_in_order([second.pk, first.pk]))
    every = list(
        Solution.objects.filter(problem__chapter__in=[first, second])
        .order_by("-pk")
        .values_list("pk", flat=True)
    )
    forwards, forwards_out = in_thread(lambda: len(Reverify(solution_ids=every).execute()))
    assert until(lambda: waiting_on_locks() >= 2), "both operations should wait on the first"
    # waiting on the lower chapter, neither holds the higher one: no cycle is possible
    assert lockable_now(second.pk)
    release_holder.set()
    for finished in (held, backwards, forwards):
        assert finished.wait(60)
    assert backwards_out == [6] and forwards_out == [6]
    decided(every)  # and the worker decides them all once the locks are free (else it fails)


@pytest.mark.django_db(transaction=True)
def test_verify_all_waits_on_the_lowest_chapter_without_holding_a_later_one(
    books_committed, worker
):
    # II.7 has the lower chapter pk but the higher solution pks: verify_all meets II.8 first
    for code in ("II.7", "II.8"):
        chapter_import(document=sketch(code, problems=[]))
    for code in ("II.8", "II.7"):
        chapter_import(document=sketch(code))
    first, second = Chapter.objects.order_by("pk").filter(code__in=["II.7", "II.8"])
    settled(first, second)
    release_holder = threading.Event()

    def hold_first():
        with transaction.atomic():
            chapter_lock(chapter_id=first.pk)
            release_holder.wait(60)

    held, _ = in_thread(hold_first)
    assert until(lambda: not lockable_now(first.pk))
    sent, out = in_thread(lambda: len(list(verdicts_all_request())))
    assert until(lambda: waiting_on_locks() >= 1), "verify_all should wait on the first"
    assert lockable_now(second.pk)
    release_holder.set()
    assert held.wait(60) and sent.wait(60)
    assert out == [Solution.objects.count()]  # II.7's and II.8's six, and Book 0's
    every = list(Solution.objects.values_list("pk", flat=True))
    decided(every)
