"""Readers in a real browser: every reader page passes axe-core (WCAG 2.1 AA and best
practice) light and dark, they find their way by the links and the search form, and a phone
of 390 px gets whole words, legible figures and formulas that scroll with a hint."""

from pathlib import Path

import pytest

from curriculum.domain.chapter_files import chapter_import, load_yaml
from tests.conftest import without_terms
from tests.curriculum.conftest import release_ii3
from tests.curriculum.site.test_practice import PAGE, engine, generated_chapter
from tests.journeys.test_browser import SCHEMES, Visit, browser  # noqa: F401  (the module's Chromium)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "katex/node_modules/axe-core/axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
AXE_COLOUR_RULES = {"type": "rule", "values": ["color-contrast", "link-in-text-block"]}
READER_PAGES = [
    "/",
    "/books/0/",
    "/books/II/",
    "/books/II/bibliography/",
    "/books/II/glossary/",
    "/chapters/II.4/",
    "/chapters/II.3/",
    "/chapters/0.LA.01/",
    "/chapters/0.MC.07/",
    "/chapters/II.3/releases/1/",
    "/chapters/II.3/releases/",
    "/search/?q=attention",
    "/search/?q=zzzzqx",
    "/search/",
    "/chapters/II.3/problems/p4/?instance=0&hints=2",
    "/chapters/II.3/problems/p5/?instance=0&solution=1",
    "/operations/",
]


def axe_violations(visit: Visit) -> list[str]:
    """axe-core run inside the page (evaluated by the browser's debugger, so the page's own
    Content-Security-Policy stays on); one line per violation and element. Every rule in the
    visit's scheme, then the rules that read colours in the other scheme too: the dark scheme
    changes the site's colours (custom properties under prefers-color-scheme) and nothing else,
    so each page is loaded and checked once for both."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: npm ci in katex/ (it is pinned in package-lock.json)")
    visit.page.evaluate(AXE.read_text(encoding="utf-8"))
    found = _axe_run(visit, {"type": "tag", "values": AXE_TAGS})
    for scheme in SCHEMES:
        if scheme != visit.scheme:
            with visit.in_scheme(scheme):
                found += [f"{scheme}: {v}" for v in _axe_run(visit, AXE_COLOUR_RULES)]
    return found


def _axe_run(visit: Visit, only: dict) -> list[str]:
    """The violations of the rules `only` names. axe-core checks every rule on every element
    whatever resultTypes says; naming violations alone spares it describing each element that
    passed (a unique selector each: half its time on a long chapter)."""
    return visit.page.evaluate(
        "async (only) => (await axe.run(document, {runOnly: only, resultTypes: ['violations']}))"
        ".violations.flatMap(v => v.nodes.map(n => `${v.id}: ${n.target.join(' ')}: `"
        " + n.failureSummary.replace(/\\s+/g, ' ')))",
        only,
    )


def pages_found(open_visit, paths: list[str]) -> dict[str, list[str]]:
    """Each page opened anew (`open_visit(path)`, `Visit.anew`): what axe-core found on it and
    what made it unclean, by path. One test goes through them all over one seed and one server,
    instead of a seed, a server and a flush for each page."""
    found = {}
    for path in paths:
        visit = open_visit(path)
        found[path] = axe_violations(visit) + visit.unclean()
    return found


def opened(chromium, base_url: str, **options):
    """Opens each path anew in one tab (`Visit.anew`)."""
    visit = Visit(chromium, base_url, **options)

    def open_visit(path: str) -> Visit:
        visit.anew(path)
        return visit

    return open_visit


def test_every_reader_page_passes_axe_core(browser, live_server, seeded_committed):  # noqa: F811
    release_ii3()
    found = pages_found(opened(browser, live_server.url), READER_PAGES)
    assert found == dict.fromkeys(READER_PAGES, [])


def test_the_404_page_passes_axe_core(browser, live_server, seeded_committed):  # noqa: F811
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/IX.9/", status=404)
    assert "There is no page here" in visit.text()
    assert axe_violations(visit) == []


@pytest.mark.parametrize("path", ["/chapters/II.4/", "/search/?q=attention"])
def test_a_390_pixel_phone_passes_axe_core_too(browser, live_server, seeded_committed, path):  # noqa: F811
    visit = Visit(browser, live_server.url, width=390, scheme="dark")
    visit.open(path)
    assert axe_violations(visit) == []


def test_dark_mode_follows_the_system_setting(browser, live_server, seeded_committed):  # noqa: F811
    colours = {}
    for scheme in SCHEMES:  # each loaded in its scheme, as a reader's system sets it
        visit = Visit(browser, live_server.url, scheme=scheme)
        visit.open("/chapters/II.4/")
        colours[scheme] = visit.page.evaluate(
            "['backgroundColor', 'color'].map(p => getComputedStyle(document.body)[p])"
        )
        visit.screenshot(f"II.4-{scheme}.png")
    assert colours["light"] != colours["dark"]
    luminance = {s: sum(int(v) for v in c[0][4:-1].split(",")[:3]) for s, c in colours.items()}
    assert luminance["dark"] < 150 < luminance["light"]


def test_a_reader_walks_the_book_by_previous_and_next(browser, live_server, seeded_committed):  # noqa: F811
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/0.LA.01/")
    seen = ["0.LA.01"]
    while visit.page.locator("a[rel=next]").count():
        visit.page.locator("a[rel=next]").click()
        seen.append(visit.page.evaluate("location.pathname").split("/")[2])
    assert seen == ["0.LA.01", "0.MC.07", "II.3", "II.4"]
    visit.page.locator("a[rel=prev]").click()
    assert visit.page.evaluate("location.pathname") == "/chapters/II.3/"
    visit.assert_clean()


def test_the_contents_lead_to_a_problem_on_the_page(browser, live_server, seeded_committed):  # noqa: F811
    release_ii3()
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.3/")
    visit.page.locator("nav.contents a[href^='#problem-']").first.click()
    target = visit.page.evaluate("location.hash")
    top = visit.page.evaluate(f"document.querySelector('{target}').getBoundingClientRect().top")
    assert target.startswith("#problem-") and -2 <= top < 100


def test_a_reader_searches_from_any_page_and_lands_on_the_section(
    browser,  # noqa: F811
    live_server,
    seeded_committed,
):
    visit = Visit(browser, live_server.url, width=390)
    visit.open("/books/II/")
    visit.page.get_by_label("Search the chapters").fill("coreference")
    visit.page.get_by_role("button", name="Search").click()
    visit.page.wait_for_url("**/search/?q=coreference")
    assert visit.page.locator("mark").first.inner_text().lower() == "coreference"
    visit.page.locator(".search-hit-heading a").first.click()
    assert visit.page.evaluate("location.pathname + location.hash") == "/chapters/II.4/#problem"
    visit.assert_clean()


# ---------------------------------------------------------------- a 390 px phone

SPLIT_WORDS = """(() => {
  const split = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (node.parentElement.closest('math, svg, .visually-hidden, details:not([open])')) continue;
    for (const match of node.textContent.matchAll(/[A-Za-z][A-Za-z']{3,}/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (lines.size > 1) split.push(match[0]);
    }
  }
  return split;
})()"""


PHONE_PAGES = [
    "/",
    "/books/II/",
    "/chapters/II.4/",
    "/chapters/II.3/",
    "/chapters/0.LA.01/",
    "/search/?q=attention",
]


def test_a_phone_never_breaks_a_word_in_two(browser, live_server, seeded_committed):  # noqa: F811
    """A line may end at a hyphen (row-|major); never inside a word (mathematic-|s)."""
    release_ii3()
    found = {}
    visit = Visit(browser, live_server.url, width=390)
    for path in PHONE_PAGES:
        visit.anew(path)
        found[path] = visit.page.evaluate(SPLIT_WORDS) + visit.wider()
        visit.screenshot(f"phone-390{path.replace('/', '_').replace('?', '_')}.png")
    visit.page.close()
    assert found == dict.fromkeys(PHONE_PAGES, [])


def test_figure_text_stays_legible_on_a_phone(browser, live_server, seeded_committed):  # noqa: F811
    visit = Visit(browser, live_server.url, width=390)
    visit.open("/chapters/II.4/")
    sizes = visit.page.evaluate(
        "[...document.querySelectorAll('.figure svg text')].map(t => {"
        "  const svg = t.ownerSVGElement;"
        "  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;"
        "  return parseFloat(getComputedStyle(t).fontSize) * scale; })"
    )
    assert sizes and min(sizes) >= 10, sizes
    frame = visit.page.locator(".figure-frame").first
    assert frame.evaluate("f => f.scrollWidth > f.clientWidth")  # it scrolls, not the page
    assert frame.evaluate("f => getComputedStyle(f).backgroundImage").count("gradient") == 4
    frame.focus()
    visit.page.keyboard.press("ArrowRight")  # the keyboard scrolls it: it is focusable
    for _ in range(30):  # scrolling may be smooth; the page's CSP forbids wait_for_function
        if frame.evaluate("f => f.scrollLeft") > 0:
            break
        visit.page.wait_for_timeout(100)
    assert frame.evaluate("f => f.scrollLeft") > 0


WIDE_FORMULA = "$$" + " + ".join(f"a_{{{i}}} b_{{{i}}}" for i in range(40)) + "$$"


def test_a_wide_formula_scrolls_inside_its_box_with_a_visible_hint(
    browser,  # noqa: F811
    live_server,
    seeded_committed,
):
    document = load_yaml(
        (Path(__file__).resolve().parents[2] / "content/II/II.4.yaml").read_text(encoding="utf-8")
    )
    document.update(code="II.8", number=8, problem_statement=f"A long sum:\n\n{WIDE_FORMULA}")
    without_terms(document)
    chapter_import(document=document)
    visit = Visit(browser, live_server.url, width=390)
    visit.open("/chapters/II.8/")
    box = visit.page.locator(".math-display").first
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")
    assert box.evaluate("b => getComputedStyle(b).backgroundImage").count("gradient") == 4
    assert visit.wider() == []
    assert axe_violations(visit) == []  # a scrolling box must be reachable by keyboard
    box.screenshot(path=str(Path(__file__).resolve().parents[2] / "test-output/wide-formula.png"))


# ---------------------------------------------------------------- practice


@pytest.fixture
def practice(seeded_committed, settings):
    settings.PRACTICE_CHECK_RATE = "1000/min"
    generated_chapter()


def test_an_instance_is_tried_right_and_wrong_without_javascript(browser, live_server, practice):  # noqa: F811
    visit = Visit(browser, live_server.url, width=390, javascript=False)
    visit.open("/chapters/II.7/")
    visit.follow(visit.page.get_by_role("link", name="Practise exercise 2 on fresh numbers"))
    instance = int(visit.page.url.split("instance=")[1])
    assert 1 <= instance <= 20
    right = "\n".join(" ".join(repr(v) for v in row) for row in engine(instance))
    visit.page.get_by_label(f"The output out for instance {instance}").fill(right)
    visit.follow(visit.page.get_by_role("button", name="Check my answer"))
    result = visit.page.locator("#result").inner_text()
    assert "Right." in result and "Read as a matrix of 2 × 3 numbers" in result
    assert visit.page.url.endswith("/problems/p3/#result")
    visit.page.get_by_label(f"The output out for instance {instance}").fill("0.5 0.5")
    visit.follow(visit.page.get_by_role("button", name="Check my answer"))
    result = visit.page.locator("#result").inner_text()
    assert (
        "Read as a vector of 2 numbers, but the answer is a matrix of 2 × 3 numbers: nothing "
        "was judged."
        in result
        and "Not read." not in result
    )
    visit.screenshot("practice-wrong-phone.png")


def test_the_practice_page_passes_axe_core(browser, live_server, practice):  # noqa: F811
    visit = Visit(browser, live_server.url)
    visit.open(f"{PAGE}?instance=3")
    assert axe_violations(visit) == []
    visit.page.get_by_label("The output out for instance 3").fill("1 2 three")
    visit.follow(visit.page.get_by_role("button", name="Check my answer"))
    assert axe_violations(visit) == []
    visit.follow(visit.page.get_by_role("link", name="Show the solution for instance 3"))
    assert visit.page.locator("div.answer").count() == 1
    assert axe_violations(visit) == []
    visit.screenshots("practice-solution")
    visit.assert_clean()


def test_a_seed_exercise_is_practised_with_hints_feedback_and_a_report(
    browser,  # noqa: F811
    live_server,
    seeded_committed,
    settings,
):
    """A hint, then the next; an answer read, then checked and told its mistake; a report sent.
    axe-core at each step (it runs as a script, so the page keeps JavaScript on; the pages
    themselves have none: the practice test above runs with it off)."""
    settings.PRACTICE_CHECK_RATE = "1000/min"
    release_ii3()
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.3/")
    visit.follow(visit.page.get_by_role("link", name="Practise exercise 2"))
    visit.follow(visit.page.get_by_role("link", name="Show a hint"))
    assert "Count one row first" in visit.page.locator("#hint-1").inner_text()
    visit.follow(visit.page.get_by_role("link", name="Show the next hint"))
    assert visit.page.locator("ol.hints li").count() == 2
    assert axe_violations(visit) == []
    visit.page.get_by_label("The output softmax for instance 0").fill("1280")
    visit.follow(visit.page.get_by_role("button", name="Read my answer"))
    assert "Read as a single number" in visit.page.locator("#result").inner_text()
    visit.follow(visit.page.get_by_role("button", name="Check my answer"))
    result = visit.page.locator("#result").inner_text()
    assert "Not right." in result and "finding the maximum takes" in result
    assert visit.page.locator("ol.hints li").count() == 2  # the hints asked for stay
    assert axe_violations(visit) == []
    visit.page.get_by_label("Report a problem with this exercise").fill("Is 5T - 2 right?")
    visit.follow(visit.page.get_by_role("button", name="Send the report"))
    assert (
        "your report is with the authors"
        in visit.page.locator("#report").locator("..").inner_text()
    )
    assert axe_violations(visit) == []
    visit.screenshots("practice-feedback")
    visit.assert_clean()
