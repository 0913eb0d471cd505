"""Figures are drawings: an SVG that could run code is refused, and never reaches a page."""

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import, load_yaml
from curriculum.domain.svg import svg_inline

HOSTILE = (
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script>'
    '<foreignObject><div/></foreignObject><rect width="3" style="x"/></svg>'
)


def test_an_svg_with_script_is_refused_on_import(seeded):
    document = load_yaml((__import__("pathlib").Path("content/II/II.4.yaml")).read_text())
    document["figures"][0]["svg"] = HOSTILE
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert any("script" in e for e in refused.value.errors)


def test_inline_svg_keeps_only_the_drawing():
    html = svg_inline(HOSTILE, alt="a rectangle")
    assert "script" not in html and "onload" not in html and "foreignObject" not in html
    assert "style" not in html and 'aria-label="a rectangle"' in html and "<rect" in html
