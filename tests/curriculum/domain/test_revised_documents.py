"""What a commit keeps of its chapter's document (the verdicts its claims lack, a revision in
its history, the chapters its texts name) comes from one read of the chapter, read again only
for a chapter another write moved meanwhile."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.revised_documents import documents_revised
from curriculum.domain.selectors import ChapterDocuments
from curriculum.domain.writers import Writer
from curriculum.models import Chapter, ChapterReference, ChapterRevision, ClaimVerdict, Problem
from tests.conftest import sketch

CLAIMED = "{{ 0.731059 = softmax(scores=[1, 0]).out[0] }} of it, as @II.8 says."


def _problem_reads(queries: CaptureQueriesContext) -> int:
    table = Problem._meta.db_table
    return sum(
        1 for q in queries.captured_queries if q["sql"].startswith("SELECT") and table in q["sql"]
    )


def test_claims_history_and_references_share_one_read_of_the_chapter(books):
    chapter_import(document=sketch("II.8"))
    chapter_import(document=sketch(thesis=CLAIMED))  # not committed: nothing kept of it yet
    chapter = Chapter.objects.get(code="II.7")
    with CaptureQueriesContext(connection) as queries:
        documents_revised(Chapter, chapter_ids=frozenset({chapter.pk}), writer=Writer())
    assert _problem_reads(queries) == 1
    (revision,) = ChapterRevision.objects.filter(chapter=chapter)
    assert revision.document["thesis"] == CLAIMED
    assert ClaimVerdict.objects.filter(chapters=chapter).count() == 1
    named = ChapterReference.objects.filter(chapter=chapter).values_list("target__code", flat=True)
    assert list(named) == ["II.8"]


def test_a_chapter_moved_since_it_was_read_is_read_again(books):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    documents = ChapterDocuments([chapter.pk])
    ((_, first),) = documents()
    with CaptureQueriesContext(connection) as queries:
        ((_, again),) = documents()
    assert again is first and _problem_reads(queries) == 0
    chapter_import(document=sketch(title="Retitled"))  # moves its revision
    ((_, moved),) = documents()
    assert (first["title"], moved["title"]) == ("A Sketch", "Retitled")


def test_a_chapter_deleted_since_is_left_out(books):
    chapter_import(document=sketch())
    chapter_import(document=sketch("II.8"))
    pks = dict(Chapter.objects.values_list("code", "pk"))
    documents = ChapterDocuments([pks["II.8"], pks["II.7"]])
    assert [chapter.code for chapter, _ in documents()] == ["II.7", "II.8"]
    Chapter.objects.filter(code="II.7").delete()
    assert [chapter.code for chapter, _ in documents()] == ["II.8"]
