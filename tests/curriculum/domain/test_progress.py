"""A reader's progress: per problem solved or not, on which instance and when (the first right
attempt) and how many attempts; per chapter n of m, m the problems its page lists now; per book
the sum. Another reader's attempts never count."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User

import attention
from curriculum.domain import progress as progress_module
from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.domain.practice import practisable
from curriculum.domain.progress import (
    books_progress,
    chapter_progress,
    chapter_shown,
    progress_tag,
)
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Attempt, Chapter
from tests.conftest import problem, sketch, verify_now

SCORES = {"generate": "normal", "shape": [2, 3], "seed": 7}
START = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def practised_chapter(code: str = "II.7", *, keys: tuple[str, ...] = ("p1", "p2", "p3")) -> None:
    """A released chapter of Book II: p1 a worked problem, the rest exercises, p3 generated (so
    it can be practised); verified and released."""
    answer = attention.evaluate("softmax", {"scores": SCORES}, {"output": "out"}, 0).tolist()
    made = {
        "p1": problem("p1", "worked", "softmax-row"),
        "p2": problem("p2"),
        "p3": problem("p3", scores=SCORES, answer=answer),
        "p4": problem("p4", variant="softmax-other"),
    }
    chapter_import(document=sketch(code, problems=[made[key] for key in keys]))
    chapter = Chapter.objects.get(code=code)
    verify_now(chapter)
    chapter_publish(chapter=chapter)


def attempt(reader: User, key: str, *, right: bool, instance: int = 4, minutes: int = 0, **rest):
    """One checked answer, as the practice page records it."""
    return Attempt.objects.create(
        reader=reader,
        chapter_code=rest.pop("code", "II.7"),
        problem_key=key,
        release=rest.pop("release", 1),
        instance=instance,
        answer=rest.pop("answer", "0.5 0.5"),
        right=right,
        mistake=rest.pop("mistake", ""),
        at=START + timedelta(minutes=minutes),
    )


@pytest.fixture
def course(books):
    practised_chapter()


@pytest.fixture
def rita(db):
    return User.objects.create_user("rita", password="rita-pass-9-long")


@pytest.fixture
def sam(db):
    return User.objects.create_user("sam", password="sam-pass-9-long")


def by_key(progress) -> dict:
    return {p.problem.key: p for p in progress.problems}


def test_a_reader_lists_every_problem_of_a_chapter_once_they_have_tried_one(course, rita):
    assert chapter_progress(reader=rita, code="II.7") is None
    attempt(rita, "p2", right=False)
    progress = chapter_progress(reader=rita, code="II.7")
    assert (progress.solved, progress.total, progress.attempted) == (0, 3, True)
    labels = [(p.problem.label, p.attempts) for p in progress.problems]
    assert labels == [("Worked problem 1", 0), ("Exercise 1", 1), ("Exercise 2", 0)]
    shown = chapter_for_reader(code="II.7").snapshot["problems"]
    assert [p.problem.practisable for p in progress.problems] == [practisable(p) for p in shown]


def test_a_problem_is_solved_by_its_first_right_attempt_and_every_attempt_counts(course, rita):
    attempt(rita, "p3", right=False, instance=2, minutes=0)
    attempt(rita, "p3", right=True, instance=5, minutes=3)
    attempt(rita, "p3", right=True, instance=9, minutes=7, release=2)
    attempt(rita, "p2", right=False, minutes=8)
    progress = chapter_progress(reader=rita, code="II.7")
    p3, p2 = by_key(progress)["p3"], by_key(progress)["p2"]
    assert (progress.solved, progress.total) == (1, 3)
    assert (p3.solved.instance, p3.solved.release, p3.solved.at) == (
        5,
        1,
        START + timedelta(minutes=3),
    )
    assert p3.attempts == 3
    assert p2.solved is None and p2.attempts == 1


def test_another_readers_attempts_never_count(course, rita, sam):
    attempt(sam, "p3", right=True)
    assert chapter_progress(reader=rita, code="II.7") is None  # nothing tried: nothing loaded
    assert chapter_progress(reader=sam, code="II.7").solved == 1


def test_the_chapter_counts_the_problems_its_latest_release_lists(course, rita):
    attempt(rita, "p2", right=True)
    attempt(rita, "p3", right=True)
    practised_chapter(keys=("p1", "p3", "p4"))  # release 2 drops p2 and adds p4
    progress = chapter_progress(reader=rita, code="II.7")
    assert [p.problem.key for p in progress.problems] == ["p1", "p3", "p4"]
    assert (progress.solved, progress.total) == (1, 3)


def test_a_book_sums_its_chapters_and_lists_only_what_readers_may_see(course, rita):
    practised_chapter("II.8")
    chapter_import(document=sketch("II.9", state="draft"))
    attempt(rita, "p3", right=True)
    attempt(rita, "p3", right=True, code="II.8")
    attempt(rita, "p2", right=True, code="II.8")
    (book,) = books_progress(reader=rita, numeral="II")
    assert [(c.code, c.solved, c.total) for c in book.chapters] == [("II.7", 1, 3), ("II.8", 2, 3)]
    assert (book.solved, book.total) == (3, 6)
    every = {b.numeral: (b.solved, b.total) for b in books_progress(reader=rita)}
    assert every["II"] == (3, 6) and every["0"][0] == 0


def test_the_progress_tag_moves_with_each_attempt_and_differs_between_readers(course, rita, sam):
    before = progress_tag(reader=rita, code="II.7")
    assert progress_tag(reader=rita, code="II.7") == before
    assert progress_tag(reader=sam, code="II.7") != before
    attempt(rita, "p3", right=False)
    assert progress_tag(reader=rita, code="II.7") != before


def test_what_a_chapter_lists_is_read_once_per_version(course, rita, monkeypatch):
    chapter_shown(code="II.7")
    attempt(rita, "p3", right=False)
    monkeypatch.setattr(
        progress_module, "chapter_for_reader", lambda **_: pytest.fail("read again")
    )
    assert chapter_progress(reader=rita, code="II.7").total == 3
