"""Two writers creating one chapter at once (PostgreSQL): the one whose insert finds it created
meanwhile writes again as if it had found it, never a 500 (a hostile test's burst of eight PUTs
to a new code got one 500 each time: IntegrityError on the chapter's unique code)."""

import threading

import pytest
from django.db import connection

from curriculum.domain.chapter_files import importing
from curriculum.domain.chapter_files.importing import ChapterImport
from curriculum.domain.working_copy import SourceChanged
from curriculum.models import Chapter
from tests.conftest import sketch
from tests.curriculum.domain.test_gate_concurrency import in_thread

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent inserts"),
    pytest.mark.django_db(transaction=True),
]


def both_create(monkeypatch, **guard) -> list:
    """Two imports of II.7, each past its check that there is none before either writes."""
    met, calls = threading.Barrier(2, timeout=30), []
    write = importing._write_chapter

    def meeting(*args, **kwargs):
        calls.append(1)
        if len(calls) <= 2:  # the two first writes; the one that goes again passes
            met.wait()
        return write(*args, **kwargs)

    monkeypatch.setattr(importing, "_write_chapter", meeting)
    runs = [
        in_thread(
            lambda title=title: ChapterImport(document=sketch(title=title), **guard).execute()
        )
        for title in ("First", "Second")
    ]
    assert all(finished.wait(60) for finished, _ in runs)
    return [outcome[0] for _, outcome in runs]


def test_the_writer_that_finds_the_chapter_created_meanwhile_writes_over_it(books, monkeypatch):
    outcomes = both_create(monkeypatch)
    assert sorted(o.created for o in outcomes) == [False, True], outcomes
    assert Chapter.objects.filter(code="II.7").count() == 1


def test_creating_only_the_other_is_refused_as_if_it_had_found_it(books, monkeypatch):
    outcomes = both_create(monkeypatch, if_none_match=frozenset({"*"}))
    refused = [o for o in outcomes if isinstance(o, SourceChanged)]
    created = [o for o in outcomes if not isinstance(o, Exception)]
    assert len(refused) == 1 and [o.created for o in created] == [True], outcomes
