"""Two writers of one chapter at once (PostgreSQL). Creating it: the one whose insert finds it
created meanwhile writes again as if it had found it, never a 500 (a hostile test's burst of
eight PUTs to a new code got one 500 each time: IntegrityError on the chapter's unique code).
Writing over it: each write moves its revision, though both read the chapter before either
wrote (a hostile test's four PUTs at once left two texts at one revision, and readers were shown
the one overwritten, from its cache, until the next write)."""

import threading

import pytest
from django.db import connection

from curriculum.domain.chapter_files import importing
from curriculum.domain.chapter_files.importing import ChapterImport, chapter_import
from curriculum.domain.working_copy import SourceChanged
from curriculum.models import Chapter
from tests.conftest import sketch
from tests.curriculum.domain.test_gate_concurrency import in_thread

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent inserts"),
    pytest.mark.django_db(transaction=True),
]


def meeting_at_the_write(monkeypatch) -> None:
    """The first two imports' writes wait for each other: each has read the chapter (or found
    none) before either writes; a write that goes again passes."""
    met, calls = threading.Barrier(2, timeout=30), []
    write = importing._write_chapter

    def meeting(*args, **kwargs):
        calls.append(1)
        if len(calls) <= 2:
            met.wait()
        return write(*args, **kwargs)

    monkeypatch.setattr(importing, "_write_chapter", meeting)


def at_once(*actions) -> list:
    """Each action on its own connection, all at once; their results (or errors), in order."""
    runs = [in_thread(action) for action in actions]
    assert all(finished.wait(60) for finished, _ in runs)
    return [outcome[0] for _, outcome in runs]


def both_create(monkeypatch, **guard) -> list:
    """Two imports of II.7, each past its check that there is none before either writes."""
    meeting_at_the_write(monkeypatch)
    return at_once(
        *(
            lambda title=title: ChapterImport(document=sketch(title=title), **guard).execute()
            for title in ("First", "Second")
        )
    )


def test_the_writer_that_finds_the_chapter_created_meanwhile_writes_over_it(
    books_committed, monkeypatch
):
    outcomes = both_create(monkeypatch)
    assert sorted(o.created for o in outcomes) == [False, True], outcomes
    assert Chapter.objects.filter(code="II.7").count() == 1


def test_creating_only_the_other_is_refused_as_if_it_had_found_it(books_committed, monkeypatch):
    outcomes = both_create(monkeypatch, if_none_match=frozenset({"*"}))
    refused = [o for o in outcomes if isinstance(o, SourceChanged)]
    created = [o for o in outcomes if not isinstance(o, Exception)]
    assert len(refused) == 1 and [o.created for o in created] == [True], outcomes


def unverified(title: str) -> dict:
    """II.7 with no problems: no verdict of a worker's moves its revision beside the writers'."""
    return sketch(title=title, state="in_progress", problems=[])


def test_two_writers_over_one_chapter_each_move_its_revision(books_committed, monkeypatch, client):
    chapter_import(document=unverified("Made"))
    before = Chapter.objects.get(code="II.7").revision
    chapter_import(document=unverified("Alone"))
    one_write = Chapter.objects.get(code="II.7").revision - before
    client.get("/api/v1/chapters/II.7")  # the page cached at that revision
    meeting_at_the_write(monkeypatch)
    outcomes = at_once(
        *(
            lambda title=title: ChapterImport(document=unverified(title)).execute()
            for title in ("First", "Second")
        )
    )
    assert not any(isinstance(o, Exception) for o in outcomes), outcomes
    chapter = Chapter.objects.get(code="II.7")
    assert chapter.revision == before + 3 * one_write
    assert client.get("/api/v1/chapters/II.7").json()["title"] == chapter.title
