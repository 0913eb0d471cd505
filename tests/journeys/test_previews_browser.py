"""Admin's preview in a real browser: the page as readers will see it appears beside the form
as an author types (a small script presses Preview), or when Preview is pressed without
scripts; a generated problem's drawn numbers show before any answer; the CSP holds, the frame
passes axe-core, and nothing is saved."""

import json

import pytest
from django.test import Client

import attention
from curriculum.models import Chapter, Problem
from tests.curriculum.admin.test_previews import GENERATED
from tests.journeys.test_browser import Visit, browser  # noqa: F401  (the module's Chromium)
from tests.journeys.test_readers_browser import AXE, AXE_TAGS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def signed_in(browser, live_server, user, *, javascript: bool = True) -> Visit:  # noqa: F811
    client = Client()
    client.force_login(user)
    visit = Visit(browser, live_server.url, width=1400, javascript=javascript)
    cookie = client.cookies["sessionid"].value
    visit.page.context.add_cookies([{"name": "sessionid", "value": cookie, "url": live_server.url}])
    # Django's admin links no favicon, so the browser asks for one: not this page's fault
    visit.page.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    return visit


def fill_generated_problem(visit: Visit, statement: str) -> None:
    page = visit.page
    page.fill("#id_variant", "head-split")
    page.select_option("#id_kind", "worked")
    page.select_option("#id_operation", "multi_head_attention")
    page.fill("#id_inputs", json.dumps(GENERATED))
    page.fill("#id_ask", json.dumps({"output": "out"}))
    page.fill("#id_statement", statement)


def frame_text(visit: Visit) -> str:
    frame = visit.page.frame(name="preview")
    assert frame is not None
    return frame.evaluate("document.body ? document.body.innerText : ''")


def test_the_preview_follows_the_form_as_the_author_types(
    browser,  # noqa: F811
    live_server,
    seeded_committed,
    alice,
):
    chapter = Chapter.objects.get(code="II.4")
    visit = signed_in(browser, live_server, alice)
    visit.open(f"/admin/curriculum/problem/add/?chapter={chapter.pk}")
    fill_generated_problem(visit, "Take $x = {{ inputs.x }}$; find the output.")
    visit.page.wait_for_function(
        "() => (window.frames['preview']?.document?.body?.innerText || '')"
        ".includes('Drawn inputs')",
        timeout=15000,
    )
    text = frame_text(visit)
    assert "Drawn inputs, instance 0 (the numbers the chapter prints)" in text
    assert f"{attention.expand_inputs(GENERATED)['x'][0][0]:g}" in text
    assert "Draft: no answer yet" in text
    visit.page.fill("#id_statement", "A second thought, typed and not saved.")
    visit.page.wait_for_function(
        "() => (window.frames['preview']?.document?.body?.innerText || '')"
        ".includes('A second thought')",
        timeout=15000,
    )
    frame = visit.page.frame(name="preview")
    frame.evaluate(AXE.read_text(encoding="utf-8"))
    violations = frame.evaluate(
        "async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))"
        ".violations.map(v => v.id)",
        AXE_TAGS,
    )
    assert violations == []
    visit.assert_clean()  # no CSP violation, console error or dialog
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_without_scripts_the_preview_button_shows_instance_n(
    browser,  # noqa: F811
    live_server,
    seeded_committed,
    alice,
):
    chapter = Chapter.objects.get(code="II.4")
    visit = signed_in(browser, live_server, alice, javascript=False)
    visit.open(f"/admin/curriculum/problem/add/?chapter={chapter.pk}")
    fill_generated_problem(visit, "Take $x = {{ inputs.x }}$.")
    visit.page.fill("#id_preview_instance", "4")
    visit.page.click("button.preview-button")
    visit.page.wait_for_timeout(500)
    visit.page.frame(name="preview").wait_for_selector("text=Drawn inputs, instance 4")
    assert f"{attention.expand_inputs(GENERATED, instance=4)['x'][0][1]:g}" in frame_text(visit)
    assert visit.page.url.endswith(f"/admin/curriculum/problem/add/?chapter={chapter.pk}")
    assert not Problem.objects.filter(chapter=chapter).exists()
