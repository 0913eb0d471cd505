"""Review in a real browser: an Author submits a chapter with a note; an Editor finds it in the
Review queue, returns it with comments the Author then reads, and after the Author's second
submission publishes it with release notes that readers see. Clean console, no CSP violation."""

import pytest
from django.contrib.auth.models import Group, User

from curriculum.domain.chapter_files import chapter_import
from curriculum.models import Chapter, Release
from tests.conftest import sketch, verify_now
from tests.journeys.test_browser import Visit, browser  # noqa: F401  (the module's Chromium)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-staff-pass-9"


@pytest.fixture
def staff(books_committed):
    chapter_import(document=sketch())
    verify_now(Chapter.objects.get(code="II.7"))
    for name, group in (("ann", "Authors"), ("ed", "Editors")):
        user = User.objects.create_user(name, password=PASSWORD, is_staff=True)
        user.groups.add(Group.objects.get(name=group))
    return Chapter.objects.get(code="II.7")


def signed_in(browser, base_url: str, username: str) -> Visit:  # noqa: F811
    visit = Visit(browser, base_url)
    visit.open("/admin/login/")
    visit.page.get_by_label("Username").fill(username)
    visit.page.get_by_label("Password").fill(PASSWORD)
    go(visit, "button", "Log in")
    visit.page.wait_for_url("**/admin/")
    return visit


def go(visit: Visit, role: str, name: str) -> None:
    """Follow a link or press a button, and wait for the page it leads to."""
    with visit.page.expect_navigation():
        visit.page.get_by_role(role, name=name).first.click()


def test_a_review_round_trip_in_the_browser(browser, live_server, staff):  # noqa: F811
    chapter_page = f"/admin/curriculum/chapter/{staff.pk}/change/"
    author = signed_in(browser, live_server.url, "ann")
    author.open(chapter_page)
    assert author.page.get_by_role("link", name="Publish…").count() == 0
    go(author, "link", "Submit for review…")
    author.page.get_by_label("Note to the Editor").fill("New exercise 3, please check.")
    go(author, "button", "Submit for review")
    assert "II.7 is in the Editors' review queue." in author.text()
    author.assert_clean()

    editor = signed_in(browser, live_server.url, "ed")
    editor.open("/admin/")
    go(editor, "link", "Review queue")
    assert "New exercise 3, please check." in editor.text()
    go(editor, "link", "Review II.7")
    editor.page.get_by_label("Comments").fill("Exercise 3 repeats exercise 2.")
    go(editor, "button", "Return to the author")
    assert "II.7 was returned to its author with your comments." in editor.text()
    assert "Review II.7" not in editor.text()  # the queue is empty again
    editor.assert_clean()

    author.open(chapter_page)
    assert "Exercise 3 repeats exercise 2." in author.text()
    go(author, "link", "Submit for review…")
    author.page.get_by_label("Note to the Editor").fill("Exercise 3 rewritten.")
    go(author, "button", "Submit for review")
    author.assert_clean()

    editor.open("/admin/curriculum/review/")
    go(editor, "link", "Review II.7")
    assert "Exercise 3 rewritten." in editor.text()
    editor.page.get_by_label("Release notes (readers see them").fill("Exercise 3 is new.")
    go(editor, "button", "Publish release 1")
    assert "Published II.7 as release 1." in editor.text()
    editor.assert_clean()
    assert Release.objects.get().notes == "Exercise 3 is new."

    reader = Visit(browser, live_server.url)
    reader.open("/chapters/II.7/releases/")
    assert "Exercise 3 is new." in reader.text()
    reader.assert_clean()
