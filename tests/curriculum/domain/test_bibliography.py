"""A book's library: BibTeX read and formatted by pybtex; a library that does not parse, holds a
key twice, holds a work the style cannot format or is past its limits is refused with the line
or key, from the book file and from admin's save, and nothing of it is stored."""

from unittest import mock

import pytest
from django.core.exceptions import ValidationError

from curriculum.domain import markup
from curriculum.domain.bibliography import library, library_errors
from curriculum.domain.chapter_files import ChapterFileError
from curriculum.domain.chapter_files.importing import file_import
from curriculum.domain.editing import BookSave
from curriculum.models import Book

WORK = """@article{doe2020,
  author = {Doe, Jane and Roe, Richard and Moe, Max},
  title = {A Study of {S}oftmax},
  journal = {Journal of Examples},
  year = {2020}
}
"""


def test_a_work_is_formatted_with_its_authors_title_and_year():
    (work,) = library(WORK).values()
    assert work.key == "doe2020" and work.short == "Doe et al. 2020"
    assert "Jane Doe, Richard Roe, and Max Moe." in work.html
    assert "<em>Journal of Examples</em>" in work.html and "2020" in work.html


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("@article{a,\n  title = {x},\n  author = {open\n}\n", "syntax error in line 5"),
        (WORK + WORK, "repeated bibliography entry: doe2020"),
        (
            "@article{b, title = {No journal}, author = {Doe, J.}, year = 2001}",
            "b: missing journal",
        ),
        ("@misc{a b, title = {x}}", "syntax error"),
    ],
)
def test_a_malformed_library_is_refused_with_its_line_or_key(text, said):
    errors = library_errors(text)
    assert any(said in error for error in errors), errors


def test_a_library_past_its_limits_is_refused_before_it_is_read(settings):
    settings.LIMIT_BIBLIOGRAPHY_BYTES = 100
    assert library_errors(WORK) == [f"{len(WORK):,} bytes; at most 100 (LIMIT_BIBLIOGRAPHY_BYTES)"]
    assert library(WORK) == {}
    settings.LIMIT_BIBLIOGRAPHY_BYTES, settings.LIMIT_BIBLIOGRAPHY_ENTRIES = 10**6, 1
    two = WORK + WORK.replace("doe2020", "doe2021")
    assert library_errors(two) == ["2 works; at most 1 (LIMIT_BIBLIOGRAPHY_ENTRIES)"]


def doubling_macros(times: int) -> str:
    """A library of a few hundred bytes whose @string macros each double the last."""
    lines = ['@string{s0 = "xxxxxxxxxxxxxxxx"}']
    lines += [f"@string{{s{i} = s{i - 1} # s{i - 1}}}" for i in range(1, times + 1)]
    return "\n".join([*lines, f"@misc{{bomb, title = s{times}, year = {{2020}}}}"])


def test_macros_that_stand_for_more_text_than_the_limit_are_refused_before_it_is_written_out(
    books,
):
    """Macros doubling each other stand for far more text than they hold: refused, counted
    where each is used, the book as it was (forty doublings, 16 TiB, at once); a journal's name
    used by every work is not."""
    said = (
        "its @string macros stand for more than 262,144 characters of text, each counted where "
        "it is used (LIMIT_BIBLIOGRAPHY_BYTES)"
    )
    assert library_errors(doubling_macros(15)) == [said]  # 512 Ki characters from 450 bytes
    assert library_errors(doubling_macros(12)) == []  # 64 Ki characters, all uses 192 Ki
    bomb = doubling_macros(40)
    assert library_errors(bomb) == [said] and library(bomb) == {}
    book = Book.objects.get(numeral="II")
    book.bibliography = bomb
    with pytest.raises(ValidationError) as refused:
        BookSave(book=book).execute()
    assert refused.value.message_dict["bibliography"] == [said]
    assert "vaswani2017" in Book.objects.get(numeral="II").bibliography
    journal = '@string{jmlr = "Journal of Machine Learning Research"}\n'
    works = "\n".join(
        f"@article{{a{i}, author = {{A. Doe}}, title = {{T}}, journal = jmlr, year = 2020}}"
        for i in range(100)
    )
    assert library_errors(journal + works) == []


def test_a_library_is_read_again_under_changed_formula_limits(settings):
    """What is kept of a library read (a save reads it several times) is kept per limits: a
    formula within LIMIT_FORMULA_CHARS, then past a lowered one, is refused the second time."""
    formula = WORK.replace("{S}oftmax", "{S}oftmax of $x_1 + x_2 + x_3$")
    assert library_errors(formula) == []
    assert "<math" in library(formula)["doe2020"].html
    settings.LIMIT_FORMULA_CHARS = 5
    assert library_errors(formula) == [
        "doe2020: formula $x_1 + x_2 + x_3$ does not parse: "
        "KaTeX parse error: formula longer than 5 characters (LIMIT_FORMULA_CHARS)"
    ]
    assert "<math" not in library(formula)["doe2020"].html


def test_a_librarys_formulas_are_typeset_in_one_katex_run(settings):
    """A KaTeX run a formula took a sixth of a second each: a thousand works, minutes."""
    works = "".join(
        WORK.replace("doe2020", f"doe{year}").replace("{S}oftmax", f"{{S}}oftmax $x^{{{year}}}$")
        for year in range(1900, 1930)
    )
    with mock.patch.object(markup.katex, "_katex", wraps=markup.katex._katex) as katex:
        assert library_errors(works) == []
        assert len(library(works)) == 30
    assert katex.call_count == 1
    assert len(katex.call_args.args[0]) == 30
    settings.LIMIT_CHAPTER_FORMULAS = 29
    assert library_errors(works) == ["holds 30 formulas; at most 29 (LIMIT_CHAPTER_FORMULAS)"]
    assert len(library(works)) == 30  # stored before the limit: still shown


def test_a_book_file_with_a_broken_library_is_refused_with_its_path(books):
    text = (
        'books:\n  - numeral: "II"\n    title: Attention\n    slug: attention\n'
        "    bibliography: |\n      @article{a,\n        title = {x\n"
    )
    with pytest.raises(ChapterFileError) as refused:
        file_import(text=text)
    assert refused.value.errors[0].startswith("books[0].bibliography: syntax error in line")
    assert "doe2020" not in Book.objects.get(numeral="II").bibliography  # as it was
    assert "vaswani2017" in Book.objects.get(numeral="II").bibliography


def test_admin_save_of_a_broken_library_is_refused_on_its_field(books):
    book = Book.objects.get(numeral="II")
    book.bibliography = WORK + WORK
    with pytest.raises(ValidationError) as refused:
        BookSave(book=book).execute()
    assert "repeated bibliography entry: doe2020" in refused.value.message_dict["bibliography"]
    assert "doe2020" not in Book.objects.get(numeral="II").bibliography
