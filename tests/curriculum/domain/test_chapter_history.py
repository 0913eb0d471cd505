"""Every committed write of a chapter is one revision of its document, with who and through
what; a write that changes no document records nothing; the newest REVISIONS_KEPT are kept."""

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.chapter_history import HISTORY_BEGAN, chapter_history, history_begin
from curriculum.domain.editing import ProblemSave
from curriculum.domain.writers import writing
from curriculum.models import Chapter, ChapterRevision, Problem
from tests.conftest import sketch, verify_now


def test_an_import_is_one_revision_of_the_whole_document(books, alice, committed):
    committed(lambda: chapter_import(document=sketch(), user=alice))
    (revision,) = ChapterRevision.objects.filter(chapter__code="II.7")
    assert revision.number == 1 and revision.made_by == "alice" and revision.created_by == alice
    assert revision.document["title"] == "A Sketch"
    assert [p["key"] for p in revision.document["problems"]] == ["p1", "p2", "p3"]


def test_the_door_and_the_user_are_recorded(books, alice, committed):
    with writing(via="API"):
        committed(lambda: chapter_import(document=sketch(), user=alice))
    committed(lambda: chapter_import(document=sketch(title="Renamed")))
    newest, first = chapter_history(chapter=Chapter.objects.get(code="II.7"))
    assert (first.via, first.made_by) == ("API", "alice")
    assert (newest.number, newest.via, newest.made_by) == (2, "", "system")


def test_a_problem_save_is_a_revision_and_a_verdict_is_none(books, committed):
    committed(lambda: chapter_import(document=sketch()))
    chapter = Chapter.objects.get(code="II.7")
    committed(lambda: verify_now(chapter))
    assert ChapterRevision.objects.filter(chapter=chapter).count() == 1
    problem = Problem.objects.get(chapter=chapter, key="p2")
    problem.statement = "Another statement."
    committed(lambda: ProblemSave(problem=problem).execute())
    newest = chapter_history(chapter=chapter)[0]
    assert newest.number == 2
    stored = ChapterRevision.objects.get(pk=newest.pk).document
    assert stored["problems"][1]["statement"] == "Another statement."


def test_a_problem_moved_to_another_chapter_moves_both_and_is_a_revision_of_each(books, committed):
    """Admin's problem page lets its chapter be changed: the chapter it leaves loses it at
    once, for readers (its revision moves) and in its history, as the one it joins gains it."""
    committed(lambda: chapter_import(document=sketch()))
    committed(lambda: chapter_import(document=sketch(code="II.8", title="Other")))
    left, joined = Chapter.objects.get(code="II.7"), Chapter.objects.get(code="II.8")
    revisions = {chapter.pk: chapter.revision for chapter in (left, joined)}
    problem = Problem.objects.get(chapter=left, key="p2")
    problem.chapter, problem.key = joined, "p9"
    committed(lambda: ProblemSave(problem=problem).execute())
    for chapter in (left, joined):
        chapter.refresh_from_db()
        assert chapter.revision > revisions[chapter.pk], chapter.code
    keys = {
        chapter.code: sorted(
            p["key"] for p in chapter_history(chapter=chapter)[0].document["problems"]
        )
        for chapter in (left, joined)
    }
    assert keys == {"II.7": ["p1", "p3"], "II.8": ["p1", "p2", "p3", "p9"]}


def test_an_unchanged_write_records_nothing(books, committed):
    committed(lambda: chapter_import(document=sketch()))
    committed(lambda: chapter_import(document=sketch()))
    assert ChapterRevision.objects.filter(chapter__code="II.7").count() == 1


def test_the_oldest_beyond_the_limit_are_pruned(books, committed, settings):
    settings.REVISIONS_KEPT = 2
    for title in ("One", "Two", "Three", "Four"):
        committed(lambda title=title: chapter_import(document=sketch(title=title)))
    kept = chapter_history(chapter=Chapter.objects.get(code="II.7"))
    assert [r.number for r in kept] == [4, 3]


def test_a_chapter_from_before_the_history_gets_its_first_revision(books):
    chapter_import(document=sketch())  # never committed here: no revision recorded
    assert history_begin() == Chapter.objects.count()
    (revision,) = chapter_history(chapter=Chapter.objects.get(code="II.7"))
    assert revision.note == HISTORY_BEGAN and history_begin() == 0
