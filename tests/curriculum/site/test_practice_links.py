"""Every link on a practice page goes somewhere: a reference in a problem's statement, steps,
hints or feedback links its target on the chapter's page (the release's, once released), where
the target's id is; no reference is left as typed."""

import re

import pytest
from django.core.cache import cache

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import problem, sketch, verify_now

SHIFT = {
    "number": 2,
    "label": "shift",
    "title": "Softmax ignores a shift.",
    "statement": "It does.",
}


def referring_chapter(*, publish: bool) -> None:
    """II.7 whose exercise p2 refers to its own parts and II.3's in every text practice shows."""
    p2 = problem("p2") | {
        "statement": "Compute the softmax of the row $s$ (@prop:shift).",
        "hints": ["Shift by the maximum, by @prop:shift.", "Compare @II.3/prop:score-variance."],
        "feedback": [{"answer": [[1.0, 0.0]], "says": "A max, not a softmax: see @prop:2."}],
    }
    p2["solution"] |= {"steps": "By @prop:shift, as in @problem:p1, see @II.3 too."}
    document = sketch("II.7", problems=[problem("p1", "worked"), p2, problem("p3")])
    document["propositions"] = [dict(SHIFT)]
    chapter_import(document=document)
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    if publish:  # II.3 first: a release names another chapter's parts only in a release
        ii3 = Chapter.objects.get(code="II.3")
        verify_now(ii3)
        chapter_publish(chapter=ii3)
        chapter_publish(chapter=chapter)


@pytest.fixture
def checks(seeded, settings):
    settings.PRACTICE_CHECK_RATE = "1000/min"
    cache.clear()


def links_of(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in re.findall(r'<a\s[^>]*?href="([^"]*)"', html)]


def every_link_resolves(client, address: str, html: str) -> list[str]:
    """The page's links, each checked: an in-page fragment names an id on the page, any other
    address answers 200 and holds the id its fragment names."""
    found = links_of(html)
    for link in found:
        path, fragment = (link.split("#", 1) + [""])[:2]
        if not path:
            assert f'id="{fragment}"' in html, (address, link)
            continue
        target = client.get(path, follow=True)
        assert target.status_code == 200, (address, link, target.status_code)
        if fragment:
            assert f'id="{fragment}"' in target.content.decode(), (address, link)
    return found


def practice_page(client, code: str, key: str) -> tuple[str, str]:
    """Instance 0 with every hint and the solution shown, after a check the author's feedback
    answers: everything a practice page can show of the problem at once."""
    address = f"/chapters/{code}/problems/{key}/"
    shown = client.get(address, {"instance": 0, "hints": 9, "solution": 1}).content.decode()
    return address, shown


@pytest.mark.parametrize(
    ("publish", "page", "ii3"),
    [
        (True, "/chapters/II.7/releases/1/", "/chapters/II.3/releases/1/"),
        (False, "/chapters/II.7/", "/chapters/II.3/"),
    ],
)
def test_references_on_a_practice_page_link_the_chapter_s_page(client, checks, publish, page, ii3):
    referring_chapter(publish=publish)
    address, shown = practice_page(client, "II.7", "p2")
    answered = client.post(
        address, {"instance": 0, "hints": 2, "answer": "1 0", "step": "check"}
    ).content.decode()
    assert "A max, not a softmax" in answered
    for html in (shown, answered):
        assert "@prop" not in html and "@II.3" not in html and "@problem" not in html
        every_link_resolves(client, address, html)
    links = links_of(shown) + links_of(answered)
    # each page: the statement and the first hint; then the steps, or the feedback said
    assert links.count(f"{page}#prop-2") == 6
    assert f"{page}#problem-p1" in links and f"{ii3}#prop-2" in links
    assert ii3 in links
    assert not any(link.startswith("#prop") or link.startswith("#problem") for link in links)


def test_every_link_on_a_seed_practice_page_resolves(client, checks):
    for chapter in Chapter.objects.filter(code__in=["II.3", "II.4"]):
        verify_now(chapter)
    address, shown = practice_page(client, "II.3", "p8")
    assert '<a href="/chapters/II.3/#prop-1"' in shown  # the steps' @prop:1 and the hint's
    assert shown.count('href="/chapters/II.3/#prop-1"') == 2
    every_link_resolves(client, address, shown)
