"""A chapter whose text holds a table, a footnote, highlighted code and a media library image,
in a real browser: the image loads from the site's own origin under its CSP, the page passes
axe-core light and dark (the code colours' contrast included), and a phone is not widened."""

import pytest

from curriculum.domain.chapter_files import chapter_import
from tests.conftest import sketch
from tests.curriculum.site.test_media import BODY
from tests.journeys.test_browser import Visit, browser  # noqa: F401  (the module's Chromium)
from tests.journeys.test_readers_browser import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rich_chapter() -> None:
    document = sketch("II.7")
    document["strands"]["basics"]["items"][0]["body"] = BODY
    chapter_import(document=document)


def test_tables_notes_code_and_image_pass_axe(browser, live_server, books_committed, heads):  # noqa: F811
    rich_chapter()
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.7/")
    visit.page.locator("article img.media").scroll_into_view_if_needed()  # it loads lazily
    visit.page.wait_for_function(
        "() => document.querySelector('article img.media').naturalWidth === 3"
    )
    assert visit.page.locator("article pre.highlight .k").first.inner_text() == "def"
    visit.page.locator("article .footnote-ref a").click()
    assert visit.page.evaluate("location.hash").startswith("#fn-")
    assert axe_violations(visit) == []
    visit.screenshots("markdown")
    visit.assert_clean()


def test_the_table_and_code_do_not_widen_a_phone_page(browser, live_server, books_committed, heads):  # noqa: F811
    rich_chapter()
    visit = Visit(browser, live_server.url, width=360)
    visit.open("/chapters/II.7/")
    assert visit.wider() == []
    visit.assert_clean()
