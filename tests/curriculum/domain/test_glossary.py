"""The glossary: each term defined once in a book (both paths named when it is not), a use
linked to its entry on the book's glossary page, an undefined use refused with its path."""

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.chapter_files.importing import chapter_export
from curriculum.domain.editing import ChapterWithdraw
from curriculum.domain.gate import ChapterPublish, chapter_publish
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Chapter
from tests.conftest import sketch, verify_now


def defining(body: str = "Means.", defines=("softmax temperature",), **item) -> dict:
    document = sketch("II.7")
    document["strands"]["basics"]["items"][0] |= {"body": body, "defines": list(defines), **item}
    return document


def test_a_use_links_to_the_term_on_the_glossary_and_the_file_keeps_its_terms(books):
    chapter_import(document=defining("The @term:softmax-temperature divides the scores."))
    html = chapter_for_reader(code="II.7").snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert (
        '<a href="/books/II/glossary/#term-softmax-temperature" rel="noopener noreferrer '
        'nofollow">softmax temperature</a>'
    ) in html
    assert "      defines:\n      - softmax temperature\n" in chapter_export(code="II.7")


def test_a_term_defined_twice_is_refused_naming_both_places(seeded):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=defining(defines=["Query"]))
    assert refused.value.errors == [
        "strands.basics.items[0].defines[0]: the term Query is already defined at II.3 "
        "strands.basics.items[0].defines[0]"
    ]
    document = defining(defines=["temperature"])
    document["strands"]["basics"]["items"].append(
        {"title": "Again", "body": "", "published": True, "defines": ["Temperature"]}
    )
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert sorted(refused.value.errors) == [
        "strands.basics.items[0].defines[0]: the term temperature is already defined at II.7 "
        "strands.basics.items[1].defines[0]",
        "strands.basics.items[1].defines[0]: the term Temperature is already defined at II.7 "
        "strands.basics.items[0].defines[0]",
    ]
    assert not Chapter.objects.filter(code="II.7").exists()


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({}, "reference @term:logit: Book II defines no term logit"),
        (
            {"defines": ["logit"], "published": False},
            "reference @term:logit: defined at II.7 strands.basics.items[0].defines[0], which "
            "readers cannot see (a draft chapter or an unpublished item)",
        ),
    ],
)
def test_a_use_of_a_term_readers_cannot_look_up_is_refused_with_its_path(books, changes, said):
    document = defining(**changes)
    document["problem_statement"] = "A @term:logit is a score."
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert refused.value.errors == [f"problem_statement: {said}"]


def test_a_term_is_some_words_without_a_comma(books):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=defining(defines=["a, b", " "]))
    assert refused.value.errors == [
        "strands.basics.items[0].defines[0]: a, b: a term has no comma (admin separates terms "
        "by commas)",
        "strands.basics.items[0].defines[1]: a term is some words, not blank",
    ]


def test_a_withdrawn_chapter_using_its_own_terms_is_published_again(seeded):
    """A draft's uses are as unseen as its definitions: its own terms never block its publish."""
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    ChapterWithdraw(chapter=Chapter.objects.get(code="II.3")).execute()
    assert ChapterPublish(chapter=Chapter.objects.get(code="II.3")).check() == []
    publication = ChapterPublish(chapter=Chapter.objects.get(code="II.3")).execute()
    assert publication.release.number == 1 and publication.shown_again
    assert Chapter.objects.get(code="II.3").state == Chapter.State.PUBLISHED
