"""A chapter's Revisions page in a real browser: an author signs in, compares two revisions,
asks to revert, reverts; the list, the compare and the revert page pass axe-core, light and
dark, under the strict CSP."""

from urllib.parse import parse_qs, urlsplit

import pytest

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.working_copy import chapter_source
from curriculum.models import Chapter
from tests.conftest import sketch
from tests.journeys.test_browser import Visit, browser  # noqa: F401  (the module's Chromium)
from tests.journeys.test_readers_browser import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def signed_in(visit: Visit) -> None:
    visit.open("/admin/login/")
    visit.page.fill("#id_username", "alice")
    visit.page.fill("#id_password", "alice-pass-9")
    visit.page.click("input[type=submit]")
    visit.page.wait_for_url("**/admin/")


def test_compare_and_revert_in_a_browser(browser, live_server, books_committed, alice):  # noqa: F811
    chapter_import(document=sketch(), user=alice)
    chapter_import(document=sketch(title="A <b>bold</b> rename"), user=alice)
    pk = Chapter.objects.get(code="II.7").pk
    visit = Visit(browser, live_server.url)
    # Django's admin names no icon, so the browser asks for /favicon.ico (404): not this page's
    visit.page.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    signed_in(visit)
    visit.open(f"/admin/curriculum/chapter/{pk}/change/")
    # each click waits for the page it leads to: "text=Compare" alone also matched the change
    # form's help text ("compare with rtol and atol") while the Revisions page was still loading
    visit.page.click("a.revisionslink")
    visit.page.wait_for_url(f"**/admin/curriculum/chapter/{pk}/revisions/")
    visit.page.click("input[type=submit][value=Compare]")
    visit.page.wait_for_url(lambda url: parse_qs(urlsplit(url).query) == {"a": ["1"], "b": ["2"]})
    visit.page.wait_for_selector("table.revision-changes")
    changes = visit.page.locator("table.revision-changes tbody tr")
    assert changes.count() == 1
    assert changes.first.locator("code").inner_text() == "title"
    assert "A <b>bold</b> rename" in changes.first.inner_text()  # shown as written, escaped
    assert axe_violations(visit) == []
    visit.page.click("text=Revert to 1…")
    visit.page.wait_for_selector("body.revision-revert")
    assert axe_violations(visit) == []
    visit.page.click("input[value='Revert to revision 1']")
    visit.page.wait_for_url(f"**/admin/curriculum/chapter/{pk}/change/")
    assert "Reverted II.7 to revision 1" in visit.text()
    assert chapter_source(code="II.7")["title"] == "A Sketch"
    visit.screenshots("revisions")
    visit.assert_clean()
