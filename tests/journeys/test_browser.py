"""The site in a real browser (Debian's Chromium, headless): the seed read line by line,
mathematics drawn as MathML, a clean console, and hostile content left inert."""

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import, load_yaml
from curriculum.domain.chromium import HEADLESS
from tests.conftest import stored_as_before, without_terms
from tests.curriculum.conftest import SEED_PAGE, release_ii3

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"
ARGS = list(HEADLESS)
OUTPUT = Path(__file__).resolve().parents[2] / "test-output"
SCHEMES = ("light", "dark")  # the system setting the site's colours follow
TRANSITIONS_ENDED = """async () => {
  await new Promise((frame) => requestAnimationFrame(() => requestAnimationFrame(frame)));
  const eased = document.getAnimations().filter((a) => a instanceof CSSTransition);
  await Promise.all(eased.map((a) => a.finished.catch(() => null)));
}"""
WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));
"""


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is installed by scripts/install-browser.sh")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop on this thread; the ORM calls made by
    # fixtures are still plain synchronous calls, so Django's guard is lifted here only.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


class Visit:
    """One page with every console error, page error and dialog it produced."""

    def __init__(
        self,
        browser,
        base_url: str,
        *,
        width: int = 1100,
        scheme: str = "light",
        javascript: bool = True,
    ):
        self.base_url = base_url
        self.scheme = scheme
        self.page = browser.new_page(
            viewport={"width": width, "height": 900},
            color_scheme=scheme,
            java_script_enabled=javascript,
        )
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.since = (0, 0)  # where this page's problems and dialogs begin (`forget`)
        self.page.add_init_script(WATCH)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("dialog", self._dialog)

    def _console(self, message) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, path: str, *, status: int = 200) -> None:
        response = self.page.goto(self.base_url + path, wait_until="load")
        assert response is not None and response.status == status

    def forget(self) -> None:
        """Go on in this tab as a new reader: no cookies (the site keeps nothing else in the
        browser), and what the pages before were unclean by set aside (`unclean` tells from
        here). A new tab per page started a renderer and compiled axe-core again: a second of
        Chromium's CPU each, where the page's own checks took half that."""
        self.page.context.clear_cookies()
        self.since = len(self.problems), len(self.dialogs)

    def anew(self, path: str) -> None:
        """`path` opened in this tab as a new reader opens it (`forget`)."""
        self.forget()
        self.open(path)

    def follow(self, locator) -> None:
        """Click what loads a new page, and return once it has loaded: a read straight after a
        bare click can meet the old page, or the new one still empty."""
        with self.page.expect_navigation(wait_until="load"):
            locator.click()

    def text(self) -> str:
        return self.page.evaluate("document.body.innerText")

    def screenshot(self, name: str) -> None:
        OUTPUT.mkdir(exist_ok=True)
        self.page.screenshot(path=str(OUTPUT / name), full_page=True)

    @contextmanager
    def in_scheme(self, scheme: str) -> Iterator[None]:
        """The same page as the system setting `scheme` shows it (its colours follow
        prefers-color-scheme), then as it was."""
        self._colours(scheme)
        try:
            yield
        finally:
            self._colours(self.scheme)

    def _colours(self, scheme: str) -> None:
        """Change the system setting and wait out the colour transitions it starts (Django's
        admin eases its links' colours): a colour read midway is neither scheme's."""
        self.page.emulate_media(color_scheme=scheme)
        self.page.evaluate(TRANSITIONS_ENDED)

    def screenshots(self, stem: str) -> None:
        """`stem-light.png` and `stem-dark.png`, of the page as it is now."""
        for scheme in SCHEMES:
            with self.in_scheme(scheme):
                self.screenshot(f"{stem}-{scheme}.png")

    def unclean(self) -> list[str]:
        """The page's CSP violations, console errors and warnings, page errors and dialogs."""
        problems, dialogs = self.problems[self.since[0] :], self.dialogs[self.since[1] :]
        return [*self.page.evaluate("window.__cspViolations"), *problems, *dialogs]

    def wider(self) -> list[str]:
        """What the page is wider than its screen by (a phone would scroll it sideways)."""
        overflow = self.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        return [f"{overflow} px wider than the screen"] if overflow > 0 else []

    def assert_clean(self) -> None:
        assert self.unclean() == []


# The article's text with each formula as its TeX, as the seed page (plain text) shows it.
AS_WRITTEN = """(() => {
  const article = document.querySelector('article').cloneNode(true);
  article.querySelectorAll('nav.contents').forEach(n => n.remove());
  article.querySelectorAll('math').forEach(m => m.replaceWith(
    m.querySelector('annotation')?.textContent ?? m.textContent));
  return article.textContent;
})()"""


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def seed_lines() -> list[str]:
    """The seed page's lines, without list markers and spaces (layout differs, words not)."""
    lines = Path(SEED_PAGE).read_text(encoding="utf-8").splitlines()
    return [squeezed(re.sub(r"^\s*(?:•|\d+\.)\s+", "", line)) for line in lines if line.strip()]


def assert_in_order(text: str, lines: list[str]) -> None:
    at = 0
    for line in lines:
        found = text.find(line, at)
        assert found >= 0, f"seed line {line[:80]!r} not found after: {text[at : at + 120]!r}"
        at = found + len(line)


def assert_mathml_drawn(visit: Visit) -> None:
    drawn = visit.page.evaluate(
        "[...document.querySelectorAll('math')].map(m => m.getBoundingClientRect().width)"
    )
    assert drawn and all(width > 0 for width in drawn)
    assert "$" not in visit.text()


def test_the_seed_chapter_reads_as_the_seed_line_by_line(browser, live_server, seeded_committed):
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.4/")
    assert_in_order(squeezed(visit.page.evaluate(AS_WRITTEN)), seed_lines())
    assert_mathml_drawn(visit)
    assert visit.page.locator("h1").count() == 1
    visit.screenshot("II.4.png")
    visit.assert_clean()


def test_a_released_chapter_shows_verified_problems_and_hides_exercise_solutions(
    browser, live_server, seeded_committed
):
    release_ii3()
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.3/")
    text = visit.text()
    assert re.search(r"Release 1, \d{1,2} \w+ \d{4}", text)
    assert_in_order(
        text,
        [
            "Scaled Dot-Product Attention",
            "How this chapter is built",
            "Worked problems",
            "Exercises",
            "Verified by the engine",
        ],
    )
    exercise = visit.page.locator("li.problem-exercise").first
    assert "Solution: shown on the practice page" in exercise.inner_text()
    assert exercise.locator(".answer").count() == 0  # no answer of an exercise on the page
    exercise.get_by_role("link", name="shown on the practice page").click()
    visit.page.locator("section[aria-labelledby=solution] div.answer").wait_for()  # asked for
    visit.open("/chapters/II.3/")
    assert_mathml_drawn(visit)
    visit.screenshot("II.3.png")
    visit.assert_clean()


def test_the_home_page_lists_books_and_chapters(browser, live_server, seeded_committed):
    visit = Visit(browser, live_server.url)
    visit.open("/")
    assert_in_order(visit.text(), ["Book 0", "0.LA.01", "Book II", "II.3", "II.4"])
    visit.screenshot("home.png")
    visit.assert_clean()


HOSTILE_TEXT = (
    "Before <script>window.__pwned = 1; alert(1)</script> and "
    '<img src=x onerror="window.__pwned = 1"> and [a link](javascript:window.__pwned=1) '
    'and <a href="javascript:window.__pwned=1" onclick="window.__pwned=1">another</a> '
    "and $\\href{javascript:window.__pwned=1}{click}$ and "
    '$\\text{<img src=x onerror=alert(document.domain)>}$ and <svg onload="window.__pwned=1"/>'
    ' and <iframe src="javascript:parent.__pwned=1"></iframe>'
    " and <style>body { display: none }</style>"
    " and [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"
    " and [vb](vbscript:msgbox(1)) and [JS](JaVaScRiPt:window.__pwned=1)"
    " and ![x](javascript:alert(1)) and ![y](https://example.com/tracker.png)"
    " and $\\url{javascript:window.__pwned=1}$ and $\\htmlClass{skip}{a}$"
    " and $\\htmlId{main}{b}$ and $\\htmlData{pwned=1}{c}$"
    " and $\\htmlStyle{position:fixed;inset:0}{d}$ and $\\includegraphics{https://example.com/x.png}$"
    " and $\\rule{100000em}{100000em}$ and $" + "{" * 150 + "x" + "}" * 150 + "$"
    " and $" + "x+" * 2000 + "x$ and " + "W" * 300 + "."
)
HOSTILE_SVG = (  # a figure that tries everything an SVG can: imported, and shown as a drawing
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'viewBox="0 0 10 10" onload="window.__pwned=1"><script>window.__pwned = 1</script>'
    '<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:1"/>'
    '</foreignObject><a href="javascript:window.__pwned=1"><rect width="5" height="5" '
    'onclick="window.__pwned=1" style="fill:url(https://example.com/x)"/></a>'
    '<use xlink:href="https://example.com/x.svg#a"/><image href="https://example.com/x.png"/>'
    '<circle cx="5" cy="5" r="2" fill="navy"/></svg>'
)
FOREIGN = (  # links that go anywhere but a web page, this site or a place on this page
    "[...document.querySelectorAll('article a')]"
    ".filter(a => !/^(https?:|mailto:|\\/|#)/i.test(a.getAttribute('href')))"
)


def hostile_chapter() -> None:
    document = load_yaml(
        (Path(__file__).resolve().parents[2] / "content/II/II.4.yaml").read_text(encoding="utf-8")
    )
    document.update(code="II.9", number=9, title="Hostile <b onmouseover=alert(1)>chapter</b>")
    without_terms(document)
    for key in ("thesis", "before_you_start", "problem_statement"):
        document[key] = HOSTILE_TEXT
    document["notation"][0]["meaning"] = HOSTILE_TEXT
    document["propositions"][0]["statement"] = HOSTILE_TEXT
    document["strands"]["basics"]["items"][0]["body"] = HOSTILE_TEXT
    document["figures"][0]["caption"] = HOSTILE_TEXT
    document["figures"][0]["svg"] = HOSTILE_SVG
    with pytest.raises(ChapterFileError, match="raw HTML") as refused:  # at import, with its path
        chapter_import(document=document)
    assert "\\href is not supported in a formula" in str(refused.value)
    with stored_as_before():
        chapter_import(document=document)


def test_hostile_content_is_imported_and_inert_in_the_browser(
    browser, live_server, seeded_committed
):
    hostile_chapter()
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.9/")
    # a Ctrl-click opens its link in a new tab; the test reads this page, so each new tab is
    # closed as it opens (eight of the ten loaded this long page again: two thirds of the CPU)
    visit.page.context.on("page", lambda tab: tab.close())
    for link in visit.page.locator("article a").all():
        link.click(modifiers=["Control"], no_wait_after=True)
    page = visit.page
    assert page.evaluate("window.__pwned") is None
    assert (
        page.evaluate(
            "document.querySelectorAll('article :is(script, img, iframe, style, object, embed, "
            "image, foreignObject, [style], [id=main], .skip)').length"
        )
        == 0
    )
    assert (
        page.evaluate(
            "[...document.querySelectorAll('article *')].flatMap(e => [...e.attributes])"
            ".filter(a => /^(on|data-)/i.test(a.name) || /^\\s*(javascript|data|vbscript):/i"
            ".test(a.value)).length"
        )
        == 0
    )
    assert page.evaluate(f"{FOREIGN}.length") == 0
    assert page.evaluate("getComputedStyle(document.body).display") == "block"
    assert page.evaluate("document.querySelectorAll('#main').length") == 1
    assert "<script>window.__pwned" in visit.text() and "<iframe" in visit.text()
    visit.screenshot("hostile.png")
    assert visit.dialogs == []
    visit.assert_clean()


def test_hostile_content_does_not_widen_a_phone_page(browser, live_server, seeded_committed):
    hostile_chapter()
    visit = Visit(browser, live_server.url, width=360)
    visit.open("/chapters/II.9/")
    assert visit.wider() == []
    visit.screenshot("hostile-phone.png")


MATRIX = "$$A = \\begin{bmatrix} 1 & 2 & 3 \\\\ 4 & 5 & 6 \\\\ 7 & 8 & 9 \\end{bmatrix}$$"


def test_matrix_brackets_stretch_in_the_site_s_own_math_font(
    browser, live_server, seeded_committed
):
    document = load_yaml(
        (Path(__file__).resolve().parents[2] / "content/II/II.4.yaml").read_text(encoding="utf-8")
    )
    document.update(code="II.8", number=8, problem_statement=MATRIX + " over $\\mathbb{R}$.")
    without_terms(document)
    chapter_import(document=document)
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.8/")
    loaded = visit.page.evaluate(
        "document.fonts.ready.then(() => [...document.fonts]"
        ".filter(f => f.family.includes('STIX Two Math') && f.status === 'loaded').length)"
    )
    assert loaded == 1
    bracket, table = visit.page.evaluate(
        "[document.querySelector('mo[fence]'), document.querySelector('mtable')]"
        ".map(e => e.getBoundingClientRect().height)"
    )
    assert bracket >= 0.9 * table > 0
    assert "\u211d" in visit.text()  # double-struck R, not a plain R
    visit.page.locator("mtable").first.screenshot(path=str(OUTPUT / "matrix.png"))
    visit.assert_clean()


PHONE_PAGES = [
    "/",
    "/books/0/",
    "/books/II/",
    "/chapters/II.3/",
    "/chapters/II.4/",
    "/chapters/0.LA.01/",
]


def test_every_page_fits_a_360_pixel_phone(browser, live_server, seeded_committed):
    """Each page opened anew by one tab (`Visit.anew`), over one seed and one server."""
    release_ii3()
    found = {}
    visit = Visit(browser, live_server.url, width=360)
    for path in PHONE_PAGES:
        visit.anew(path)
        found[path] = visit.wider() + visit.unclean()
        visit.screenshot(f"phone{path.replace('/', '_')}.png")
    visit.page.close()
    assert found == dict.fromkeys(PHONE_PAGES, [])


def test_the_skip_link_is_the_first_stop_and_leads_to_the_text(
    browser, live_server, seeded_committed
):
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.4/")
    visit.page.keyboard.press("Tab")
    focused = visit.page.evaluate(
        "[document.activeElement.textContent, document.activeElement.getBoundingClientRect().left]"
    )
    assert focused[0] == "Skip to the text" and focused[1] >= 0
    visit.page.keyboard.press("Enter")
    assert visit.page.evaluate("location.hash") == "#main"
