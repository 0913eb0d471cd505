"""What assistive technology and a careful reader notice: headings in order, a title and a
language on every page, a skip link, labelled figures, and text colours with enough contrast.
The pages are read over one world for the module: the seed, II.3 released."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from curriculum.domain.chapter_files import chapter_import, load_yaml
from tests.conftest import without_terms

SITE_CSS = Path(__file__).resolve().parents[3] / "static/site/site.css"
PAGES = [
    "/",
    "/books/0/",
    "/books/II/",
    "/chapters/II.4/",
    "/chapters/II.3/",
    "/chapters/II.3/releases/1/",
    "/chapters/0.LA.01/",
    "/chapters/0.MC.07/",
    "/chapters/II.3/releases/",
    "/search/?q=attention",
    "/search/",
]


class Outline(HTMLParser):
    """Heading levels, the <title>, <html lang>, and every inline SVG's attributes."""

    def __init__(self):
        super().__init__()
        self.levels: list[int] = []
        self.svgs: list[dict[str, str | None]] = []
        self.lang = self.title = None
        self.skip_target = None
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if re.fullmatch(r"h[1-6]", tag):
            self.levels.append(int(tag[1]))
        elif tag == "html":
            self.lang = attributes.get("lang")
        elif tag == "title" and self.title is None:  # the page's, not a drawing's
            self._in_title = True
        elif tag == "svg":
            self.svgs.append(attributes)
        elif tag == "a" and "skip" in (attributes.get("class") or "").split():
            self.skip_target = attributes.get("href")

    def handle_endtag(self, tag):
        self._in_title = self._in_title and tag != "title"

    def handle_data(self, data):
        if self._in_title:
            self.title = (self.title or "") + data


def outline(client, path: str) -> Outline:
    response = client.get(path)
    assert response.status_code == 200, path
    parsed = Outline()
    parsed.feed(response.content.decode())
    return parsed


def assert_headings_in_order(levels: list[int]) -> None:
    assert levels[0] == 1 and levels.count(1) == 1, levels
    for before, after in zip(levels, levels[1:], strict=False):
        assert after <= before + 1, f"h{before} is followed by h{after}: {levels}"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_one_h1_and_headings_that_never_skip_a_level(client, released, path):
    assert_headings_in_order(outline(client, path).levels)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_its_own_title_a_language_and_a_skip_link(client, released, path):
    page = outline(client, path)
    assert page.lang == "en" and page.skip_target == "#main"
    assert page.title and page.title.strip().endswith("— Curriculum")
    assert 'id="main"' in client.get(path).content.decode()


def test_titles_name_what_the_page_shows(client, released):
    assert outline(client, "/chapters/II.4/").title.startswith("II.4 Multi-Head Attention")
    assert outline(client, "/books/0/").title.startswith("Book 0")
    assert outline(client, "/").title.startswith("The books")


def test_headings_written_by_an_author_do_not_break_the_outline(client, released):
    document = load_yaml(Path("content/II/II.4.yaml").read_text(encoding="utf-8"))
    document.update(code="II.8", number=8)
    without_terms(document)
    document["before_you_start"] = "# Big\n\n###### Tiny\n\ntext"
    document["problem_statement"] = "## Also big\n\ntext"
    chapter_import(document=document)
    page = outline(client, "/chapters/II.8/")
    assert_headings_in_order(page.levels)
    assert "Tiny" in client.get("/chapters/II.8/").content.decode()


def test_staff_preview_keeps_headings_in_order(client, released):
    client.force_login(User.objects.create_user("sam", password="sam-pass-9", is_staff=True))
    assert_headings_in_order(outline(client, "/chapters/II.4/?preview=1").levels)


def test_every_figure_is_an_image_with_its_alt_text(client, released):
    svgs = outline(client, "/chapters/II.4/").svgs
    assert svgs and all(s.get("role") == "img" and s.get("aria-label") for s in svgs)


# ---------------------------------------------------------------- contrast


def luminance(hex_colour: str) -> float:
    digits = hex_colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def stylesheet() -> str:
    return re.sub(r"/\*.*?\*/", "", SITE_CSS.read_text(encoding="utf-8"), flags=re.S)


def palette(scheme: str) -> dict[str, str]:
    """The named colours of the light palette (the first :root), or of the dark one (the light
    names as the dark media query redefines them)."""
    css = stylesheet()
    light, _, rest = css.partition("@media (prefers-color-scheme: dark)")
    names = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\s*;", light))
    if scheme == "dark":
        dark = re.search(r":root\s*\{([^}]*)\}", rest)
        assert dark, "site.css has no dark palette"
        names.update(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\s*;", dark.group(1)))
    return names


def css_text_colours(scheme: str = "light") -> list[tuple[str, str, str]]:
    """(rule, text colour, background) for every rule of site.css that sets a text colour;
    the background is the rule's own, else the paper."""
    css = stylesheet()
    names = palette(scheme)

    def value(text: str) -> str | None:
        if found := re.fullmatch(r"var\(--([\w-]+)\)", text.strip()):
            return names[found.group(1)]
        return text.strip() if re.fullmatch(r"#[0-9a-fA-F]{3,6}", text.strip()) else None

    pairs = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        colour = re.search(r"(?:^|[;\s])color:\s*([^;]+)", body)
        background = re.search(r"background(?:-color)?:\s*([^;]+)", body)
        if colour and value(colour.group(1)):
            back = value(background.group(1)) if background else None
            pairs.append((selector.strip(), value(colour.group(1)), back or names["paper"]))
    return pairs


def test_the_stylesheet_names_its_colours():
    assert len(css_text_colours()) >= 15
    assert palette("dark")["paper"] != palette("light")["paper"]


@pytest.mark.parametrize(
    "scheme, rule, text, background",
    [(scheme, *pair) for scheme in ("light", "dark") for pair in css_text_colours(scheme)],
)
def test_every_text_colour_has_at_least_4_5_to_1_contrast(scheme, rule, text, background):
    assert contrast(text, background) >= 4.5, f"{scheme} {rule}: {text} on {background}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_muted_text_on_the_tinted_boxes_stays_readable(scheme):
    names = palette(scheme)
    for text, background in [
        ("ink", "debt-soft"),
        ("debt", "debt-soft"),
        ("accent", "paper"),
        ("ok", "paper"),
        ("muted", "paper"),
        ("accent", "accent-soft"),
        ("ink", "note-soft"),
        ("ink", "mark"),
        ("paper", "accent"),
    ]:
        assert contrast(names[text], names[background]) >= 4.5, (text, background)
