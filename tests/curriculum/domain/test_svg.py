"""Figures are drawings: an SVG that could run code is kept as written but never reaches a page
with anything but its drawing."""

from pathlib import Path

from curriculum.domain.chapter_files import chapter_import, load_yaml
from curriculum.domain.svg import svg_inline

HOSTILE = (
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script>'
    '<foreignObject><div/></foreignObject><rect width="3" style="x"/></svg>'
)


def test_an_svg_with_script_is_imported_and_its_page_shows_only_the_drawing(seeded, client):
    document = load_yaml(Path("content/II/II.4.yaml").read_text())
    document.update(code="II.9", number=9)
    document["figures"][0]["svg"] = HOSTILE
    for item in document["strands"]["basics"]["items"]:
        item.pop("defines", None)  # a book's glossary term is defined once: II.4 defines these
    chapter_import(document=document)
    page = client.get("/chapters/II.9/").content.decode()
    figure = page[page.index("<figure") : page.index("</figure>")]
    assert "<rect" in figure
    assert "script" not in figure and "onload" not in figure and "foreignObject" not in figure


def test_inline_svg_keeps_only_the_drawing():
    html = svg_inline(HOSTILE, alt="a rectangle")
    assert "script" not in html and "onload" not in html and "foreignObject" not in html
    assert "style" not in html and 'aria-label="a rectangle"' in html and "<rect" in html
