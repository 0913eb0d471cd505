"""Author text: Markdown and TeX become MathML; nothing an author writes can run."""

import re
import time
from pathlib import Path

from curriculum.domain.markup import KATEX_DIR, math_errors, render, render_many

STATIC = Path(__file__).resolve().parents[4] / "static"


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
    html = render('[click](javascript:alert(1)) and <a href="javascript:alert(1)">x</a>')
    assert '<a href="javascript' not in html and "<a " not in html


def test_tex_href_and_html_in_text_are_inert():
    html = render("$\\href{javascript:alert(1)}{x}$ $\\text{<img src=x onerror=alert(1)>}$")
    assert "href=" not in html and "<img" not in html and "onerror=alert(1)&gt;" in html


def test_many_texts_render_in_one_batch_in_order():
    sources = [f"$x_{{{i}}}$" for i in range(40)] + [""]
    rendered = render_many(sources)
    assert rendered[-1] == "" and all("<msub>" in html for html in rendered[:-1])
    assert "<mn>39</mn>" in rendered[39]


def test_hostile_tex_commands_are_refused_by_name_and_render_as_inert_text():
    text = (
        "$\\url{javascript:alert(1)}$ $\\htmlClass{skip}{a}$ $\\htmlId{main}{b}$ "
        "$\\htmlData{x=1}{c}$ $\\htmlStyle{color:red}{d}$ $\\includegraphics{x.png}$"
    )
    refused = [error.split("KaTeX parse error: ")[1].split()[0] for error in math_errors(text)]
    assert refused == [
        "\\url",
        "\\htmlClass",
        "\\htmlId",
        "\\htmlData",
        "\\htmlStyle",
        "\\includegraphics",
    ]
    html = render(text)  # as stored before they were refused
    attributes = set(re.findall(r"\s([\w:-]+)=", html))
    assert attributes <= {"class", "title"}, attributes
    assert "<img" not in html and "<math" not in html


def test_runaway_formulas_are_refused_quickly_with_a_reason():
    started = time.monotonic()
    errors = math_errors(
        "$" + "{" * 5000 + "x" + "}" * 5000 + "$ $\\def\\a{\\a\\a}\\a$ $" + "x+" * 12000 + "x$"
    )
    assert len(errors) == 3 and time.monotonic() - started < 10
    assert any("nested too deeply" in e for e in errors)
    assert any("expansions" in e for e in errors) and any("longer than" in e for e in errors)


def test_blackboard_bold_and_friends_are_unicode_letters_every_browser_draws():
    html = render("$\\mathbb{R}^d \\mathbf{x} \\mathcal{L} \\boldsymbol{\\alpha}$")
    assert all(ch in html for ch in "\u211d\U0001d431\u2112\U0001d736")
    assert 'mathvariant="double-struck"' not in html


def test_author_headings_become_paragraphs_and_punctuation_stays_with_its_formula():
    html = render("## Heading\n\nthe weight $w$. Then")
    assert "<h2" not in html and '<p class="prose-heading">Heading</p>' in html
    assert re.search(r'<span class="nobr"><span class="katex">.*</math></span>\.</span>', html)


def test_the_served_math_font_is_the_one_the_lock_file_pins():
    served = STATIC / "site/fonts/stix-two-math.woff2"
    package = KATEX_DIR / "node_modules/@fontsource/stix-two-math/files"
    assert served.read_bytes() == (package / "stix-two-math-latin-400-normal.woff2").read_bytes()
    assert "SIL Open Font License" in (STATIC / "site/fonts/STIX-Two-Math-OFL.txt").read_text()
    assert 'src: url("fonts/stix-two-math.woff2")' in (STATIC / "site/site.css").read_text()


def test_a_formula_carries_exactly_the_authors_tex_for_copying():
    assert '<annotation encoding="application/x-tex">x^2 + \\alpha</annotation>' in render(
        "$x^2 + \\alpha$"
    )


def test_a_line_of_several_display_formulas_keeps_each_pair_apart():
    for source in ("$$a$$ and $$b$$", "$$a$$ text $$b$$ more", "$$a$$ $$b$$ $$c$$"):
        assert math_errors(source) == [], source
        html = render(source)
        tex = re.findall(r'<annotation encoding="application/x-tex">(.*?)</annotation>', html)
        assert tex == ["a", "b", "c"][: len(tex)] and len(tex) == source.count("$$") // 2, html
        assert "$" not in html and html.startswith("<p>"), html


def test_a_line_of_plain_words_is_one_paragraph_as_written():
    text = "Heads are slices of one budget (d, d), not copies."
    assert render_many([text, "", text]) == [f"<p>{text}</p>\n", "", f"<p>{text}</p>\n"]


def test_a_table_keeps_its_cells_and_alignment_as_classes_in_a_scrollable_box():
    html = render("| name | value |\n|:--|--:|\n| width | $d_k$ |\n")
    assert '<div class="table-scroll" tabindex="0"><table>' in html
    assert '<th class="align-left">name</th>' in html and '<td class="align-right">' in html
    assert "<msub>" in html and "style=" not in html and "|" not in html


def test_footnotes_link_both_ways_with_ids_that_differ_between_texts():
    first, second = render_many(["One[^1].\n\n[^1]: The first note.", "Two[^1].\n\n[^1]: Other."])
    assert "[^1]" not in first and "The first note." in first
    [ref] = re.findall(r'<a href="#(fn-[0-9a-f]+-1)" id="(fnref-[0-9a-f]+-1)"', first)
    assert f'<li id="{ref[0]}" class="footnote-item">' in first
    assert f'href="#{ref[1]}" class="footnote-backref"' in first
    assert ref[0] not in second  # two texts on one page never share an id


def test_fenced_code_is_highlighted_on_the_server_as_classes():
    html = render('```python\ndef f(x):\n    return "s"  # note\n```\n')
    assert '<pre class="highlight" tabindex="0"><code>' in html
    assert '<span class="k">def</span>' in html and '<span class="s2">"s"</span>' in html
    assert '<span class="c1"># note</span>' in html and "style=" not in html
    plain = render("```nosuchlanguage\na < b\n```\n")
    assert '<pre class="highlight" tabindex="0"><code>a &lt; b\n</code></pre>' in plain


def test_every_highlight_class_is_styled_or_inherits_the_text_colour():
    """The stylesheet names classes Pygments really emits (a typo would leave code unstyled)."""
    css = (STATIC / "site/code.css").read_text()
    styled = set(re.findall(r"\.highlight \.([\w-]+)", css))
    from curriculum.domain.markup.allowlist import HIGHLIGHT_CLASSES

    assert styled and styled <= HIGHLIGHT_CLASSES
    assert "prefers-color-scheme: dark" in css


def test_a_media_image_is_served_from_this_site_and_another_is_kept_as_its_words():
    html = render("See ![two heads](media:heads.png) and ![a cat](https://example.org/a.png).")
    assert '<img class="media" src="/media/heads.png" alt="two heads" loading="lazy">' in html
    assert "and a cat." in html and "example.org" not in html


def test_an_image_keeps_its_title_and_its_alt_text_is_plain_text():
    """A formula in alt text is refused at import (`constructs`); one stored before is left out
    of the alt text rather than put there as MathML."""
    html = render('![two $h$ heads](media:heads.png "Heads side by side")')
    assert (
        '<img class="media" src="/media/heads.png" alt="two  heads" title="Heads side by side" '
        'loading="lazy">'
    ) in html


def test_struck_text_is_shown_struck():
    assert render("It was ~~wrong~~ right.") == "<p>It was <s>wrong</s> right.</p>\n"
