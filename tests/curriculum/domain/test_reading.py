"""What readers are shown: a release, else a cached working copy that never goes stale."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import BookSave, ChapterSave, ChapterWithdraw, ProblemSave
from curriculum.domain.gate import chapter_publish
from curriculum.domain.reading import NotVisible, chapter_for_reader, release_for_reader
from curriculum.models import Book, Chapter, Problem
from tests.conftest import sketch, verify_now


def test_a_second_read_of_a_working_copy_comes_from_the_cache(books):
    chapter_import(document=sketch())
    chapter_for_reader(code="II.7")
    with CaptureQueriesContext(connection) as queries:
        view = chapter_for_reader(code="II.7")
    assert view.release is None and len(view.snapshot["problems"]) == 3
    assert len(queries) == 2
    assert not any("curriculum_problem" in q["sql"] for q in queries.captured_queries)


def test_an_edited_problem_is_shown_at_once(books):
    chapter_import(document=sketch())
    chapter_for_reader(code="II.7")
    problem = Problem.objects.get(chapter__code="II.7", key="p2")
    problem.statement = "Compute the softmax of $s$ again."
    ProblemSave(problem=problem).execute()
    shown = chapter_for_reader(code="II.7").snapshot["problems"][1]["statement"]
    assert shown == "Compute the softmax of $s$ again."


def test_a_decided_verdict_is_shown_at_once(books):
    chapter_import(document=sketch())
    before = chapter_for_reader(code="II.7").snapshot
    assert before["problems"][0]["verification"]["status"] == "pending"
    verify_now(Chapter.objects.get(code="II.7"))
    after = chapter_for_reader(code="II.7").snapshot
    assert after["problems"][0]["verification"]["status"] == "verified"
    assert after["derived"]["owes"] == 0


def test_a_retitled_apparatus_entry_and_book_are_shown_at_once(books):
    chapter_import(document=sketch(apparatus=["0.LA.01"]))
    chapter_for_reader(code="II.7")
    entry = Chapter.objects.get(code="0.LA.01")
    entry.title = "Vectors and matrices"
    ChapterSave(chapter=entry).execute()
    book = Book.objects.get(numeral="II")
    book.title = "Attention, revised"
    BookSave(book=book).execute()
    snapshot = chapter_for_reader(code="II.7").snapshot
    assert snapshot["apparatus"] == [{"code": "0.LA.01", "title": "Vectors and matrices"}]
    assert snapshot["book_title"] == "Attention, revised"


def test_a_released_chapter_shows_its_release_not_its_working_copy(books):
    chapter_import(document=sketch())
    verify_now(Chapter.objects.get(code="II.7"))
    chapter_publish(chapter=Chapter.objects.get(code="II.7"))
    chapter_import(document=sketch(title="Working title", state="published"))
    view = chapter_for_reader(code="II.7")
    assert (view.release.number, view.snapshot["title"]) == (1, "A Sketch")
    assert chapter_for_reader(code="II.7", staff=True, preview=True).snapshot["title"] == (
        "Working title"
    )


def test_a_chapter_put_back_to_draft_is_withdrawn_with_its_history(books):
    chapter_import(document=sketch())
    verify_now(Chapter.objects.get(code="II.7"))
    chapter_publish(chapter=Chapter.objects.get(code="II.7"))
    chapter_import(document=sketch(state="draft"))
    with pytest.raises(NotVisible):
        chapter_for_reader(code="II.7")
    with pytest.raises(NotVisible):
        release_for_reader(code="II.7", number=1)
    assert chapter_for_reader(code="II.7", staff=True).release.number == 1


def test_a_draft_is_invisible_to_readers_and_visible_to_staff(books):
    chapter_import(document=sketch(state="draft"))
    with pytest.raises(NotVisible):
        chapter_for_reader(code="II.7")
    assert chapter_for_reader(code="II.7", staff=True).snapshot["state"] == "draft"


def test_apparatus_shows_released_titles_and_hides_draft_entries(books):
    chapter_import(document=sketch(apparatus=["0.LA.01", "0.MC.07"]))
    entry = Chapter.objects.get(code="0.LA.01")
    chapter_publish(chapter=entry)  # released as it stands
    entry.title = "A working title nobody has released"
    entry.save()
    draft = Chapter.objects.get(code="0.MC.07")
    draft.state = "draft"
    draft.save()
    shown = chapter_for_reader(code="II.7").snapshot["apparatus"]
    assert shown == [{"code": "0.LA.01", "title": "Vectors, matrices and the row-major convention"}]
    preview = chapter_for_reader(code="II.7", staff=True, preview=True).snapshot["apparatus"]
    assert [a["code"] for a in preview] == ["0.LA.01", "0.MC.07"]


def test_a_withdrawn_entry_leaves_a_cached_working_copy_at_once(books):
    chapter_import(document=sketch(apparatus=["0.LA.01", "0.MC.07"]))
    ChapterSave(chapter=Chapter.objects.get(code="0.MC.07")).execute()  # the newer of the two
    assert len(chapter_for_reader(code="II.7").snapshot["apparatus"]) == 2  # now cached
    ChapterWithdraw(chapter=Chapter.objects.get(code="0.LA.01")).execute()
    shown = chapter_for_reader(code="II.7").snapshot["apparatus"]
    assert [a["code"] for a in shown] == ["0.MC.07"]


def test_an_unpublished_solution_has_no_verdict_shown(books):
    doc = sketch()
    doc["problems"][1]["solution"]["published"] = False
    chapter_import(document=doc)
    verify_now(Chapter.objects.get(code="II.7"))
    problems = chapter_for_reader(code="II.7").snapshot["problems"]
    assert "solution" not in problems[1] and problems[1]["verification"] is None
    assert problems[0]["verification"]["status"] == "verified"
