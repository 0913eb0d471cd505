"""A library or glossary change never leaves a chapter citing or using what it took away: the
library save and the chapter write are refused naming the chapters and paths; a release keeps its
References; a change to what the glossary shows renders the book's pages again."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from curriculum.domain.bibliography import library_errors
from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.chapter_files.importing import file_import
from curriculum.domain.editing import BookSave
from curriculum.domain.gate import chapter_publish
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Book, Chapter
from tests.conftest import sketch, verify_now

CSL = '[{"id": "vaswani2017", "type": "paper-conference", "title": "Attention Is All You Need"}]'


def bibliography_saved(text: str) -> None:
    book = Book.objects.get(numeral="II")
    book.bibliography = text
    BookSave(book=book).execute()


def without(key: str) -> str:
    """Book II's library without the entry `key`."""
    text = Book.objects.get(numeral="II").bibliography
    start = text.index("@", text.index("{" + key) - 20)
    end = text.index("\n}", start) + 2
    return text[:start] + text[end:]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (CSL, "this looks like CSL-JSON, which is not read: a book's library is BibTeX"),
        ("Vaswani et al., Attention Is All You Need, 2017", "no work found: a book's library"),
    ],
)
def test_a_library_with_no_bibtex_entry_is_refused_not_stored_empty(books, text, said):
    assert library_errors(text)[0].startswith(said)
    with pytest.raises(ValidationError) as refused:
        bibliography_saved(text)
    assert refused.value.message_dict["bibliography"][0].startswith(said)
    assert "vaswani2017" in Book.objects.get(numeral="II").bibliography


def test_dropping_a_work_a_chapter_cites_is_refused_naming_the_chapter_and_path(seeded, client):
    with pytest.raises(ValidationError) as refused:
        bibliography_saved(without("vaswani2017"))
    (why,) = refused.value.message_dict["bibliography"]
    assert why.startswith("vaswani2017: cited by II.3 ")
    assert "keep it, or remove those citations first" in why
    assert "vaswani2017" in Book.objects.get(numeral="II").bibliography
    with pytest.raises(ChapterFileError) as refused:
        file_import(
            text='numeral: "II"\ntitle: Attention\nslug: attention\nbibliography: |\n  '
            + without("vaswani2017").replace("\n", "\n  ")
        )
    assert refused.value.errors[0].startswith("bibliography: vaswani2017: cited by II.3 ")
    page = client.get(reverse("site:bibliography", args=["II"])).content.decode()
    assert 'id="ref-vaswani2017"' in page


def test_dropping_a_work_no_chapter_cites_saves(books):
    bibliography_saved(without("vaswani2017"))
    assert "vaswani2017" not in Book.objects.get(numeral="II").bibliography


def test_a_release_keeps_its_references_when_the_library_changes_later(books):
    document = sketch("II.7")
    document["strands"]["basics"]["items"][0]["body"] = "See @cite:luong2015."
    chapter_import(document=document)
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    release = chapter_publish(chapter=chapter)
    text = Book.objects.get(numeral="II").bibliography
    bibliography_saved(text.replace("{Effective Approaches", "{Ineffective Approaches"))
    shown = chapter_for_reader(code="II.7").snapshot  # the release
    assert shown["references"] == release.snapshot["references"]
    assert "Effective approaches" in shown["references"][0]["html"]
    working = chapter_for_reader(code="II.7", staff=True, preview=True).snapshot
    assert "Ineffective approaches" in working["references"][0]["html"]


def defining(code: str, defines: list[str], body: str = "Means.") -> dict:
    document = sketch(code)
    document["strands"]["basics"]["items"][0] |= {"body": body, "defines": defines}
    return document


@pytest.fixture
def zeta(books):
    """II.9 defines zeta; II.10 uses it."""
    chapter_import(document=defining("II.9", ["zeta"]))
    chapter_import(document=defining("II.10", [], "The @term:zeta of it."))


@pytest.mark.parametrize("defines", [[], ["zeta function"]])
def test_a_term_another_chapter_uses_cannot_be_removed_or_renamed(zeta, defines):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=defining("II.9", defines))
    assert refused.value.errors == [
        "strands: the term zeta is used by II.10 strands.basics.items[0].body: keep defining it "
        "in a published item, or remove those uses first"
    ]
    assert Chapter.objects.get(code="II.9").strand_items.get().defines == "zeta"
    unpublished = defining("II.9", ["zeta"])
    unpublished["strands"]["basics"]["items"][0]["published"] = False
    with pytest.raises(ChapterFileError):
        chapter_import(document=unpublished)


def test_a_term_no_other_chapter_uses_can_be_removed(zeta):
    chapter_import(document=defining("II.10", [], "No term."))
    chapter_import(document=defining("II.9", []))
    assert Chapter.objects.get(code="II.9").strand_items.get().defines == ""


def test_a_change_to_the_glossary_renders_the_pages_using_it_again(zeta, client):
    revision = Chapter.objects.get(code="II.10").revision
    page = client.get(reverse("site:chapter", args=["II.10"])).content.decode()
    assert ">zeta</a>" in page
    chapter_import(document=defining("II.9", ["Zeta"]))
    assert Chapter.objects.get(code="II.10").revision > revision
    page = client.get(reverse("site:chapter", args=["II.10"])).content.decode()
    assert ">Zeta</a>" in page and ">zeta</a>" not in page
