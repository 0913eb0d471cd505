"""A reader follows a citation to the chapter's References and a term to the book's glossary,
and the book's page leads to both (axe-core checks these pages in test_readers_browser)."""

import pytest

from tests.journeys.test_browser import Visit, browser  # noqa: F401  (the module's Chromium)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reader_follows_a_citation_and_a_term(browser, live_server, seeded_committed):  # noqa: F811
    visit = Visit(browser, live_server.url)
    visit.open("/chapters/II.3/")
    visit.page.get_by_role("link", name="[2]").first.click()
    assert visit.page.url.endswith("/chapters/II.3/#ref-bahdanau2015")
    assert (
        "Neural machine translation by jointly learning"
        in visit.page.locator("#ref-bahdanau2015").inner_text()
    )
    visit.page.get_by_role("link", name="attention weights").first.click()
    visit.page.wait_for_url("**/books/II/glossary/#term-attention-weights")
    entry = visit.page.locator("#term-attention-weights + dd").inner_text()
    assert "Defined in II.3 Scaled Dot-Product Attention: Attention weights" in entry
    visit.assert_clean()


def test_the_book_leads_to_its_bibliography_and_glossary(browser, live_server, seeded_committed):  # noqa: F811
    visit = Visit(browser, live_server.url)
    visit.open("/books/II/")
    visit.page.get_by_role("link", name="Bibliography").click()
    visit.page.wait_for_url("**/books/II/bibliography/")
    text = visit.text()
    assert "Attention is all you need" in text and "Cited in II.3" in text
    visit.open("/books/II/")
    visit.page.get_by_role("link", name="Glossary").click()
    visit.page.wait_for_url("**/books/II/glossary/")
    terms = visit.page.locator("dt").all_inner_texts()
    assert terms == sorted(terms, key=str.casefold) and "model width" in terms
    visit.assert_clean()
