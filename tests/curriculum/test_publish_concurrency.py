"""Publishing and deleting at once never yields a release that breaks the rule (PostgreSQL)."""

import threading

import pytest
from django.db import connection

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import problem_delete
from curriculum.domain.gate import PublishRefused, chapter_publish
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
