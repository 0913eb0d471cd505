"""Publishing beside a delete, a rename of its book or an edit never yields a release that
breaks a rule (PostgreSQL, real threads and connections)."""

import threading

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from curriculum.domain import gate
from curriculum.domain.chapter_files import chapter_import, source_tag
from curriculum.domain.editing import ProblemDelete
from curriculum.domain.gate import (
    CHANGED_SINCE_REVIEW,
    ChapterPublish,
    PublishOutdated,
    PublishRefused,
    chapter_publish,
)
from curriculum.domain.locks import chapter_lock
from curriculum.models import Book, Chapter, Problem, Release
from tests.conftest import sketch, verify_now
from tests.curriculum.admin.test_books_chapters import resubmitted, shown_errors

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks")


def race(*actions):
    barrier = threading.Barrier(len(actions))
    outcomes = [None] * len(actions)

    def run(i, action):
        barrier.wait()
        try:
            outcomes[i] = action()
        except Exception as error:  # noqa: BLE001 - recorded and asserted on
            outcomes[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.django_db(transaction=True)
def test_a_publish_racing_a_delete_never_releases_a_broken_chapter(books_committed):
    for round_ in range(6):
        code = f"II.{10 + round_}"
        chapter_import(document=sketch(code=code))
        chapter = Chapter.objects.get(code=code)
        verify_now(chapter)
        exercise = Problem.objects.get(chapter=chapter, key="p3")
        publish, delete = race(
            lambda c=chapter: chapter_publish(chapter=c),
            lambda p=exercise: ProblemDelete(problem=p).execute(),
        )
        assert delete is None
        assert isinstance(publish, Release | PublishRefused)
        for release in Release.objects.filter(chapter=chapter):
            derived = release.snapshot["derived"]
            assert derived["owes"] == 0 and derived["exercises"]["done"] >= 2
            assert {p["key"] for p in release.snapshot["problems"]} == {"p1", "p2", "p3"}


def in_thread(action):
    """Run `action` on its own connection; the returned event is set when it has finished."""
    finished, outcome = threading.Event(), []

    def run():
        try:
            outcome.append(action())
        except Exception as error:  # noqa: BLE001 - recorded and asserted on
            outcome.append(error)
        finally:
            connection.close()
            finished.set()

    threading.Thread(target=run).start()
    return finished, outcome


@pytest.mark.django_db(transaction=True)
def test_a_delete_waits_while_a_publish_holds_the_chapter(books_committed):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    exercise = Problem.objects.get(chapter=chapter, key="p3")
    with transaction.atomic():
        chapter_lock(chapter_id=chapter.pk)  # what a publish holds while it checks and snapshots
        finished, _ = in_thread(lambda: ProblemDelete(problem=exercise).execute())
        assert not finished.wait(0.5), "the delete did not wait for the chapter lock"
    assert finished.wait(10)
    assert not Problem.objects.filter(pk=exercise.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_publish_waits_for_a_delete_and_then_sees_it(books_committed):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    with transaction.atomic():
        chapter_lock(chapter_id=chapter.pk)
        Problem.objects.filter(chapter=chapter, key="p3").delete()
        finished, outcome = in_thread(lambda: chapter_publish(chapter=chapter))
        assert not finished.wait(0.5), "the publish did not wait for the chapter lock"
    assert finished.wait(10)
    assert isinstance(outcome[0], PublishRefused)
    assert "exercises: 1 of 2 required at M1 are published and verified" in outcome[0].reasons
    assert not Release.objects.exists()


def ready(code: str = "II.7") -> Chapter:
    chapter_import(document=sketch(code=code))
    chapter = Chapter.objects.get(code=code)
    verify_now(chapter)
    return chapter


def paused(function, reached: threading.Event, go: threading.Event):
    """`function`, whose first call is held once it has run until the test lets it go (later
    calls return at once)."""

    def hold(*args, **kwargs):
        result = function(*args, **kwargs)
        if not reached.is_set():
            reached.set()
            assert go.wait(30), "the test never let the paused writer go"
        return result

    return hold


def renaming(erin, numeral: str = "XX"):
    """Erin's admin page for Book II, opened now, its numeral changed: send it when called."""
    client = Client()
    client.force_login(erin)
    url = reverse("admin:curriculum_book_change", args=[Book.objects.get(numeral="II").pk])
    data = resubmitted(client.get(url)) | {"numeral": numeral}
    return lambda: client.post(url, data)


@pytest.mark.django_db(transaction=True)
def test_a_book_renamed_while_one_of_its_chapters_is_published_waits_and_keeps_its_numeral(
    books_committed, erin, monkeypatch
):
    """The publish holds the chapter and its book while it snapshots: the rename waits, then
    sees the release and is refused with its reason."""
    chapter, rename = ready(), renaming(erin)
    reached, go, checked = threading.Event(), threading.Event(), threading.Event()
    monkeypatch.setattr(gate, "chapter_snapshot", paused(gate.chapter_snapshot, reached, go))
    clean = Book.clean
    monkeypatch.setattr(Book, "clean", lambda book: (clean(book), checked.set())[0])
    published, release = in_thread(lambda: chapter_publish(chapter=chapter))
    assert reached.wait(30), "the publish never reached its snapshot"
    renamed, page = in_thread(rename)
    assert checked.wait(30), "the rename's form was never checked"
    assert not renamed.wait(1), "the rename did not wait for the publish"
    go.set()
    assert published.wait(30) and renamed.wait(30)
    assert isinstance(release[0], Release), release
    assert page[0].status_code == 200, page[0]
    assert "the numeral cannot change (it is II)" in shown_errors(page[0])
    assert Book.objects.filter(numeral="II").exists() and not Book.objects.filter(numeral="XX")


@pytest.mark.django_db(transaction=True)
def test_a_rename_whose_check_a_publish_overtook_is_refused(books_committed, erin, monkeypatch):
    """The rename's form found no release; a publish committed before the rename wrote: the
    rename, checked again under the book's lock, is refused and the page says why."""
    chapter, rename = ready(), renaming(erin)
    reached, go = threading.Event(), threading.Event()
    monkeypatch.setattr(Book, "clean", paused(Book.clean, reached, go))
    renamed, page = in_thread(rename)
    assert reached.wait(30), "the rename never reached its check"
    release = chapter_publish(chapter=chapter)
    go.set()
    assert renamed.wait(30)
    assert release.number == 1
    assert page[0].status_code == 200, page[0]
    assert "the numeral cannot change (it is II)" in shown_errors(page[0])
    assert Book.objects.filter(numeral="II").exists() and not Book.objects.filter(numeral="XX")


@pytest.mark.django_db(transaction=True)
def test_a_publish_waits_for_a_rename_of_its_book_and_then_refuses_the_code_it_no_longer_carries(
    books_committed,
):
    chapter = ready()
    with transaction.atomic():
        book = Book.objects.select_for_update().get(numeral="II")  # what a rename holds
        Book.objects.filter(pk=book.pk).update(numeral="XX")
        finished, outcome = in_thread(lambda: chapter_publish(chapter=chapter))
        assert not finished.wait(0.5), "the publish did not wait for the rename"
    assert finished.wait(10)
    assert isinstance(outcome[0], PublishRefused), outcome
    assert "code II.7: a chapter of Book XX has a code starting XX." in outcome[0].reasons
    assert not Release.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_publish_of_the_version_reviewed_waits_for_an_edit_under_way_and_then_refuses_it(
    books_committed,
):
    chapter = ready()
    reviewed = frozenset({source_tag(code="II.7")})
    with transaction.atomic():
        chapter_lock(chapter_id=chapter.pk)  # what an author's save holds while it writes
        Chapter.objects.filter(pk=chapter.pk).update(thesis="An author's late claim.")
        finished, outcome = in_thread(
            lambda: ChapterPublish(chapter=chapter, reviewed=reviewed).execute()
        )
        assert not finished.wait(0.5), "the publish did not wait for the edit"
    assert finished.wait(10)
    assert isinstance(outcome[0], PublishOutdated), outcome
    assert outcome[0].reasons == [CHANGED_SINCE_REVIEW]
    assert not Release.objects.exists()
