"""Author text: Markdown and TeX become MathML; nothing an author writes can run."""

from curriculum.domain.markup import math_errors, render, render_many


def test_inline_and_display_formulas_become_mathml():
    html = render("Scores $QK^\\top/\\sqrt{d_k}$.\n\n$$\\frac{a}{b}$$\n")
    assert "<msqrt>" in html and "<mfrac>" in html
    assert 'display="block"' in html and "$" not in html.replace("$", "", 0).split("<math")[0]


def test_a_formula_that_does_not_parse_is_reported_with_its_source():
    [error] = math_errors("fine $x$ but $\\frac{1}{$ is not")
    assert "\\frac{1}{" in error and "parse" in error


def test_good_text_has_no_math_errors():
    assert math_errors("$a_1 + b^2$ and $$\\sum_i x_i$$") == []


def test_raw_html_and_script_are_escaped():
    html = render("<script>alert(1)</script> <img src=x onerror=alert(1)>")
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html


def test_javascript_links_do_not_survive():
    html = render("[click](javascript:alert(1)) and <a href=\"javascript:alert(1)\">x</a>")
    assert '<a href="javascript' not in html and "<a " not in html


def test_tex_href_and_html_in_text_are_inert():
    html = render("$\\href{javascript:alert(1)}{x}$ $\\text{<img src=x onerror=alert(1)>}$")
    assert "href=" not in html and "<img" not in html and "onerror=alert(1)&gt;" in html


def test_many_texts_render_in_one_batch_in_order():
    sources = [f"$x_{{{i}}}$" for i in range(40)] + [""]
    rendered = render_many(sources)
    assert rendered[-1] == "" and all("<msub>" in html for html in rendered[:-1])
    assert "<mn>39</mn>" in rendered[39]
