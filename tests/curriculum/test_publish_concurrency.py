"""Publishing and deleting at once never yields a release that breaks the rule (PostgreSQL)."""

import threading

import pytest
from django.db import connection, transaction

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import problem_delete
from curriculum.domain.gate import PublishRefused, chapter_publish
from curriculum.domain.locks import chapter_lock
from curriculum.models import Chapter, Problem, Release
from tests.conftest import sketch, verify_now

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
def test_a_publish_racing_a_delete_never_releases_a_broken_chapter(books):
    for round_ in range(6):
        code = f"II.{10 + round_}"
        chapter_import(document=sketch(code=code))
        chapter = Chapter.objects.get(code=code)
        verify_now(chapter)
        exercise = Problem.objects.get(chapter=chapter, key="p3")
        publish, delete = race(
            lambda c=chapter: chapter_publish(chapter=c),
            lambda p=exercise: problem_delete(problem=p),
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
def test_a_delete_waits_while_a_publish_holds_the_chapter(books):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    exercise = Problem.objects.get(chapter=chapter, key="p3")
    with transaction.atomic():
        chapter_lock(chapter_id=chapter.pk)  # what a publish holds while it checks and snapshots
        finished, _ = in_thread(lambda: problem_delete(problem=exercise))
        assert not finished.wait(0.5), "the delete did not wait for the chapter lock"
    assert finished.wait(10)
    assert not Problem.objects.filter(pk=exercise.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_publish_waits_for_a_delete_and_then_sees_it(books):
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
