"""Hostile figures: nesting is bounded without recursion, and no external reference survives
in any attribute, whatever its case or escaping."""

import pytest
from django.test import Client

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.gate import ChapterPublish, PublishRefused
from curriculum.domain.svg import svg_errors, svg_inline, svg_removals
from curriculum.models import Figure
from tests.conftest import sketch
from tests.curriculum.conftest import ALL_200, SVG, deep_svg, every_page_answers

EXTERNAL = [
    'fill="URL(http://evil.test/a)"',
    'stroke="Url(//evil.test/b)"',
    r'fill="\75 rl(http://evil.test/c)"',
    r'fill="\000075rl(http://evil.test/d)"',
    'marker-end="url(http://evil.test/e#m)"',
    "clip-path=\"url( 'http://evil.test/f' )\"",
    'fill="url(http://evil.test/g"',
    'fill="url(#ok) url(http://evil.test/h)"',
    'href="http://evil.test/i"',
    'fill="image(http://evil.test/j)"',
]


def test_a_figure_nested_deeper_than_the_limit_is_refused_with_its_path(chapter, settings):
    assert svg_errors(deep_svg(settings.LIMIT_SVG_DEPTH - 2)) == []  # with <svg> and <rect>
    assert svg_errors(deep_svg(settings.LIMIT_SVG_DEPTH - 1)) != []
    document = sketch("II.7")
    document["figures"] = [{"label": "1", "caption": "c", "alt": "a", "svg": deep_svg(3000)}]
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    [error] = refused.value.errors
    assert error.startswith("figures[0].svg: elements are nested more than")
    assert "LIMIT_SVG_DEPTH" in error


def test_a_deep_figure_stored_before_the_limit_breaks_no_page(chapter, root):
    Figure.objects.filter(chapter=chapter).update(svg=deep_svg(3000))
    assert every_page_answers(chapter, root) == ALL_200
    page = Client().get("/chapters/II.7/").content.decode()
    figure = page[page.index("<figure") : page.index("</figure>")]
    assert "<rect" not in figure and "a square" in figure  # the alt text stands in for it
    staff = Client()
    staff.force_login(root)
    admin = staff.get(f"/admin/curriculum/chapter/{chapter.pk}/change/").content.decode()
    assert "the whole drawing: elements are nested more than" in admin  # so it can be mended
    with pytest.raises(PublishRefused):  # refused for what it owes, not a crash
        ChapterPublish(chapter=chapter).execute()


@pytest.mark.parametrize("attribute", EXTERNAL)
def test_no_external_reference_survives_sanitising(attribute):
    source = SVG.format(f'<rect width="1" height="1" {attribute}/>')
    shown = svg_inline(source, alt="a square")
    assert "evil.test" not in shown and "<rect" in shown
    assert svg_removals(source), "admin lists what was left out"


def test_local_references_and_drawing_functions_are_kept():
    source = SVG.format(
        '<defs><marker id="m"><path d="M0 0L1 1"/></marker></defs>'
        '<path d="M0 0L5 5" marker-end="url(#m)" stroke="rgb(1, 2, 3)" '
        'transform="translate(1,2) rotate(45)" aria-label="f(x) = x"/>'
    )
    shown = svg_inline(source, alt="an arrow")
    assert 'marker-end="url(#m)"' in shown and "rgb(1, 2, 3)" in shown
    assert 'transform="translate(1,2) rotate(45)"' in shown and svg_removals(source) == []
