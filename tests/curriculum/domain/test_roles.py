"""Roles as documented: Authors edit chapters and problems but never books, never delete a
chapter; Editors do; a released chapter is deleted by no one."""

import pytest

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import BookSave, ChapterDelete, ChapterSave
from curriculum.domain.gate import chapter_publish
from curriculum.domain.roles import Forbidden
from curriculum.models import Book, Chapter
from tests.conftest import sketch, verify_now


def test_an_author_edits_chapters_but_not_books(books, alice):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    chapter.title = "Renamed by an author"
    ChapterSave(chapter=chapter, user=alice).execute()
    book = Book.objects.get(numeral="II")
    book.title = "Renamed"
    with pytest.raises(Forbidden, match="change_book"):
        BookSave(book=book, user=alice).execute()
    assert Book.objects.get(numeral="II").title != "Renamed"


def test_only_editors_delete_chapters_and_only_unreleased_ones(books, alice, erin):
    chapter_import(document=sketch("II.7"))
    chapter_import(document=sketch("II.8"))
    draft, released = Chapter.objects.get(code="II.7"), Chapter.objects.get(code="II.8")
    with pytest.raises(Forbidden, match="only Editors delete chapters"):
        ChapterDelete(chapter=draft, user=alice).execute()
    verify_now(released)
    chapter_publish(chapter=released)
    with pytest.raises(Forbidden, match="II.8 has releases, kept for good"):
        ChapterDelete(chapter=released, user=erin).execute()
    ChapterDelete(chapter=draft, user=erin).execute()
    assert list(
        Chapter.objects.filter(code__in=["II.7", "II.8"]).values_list("code", flat=True)
    ) == ["II.8"]
