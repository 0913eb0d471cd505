"""What search quotes is the text a reader sees: words and typeset mathematics, never the
Markdown or TeX they were written in."""

from curriculum.domain.markup import render
from curriculum.domain.search_text import reader_text


def test_markdown_reads_as_its_words():
    text = reader_text(render("The **attention weights** and [a link](https://example.org)."))
    assert text == "The attention weights and a link."


def test_a_formula_reads_as_its_glyphs_never_its_tex():
    text = reader_text(render(r"So $\partial L/\partial X = G W^\top$ and $QK^\top/\sqrt{d_k}$."))
    assert text == "So ∂L/∂X = GW⊤ and QK⊤/√(dₖ)."
    assert "\\" not in text and "$" not in text and "top" not in text


def test_scripts_take_unicode_forms_where_unicode_has_them():
    assert reader_text(render(r"$x^2 + \alpha_i$")) == "x² + αᵢ"
    assert reader_text(render(r"$W_Q$ and $\frac{a+b}{2}$")) == "WQ and (a + b)/2"


def test_paragraphs_read_as_lines_and_html_as_text():
    assert reader_text("<p>one</p><p>two &amp; <b>three</b></p>") == "one\ntwo & three"


def test_a_claims_mark_is_not_part_of_the_text():
    html = '<p>It is 3<span class="claim" title="checked">✓</span>.</p>'
    assert reader_text(html) == "It is 3."
