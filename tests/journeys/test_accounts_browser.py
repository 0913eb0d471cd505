"""Reader accounts in a real browser: every new page (allauth's, in the site's frame, and the
reader's own) passes axe-core light and dark with a clean console and no CSP violation, and a
reader signs up, sees their progress, signs out and in again and finds it still there."""

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache

from tests.curriculum.domain.test_progress import attempt, practised_chapter
from tests.journeys.test_browser import Visit, browser  # noqa: F401  (the module's Chromium)
from tests.journeys.test_readers_browser import axe_violations, opened, pages_found

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-reader-pass-9"
ANONYMOUS_PAGES = [
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/reset/",
    "/accounts/password/reset/done/",
    "/account/deleted/",
]
READER_PAGES = [
    "/account/",
    "/account/delete/",
    "/accounts/logout/",
    "/accounts/password/change/",
    "/accounts/email/",
    "/chapters/II.7/",
    "/books/II/",
]


@pytest.fixture
def course(books_committed):
    cache.clear()  # sign-ups and logins are counted per address: every test comes from 127.0.0.1
    practised_chapter()


@pytest.fixture
def rita(course):
    rita = User.objects.create_user("rita", password=PASSWORD)
    attempt(rita, "p3", right=False, instance=2)
    attempt(rita, "p3", right=True, instance=6, minutes=2)
    return rita


def sign_in(visit: Visit, username: str = "rita") -> None:
    visit.open("/accounts/login/")
    visit.page.get_by_label("Username").fill(username)
    visit.page.get_by_label("Password").fill(PASSWORD)
    visit.page.get_by_role("button", name="Sign In").click()
    visit.page.wait_for_url("**/account/")


def test_every_account_page_passes_axe_core(browser, live_server, course):  # noqa: F811
    found = pages_found(opened(browser, live_server.url), ANONYMOUS_PAGES)
    assert found == dict.fromkeys(ANONYMOUS_PAGES, [])


def test_every_signed_in_readers_page_passes_axe_core(browser, live_server, rita):  # noqa: F811
    """Each page signed in anew, in one tab (`Visit.forget`)."""
    visit = Visit(browser, live_server.url)

    def open_visit(path: str) -> Visit:
        visit.forget()
        sign_in(visit)
        visit.open(path)
        return visit

    assert pages_found(open_visit, READER_PAGES) == dict.fromkeys(READER_PAGES, [])


def test_a_refused_sign_up_and_a_lockout_pass_axe_core_too(browser, live_server, course):  # noqa: F811
    visit = Visit(browser, live_server.url)
    visit.open("/accounts/signup/")
    visit.page.get_by_label("Username").fill("rita")
    visit.page.get_by_label("Password:", exact=True).fill(PASSWORD)
    visit.page.get_by_label("Password (again)").fill("another-pass-9")
    visit.page.get_by_role("button", name="Sign Up").click()
    visit.page.locator(".errorlist").first.wait_for()
    assert "You must type the same password each time" in visit.text()
    assert axe_violations(visit) == []
    visit.screenshots("sign-up-refused")
    for _ in range(5):
        visit.open("/accounts/login/")
        visit.page.get_by_label("Username").fill("nobody")
        visit.page.get_by_label("Password").fill("wrong")
        visit.follow(visit.page.get_by_role("button", name="Sign In"))
    assert "Too many tries from your address" in visit.text()
    assert axe_violations(visit) == []


def test_a_reader_signs_up_and_finds_their_progress_after_signing_out_and_in(
    browser,  # noqa: F811
    live_server,
    course,
):
    visit = Visit(browser, live_server.url, width=390, javascript=False)
    visit.open("/chapters/II.7/")
    visit.page.get_by_role("link", name="Your progress").click()  # the masthead's: sign in first
    visit.page.get_by_role("link", name="sign up", exact=True).click()
    visit.page.get_by_label("Username").fill("rita")
    visit.page.get_by_label("Password:", exact=True).fill(PASSWORD)
    visit.page.get_by_label("Password (again)").fill(PASSWORD)
    visit.page.get_by_role("button", name="Sign Up").click()
    visit.page.wait_for_url("**/account/")
    assert "II.7 A Sketch: not tried yet" in visit.text()
    attempt(User.objects.get(username="rita"), "p3", right=True, instance=6)
    visit.open("/chapters/II.7/")
    progress = visit.page.locator("section.reader-progress").inner_text()
    assert "1 of 3 problems solved" in progress and "solved on instance 6" in progress
    visit.screenshot("chapter-progress-phone.png")
    visit.open("/account/")
    visit.follow(visit.page.get_by_role("button", name="Sign out"))
    assert "You have signed out." in visit.text()
    visit.open("/chapters/II.7/")
    assert visit.page.locator("section.reader-progress").count() == 0
    visit.open("/accounts/login/")
    visit.page.get_by_label("Username").fill("rita")
    visit.page.get_by_label("Password").fill(PASSWORD)
    visit.page.get_by_role("button", name="Sign In").click()
    visit.page.wait_for_url("**/account/")
    assert "II.7 A Sketch: 1 of 3 solved" in visit.text()
    visit.assert_clean()


def test_a_reader_deletes_their_account_from_the_page(browser, live_server, rita):  # noqa: F811
    visit = Visit(browser, live_server.url)
    sign_in(visit)
    visit.follow(visit.page.get_by_role("link", name="Delete your account"))
    assert "your 2 attempts" in visit.text()
    visit.page.get_by_role("button", name="Delete my account").click()
    visit.page.wait_for_url("**/account/deleted/")
    assert not User.objects.filter(username="rita").exists()
    visit.open("/chapters/II.7/")
    assert visit.page.locator("section.reader-progress").count() == 0
    visit.assert_clean()


PHONE_PAGES = ["/accounts/password/change/", "/account/", "/chapters/II.7/", "/books/II/"]


def test_the_account_pages_fit_a_390_pixel_phone(browser, live_server, rita):  # noqa: F811
    """Signed in once, each page in turn."""
    visit = Visit(browser, live_server.url, width=390, scheme="dark")
    sign_in(visit)
    found = {}
    for path in PHONE_PAGES:
        visit.open(path)
        found[path] = visit.wider() + axe_violations(visit)
    assert found == dict.fromkeys(PHONE_PAGES, [])
