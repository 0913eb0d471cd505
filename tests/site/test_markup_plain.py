"""Plain one-line texts, and lines of words with inline formulas, skip the Markdown parser: they
must render exactly as it would."""

import re
from html import escape
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from curriculum.domain import markup
from curriculum.domain.markup import MATH_LINE, PLAIN, _render_fresh, render_many

ALPHABET = "abcXYZ019 ,.;?()'-:/*_#<>&$"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=30), min_size=1, max_size=5))
def test_a_plain_text_renders_as_the_parser_renders_it(texts):
    assert render_many(texts) == _render_fresh(texts)


def test_what_counts_as_plain():
    assert PLAIN.fullmatch("Heads are slices of one budget (d, d), not copies.")
    for marked in ("1. a list", "- a list", "# heading", "*em*", "a $x$", "a  ", "a\nb", "<b>"):
        assert not PLAIN.fullmatch(marked), marked


def _typeset(batch):
    """KaTeX's part, faked: the parse around the formulas is what is compared here."""
    return {
        (tex, display): {"error": f"no {tex}"}
        if "!" in tex
        else {"html": f'<span class="katex"><math><mi>{escape(tex)}</mi></math></span>'}
        for tex, display in batch
    }


def _parsed(texts):
    with mock.patch.object(markup, "MATH_LINE", re.compile(r"(?!)")):
        return _render_fresh(texts), [markup._formulas.__wrapped__(t) for t in texts]


words = st.text(alphabet="abXY09 ,.;?()'", max_size=8)
formula = st.text(alphabet="x_{}^\\ +-()<>&\"'`*[]#!1", max_size=6).map(lambda tex: f"${tex}$")
odd = st.sampled_from([" ", ", ", ". ", "(", ")", "1", "$", "\\", ":", "\u2019", "\n", "  "])
between = st.one_of(words, st.from_regex(r"[ ,.;?)][a-z0-9 ,.;?()']{0,5} ", fullmatch=True))
lines = st.builds(  # often what MATH_LINE takes, else its near misses
    lambda first, rest, last: first + "".join(rest) + last,
    st.from_regex(r"[A-Za-z][a-z ,]{0,6} ", fullmatch=True),
    st.lists(st.tuples(formula, between).map("".join), max_size=3),
    st.tuples(formula, st.one_of(st.just(""), words)).map("".join),
)
texts = st.one_of(lines, st.lists(st.one_of(words, formula, odd), max_size=8).map("".join))


@settings(max_examples=500, deadline=None)
@given(st.lists(texts, min_size=1, max_size=6))
def test_a_line_of_words_and_formulas_renders_as_the_parser_renders_it(sources):
    with mock.patch.object(markup, "typeset", _typeset):
        fast = _render_fresh(sources), [markup._formulas.__wrapped__(t) for t in sources]
        assert fast == _parsed(sources)


def test_a_line_with_real_formulas_renders_as_the_parser_renders_it():
    sources = [
        "What $x_{1}$ means here.",
        "Softmax, and the product $QK^\\top$.",
        "Then $\\frac{a}{b}$, $\\sqrt{d}$; and $\\mathbb{R}^n$?",
        "Bad $\\frac{a$ one.",
    ]
    assert all(MATH_LINE.fullmatch(source) for source in sources)
    assert _render_fresh(sources) == _parsed(sources)[0]


def test_what_counts_as_a_line_of_words_and_formulas():
    for line in ("What $x_{1}$ means here.", "a $x$ $y$", "a $x$, then $y$; done", "a $ x $"):
        assert MATH_LINE.fullmatch(line), line
    for other in (
        "$x$ first",
        "a $x$ ",
        "a $x$b",
        "a $x\\$ b",
        "a$x$",
        "a $x$2",
        "a $$x$$",
        "a *b* $x$",
        "a $x$\nb",
        "a $\u00e9$",
    ):
        assert not MATH_LINE.fullmatch(other), other
