"""Citations: `@cite:key` reads "[1]", numbered in the order the chapter first cites each work,
linking to the chapter's References; an unknown key is refused with its path and blocks
publishing; a release keeps its References as they were formatted."""

import re

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.gate import ChapterPublish, chapter_publish
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Book, Chapter
from tests.conftest import sketch, verify_now


def cites(body: str) -> dict:
    document = sketch("II.7")
    document["strands"]["basics"]["items"][0]["body"] = body
    return document


def test_citations_are_numbered_in_order_and_the_chapter_lists_its_references(books):
    chapter_import(
        document=cites("First @cite:vaswani2017, then @cite:bahdanau2015; again @cite:vaswani2017.")
    )
    snapshot = chapter_for_reader(code="II.7").snapshot
    html = snapshot["strands"]["basics"]["items"][0]["body_html"]
    assert re.findall(r'<a href="(#ref-[^"]*)" title="([^"]*)"[^>]*>([^<]*)</a>', html) == [
        ("#ref-vaswani2017", "Vaswani et al. 2017", "[1]"),
        ("#ref-bahdanau2015", "Bahdanau et al. 2015", "[2]"),
        ("#ref-vaswani2017", "Vaswani et al. 2017", "[1]"),
    ]
    assert html.rstrip().endswith("[1]</a>.</p>")  # the full stop ends the sentence, not the key
    assert [(r["number"], r["key"]) for r in snapshot["references"]] == [
        (1, "vaswani2017"),
        (2, "bahdanau2015"),
    ]
    assert "Attention is all you need" in snapshot["references"][0]["html"]


def test_an_unknown_key_is_refused_with_its_path(books):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=cites("As @cite:nobody2020 showed."))
    assert refused.value.errors == [
        "strands.basics.items[0].body: reference @cite:nobody2020: Book II's bibliography "
        "has no work nobody2020"
    ]
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_work_taken_out_of_the_library_blocks_publishing_and_a_release_keeps_it(books):
    chapter_import(document=cites("See @cite:luong2015."))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    release = chapter_publish(chapter=chapter)
    Book.objects.filter(numeral="II").update(bibliography="")
    reasons = ChapterPublish(chapter=chapter).check()
    assert (
        "strands.basics.items[0].body: reference @cite:luong2015: Book II's bibliography has no "
        "work luong2015" in reasons
    )
    shown = chapter_for_reader(code="II.7").snapshot  # the release, as it was made
    assert shown["references"] == release.snapshot["references"]
    assert "Effective approaches" in shown["references"][0]["html"]


def test_the_seed_cites_its_papers_in_ii_3(seeded):
    snapshot = chapter_for_reader(code="II.3").snapshot
    # numbered as the page reads: Prop. 1's proof comes before the strands written out
    assert [r["key"] for r in snapshot["references"]] == [
        "milakov2018",
        "bahdanau2015",
        "luong2015",
        "vaswani2017",
    ]
