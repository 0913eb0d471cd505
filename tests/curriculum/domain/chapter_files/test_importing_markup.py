"""Markup readers would see as source, or not at all, is refused at import with its path and
what to write instead (issue 22): nothing an author writes is dropped or shown as TeX."""

import pytest
import yaml

from curriculum.domain.chapter_files import ChapterFileError, file_import
from curriculum.models import Chapter
from tests.conftest import sketch

UNTRUSTED = (
    "is not supported in a formula (nothing in one is trusted): write links and images in "
    "Markdown, outside it"
)
NUMBERED = "is not supported: label the equation $$ ... $$ (label) and refer to it as @eq:label"
NESTED = (
    "quotes, lists and footnotes are nested more than 10 deep (LIMIT_MARKDOWN_NESTING): the "
    "page would drop what lies deeper; flatten them"
)
SHOWN_AS_TYPED = "would show as typed: links go to http(s), mailto or a page"
ONE_LINE = (
    "a title is one line of text: write it without line breaks, headings, lists, quotes, "
    "tables, code blocks, display formulas ($$...$$) or footnotes"
)


def refused(text: str) -> list[str]:
    with pytest.raises(ChapterFileError) as refusal:
        file_import(text=yaml.safe_dump(sketch(before_you_start=text), sort_keys=False))
    assert not Chapter.objects.filter(code="II.7").exists()
    return refusal.value.errors


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (r"$\href{javascript:alert(1)}{x}$", "\\href"),
        (r"$\url{https://example.org}$", "\\url"),
        (r"$\includegraphics{red.png}$", "\\includegraphics"),
        (r"$\htmlClass{a}{x}$", "\\htmlClass"),
        (r"$\htmlStyle{color:red}{x}$", "\\htmlStyle"),
        (r"$\htmlData{a=b}{x}$", "\\htmlData"),
        (r"$\htmlId{a}{x}$", "\\htmlId"),
    ],
)
def test_a_command_katex_does_not_trust_is_refused_by_name(books, text, said):
    assert refused(text) == [
        f"before_you_start: formula {text} does not parse: KaTeX parse error: {said} {UNTRUSTED}"
    ]


@pytest.mark.parametrize(
    ("tex", "size"),
    [
        (r"\hspace{-1000em} x", "-1000em"),
        (r"\raisebox{50em}{x}", "50em"),
        (r"\mkern-1000mu x", "-55.5556em"),
        (r"\rule[-50em]{1em}{1em}", "-50em"),
    ],
)
def test_a_space_or_shift_past_the_size_cap_is_refused(books, tex, size):
    """KaTeX's maxSize caps a rule's size, not a negative space nor a raise, which moved a
    formula over the page around it (a hostile round)."""
    assert refused(f"${tex}$") == [
        f"before_you_start: formula ${tex}$ does not parse: KaTeX parse error: a space or shift "
        f"of {size} is past 3em either way: a formula never moves over the text around it"
    ]


def test_spaces_within_the_cap_are_typeset(books):
    text = r"$a \qquad b \! c \kern3em d$"
    file_import(text=yaml.safe_dump(sketch(before_you_start=text), sort_keys=False))
    assert Chapter.objects.filter(code="II.7").exists()


@pytest.mark.parametrize(
    ("tex", "said"),
    [
        (r"x \tag{9}", "\\tag"),
        (r"x \tag*{9}", "\\tag"),
        (r"x \label{nine}", "\\label"),
        (r"\def\n{\tag}x \n{9}", "\\tag"),
        (r"x \tag@paren{9}", "\\tag@paren"),
        (r"x \tag@literal{9}", "\\tag@literal"),
    ],
)
def test_an_equation_numbered_by_hand_is_refused_pointing_to_labels(books, tex, said):
    assert refused(f"$$ {tex} $$") == [
        f"before_you_start: formula ${tex}$ does not parse: KaTeX parse error: {said} {NUMBERED}"
    ]


def test_the_command_the_site_numbers_equations_with_is_refused_in_author_text(books):
    assert refused(r"$$ x \curriculumEquationNumber{9} $$") == [
        r"before_you_start: `\curriculumEquationNumber` is the site's own: label the equation "
        "$$ ... $$ (label) and refer to it as @eq:label"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "> " * 30 + "deep",
        "\n".join("  " * depth + "- level" for depth in range(30)),
        "- " * 11 + "deep",
        "\n".join("  " * depth + "- level" for depth in range(11)),
    ],
)
def test_quotes_and_lists_nested_past_the_limit_are_refused(books, text):
    assert refused(text) == [f"before_you_start: {NESTED}"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "A mark[^9] with no note.",
            "footnote mark `[^9]` has no note: write `[^9]: the note` "
            "on its own line, or remove the mark",
        ),
        (
            "Text.\n\n[^1]: A note nothing marks.",
            "footnote `[^1]` is never marked, so the page "
            "would drop it: mark it `text[^1]`, or remove it",
        ),
        (
            "A mark[^1].\n\n[^1]: First.\n\n[^1]: Second.",
            "footnote `[^1]` is written twice, so the page would drop the first: give each note "
            "its own label",
        ),
        ("[x][r]\n\n[r]: javascript:alert(1)", f"link `javascript:alert(1)` {SHOWN_AS_TYPED}"),
        ("See <javascript:alert(1)>.", f"link `javascript:alert(1)` {SHOWN_AS_TYPED}"),
        (
            "![the score $s$](media:heads.png)",
            "image media:heads.png has a formula in its alt "
            "text, which is read as plain text: write it in words",
        ),
    ],
)
def test_markdown_the_page_would_drop_or_show_as_typed_is_refused(books, heads, text, said):
    assert refused(text) == [f"before_you_start: {said}"]


@pytest.mark.parametrize(
    "title",
    [
        "# A heading",
        "Two\n\nparagraphs",
        "- a list",
        "> a quote",
        "A display $$ \\sqrt{d} $$ formula",
        "$$ s = q k $$ (score)",
        "A note[^1]\n\n[^1]: It.",
        "| a | b |\n|--|--|\n| 1 | 2 |",
        "one\ntwo",  # a line break of any kind reached the link's hover text (a hostile round)
        "one\rtwo",
        "one\u2028two",
        "one\x85two",
    ],
)
def test_a_proposition_title_is_one_line_of_markdown(books, title):
    """It is read beside its number, "Prop. 2 ...", and as a search hit's heading."""
    document = sketch(propositions=[{"title": title, "statement": "It is."}])
    with pytest.raises(ChapterFileError) as refusal:
        file_import(text=yaml.safe_dump(document, sort_keys=False))
    assert refusal.value.errors == [f"propositions[0].title: {ONE_LINE}"]


def test_a_proposition_title_holds_inline_markdown(books):
    title = "Scores scale as $\\sqrt{d}$, **bold**, `code` and [a link](https://example.org)"
    document = sketch(propositions=[{"title": title, "statement": "It is."}])
    file_import(text=yaml.safe_dump(document, sort_keys=False))
    assert Chapter.objects.get(code="II.7").propositions.get().title == title


def test_a_footnote_marking_a_footnote_is_refused(books):
    assert refused("A[^1].\n\n[^1]: See[^2].\n\n[^2]: See[^1].") == [
        "before_you_start: footnote `[^1]` marks footnote `[^2]`: a note may not mark a note; "
        "say it in the note's own words",
        "before_you_start: footnote `[^2]` marks footnote `[^1]`: a note may not mark a note; "
        "say it in the note's own words",
    ]


def test_what_the_page_shows_imports(books, heads):
    text = (
        '~~struck~~, a note[^1], [a link][r] and ![two heads](media:heads.png "Two heads").\n\n'
        + "> " * 10
        + "ten deep\n\n$$ x $$ (ten)\n\n[r]: https://example.org\n[^1]: The note."
    )
    file_import(text=yaml.safe_dump(sketch(before_you_start=text), sort_keys=False))
    assert Chapter.objects.get(code="II.7").before_you_start == text
