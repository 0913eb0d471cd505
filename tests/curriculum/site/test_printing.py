"""The PDFs on the site: served once made (with an ETag), a page saying it is being made
before that (never printed in the request), and linked from chapter and book pages only once
made."""

from unittest import mock

import pytest

from curriculum.domain.printing import book_edition, pdf_print, release_key
from curriculum.models import Book, Chapter, PrintedPdf, Release
from curriculum.site.printing import pdf_page

State = PrintedPdf.State
FAKE = b"%PDF-1.7 a printed release"
RELEASE_PDF = "/chapters/II.3/releases/1/pdf"
BOOK_PDF = "/books/II/pdf"


@pytest.fixture(autouse=True)
def never_printed_in_a_request():
    with mock.patch("curriculum.domain.printing.html_to_pdf", side_effect=AssertionError):
        yield


def made(key: str) -> None:
    """As the worker prints it, Chromium aside (the page is made, and printed as FAKE)."""
    with mock.patch("curriculum.domain.printing.html_to_pdf", return_value=FAKE):
        assert pdf_print(key, pdf_page) == State.MADE


def ii3_key() -> str:
    return release_key(Release.objects.get(chapter__code="II.3", number=1).pk)


def book_key() -> str:
    return book_edition(Book.objects.get(numeral="II")).key


def test_a_pdf_not_made_yet_is_a_page_saying_it_is_being_made(released, client):
    for address in (RELEASE_PDF, BOOK_PDF):
        page = client.get(address)
        assert page.status_code == 503
        assert page["Retry-After"] == "30"
        assert "is being made" in page.content.decode()


def test_a_made_pdf_is_served_with_an_etag_and_revalidated(released, client):
    made(ii3_key())
    pdf = client.get(RELEASE_PDF)
    assert pdf.status_code == 200
    assert pdf["Content-Type"] == "application/pdf"
    assert pdf.content == FAKE
    assert 'filename="II.3-release-1.pdf"' in pdf["Content-Disposition"]
    again = client.get(RELEASE_PDF, HTTP_IF_NONE_MATCH=pdf["ETag"])
    assert again.status_code == 304 and again.content == b""


def test_a_pdf_asked_for_by_a_request_is_asked_for_once(released, client):
    PrintedPdf.objects.all().delete()  # as for a release made before PDFs were
    with mock.patch("curriculum.domain.printing._send") as sent:
        for _ in range(3):
            assert client.get(RELEASE_PDF).status_code == 503
    assert PrintedPdf.objects.filter(key=ii3_key(), state=State.PENDING).count() == 1
    assert sent.call_count <= 1  # after commit: once, whatever the requests


def test_a_failed_print_says_why(released, client):
    PrintedPdf.objects.filter(key=book_key()).update(state=State.FAILED, message="it broke")
    page = client.get(BOOK_PDF)
    assert page.status_code == 404
    assert "could not be made: it broke." in page.content.decode()


@pytest.mark.parametrize(
    "address", ["/chapters/II.3/releases/9/pdf", "/chapters/NOPE/releases/1/pdf", "/books/IX/pdf"]
)
def test_no_such_release_or_book_is_a_404(released, client, address):
    assert client.get(address).status_code == 404


def test_a_withdrawn_chapter_hides_its_pdf(released, client):
    made(ii3_key())
    Chapter.objects.filter(code="II.3").update(state=Chapter.State.DRAFT)
    assert client.get(RELEASE_PDF).status_code == 404


def test_with_no_worker_the_page_says_pdfs_are_not_made_here(released, client, settings):
    PrintedPdf.objects.all().delete()
    settings.CELERY_TASK_ALWAYS_EAGER = True
    page = client.get(RELEASE_PDF)
    assert page.status_code == 404
    assert "CELERY_BROKER_URL" in page.content.decode()
    assert not PrintedPdf.objects.exists()


def test_chapter_and_book_pages_link_their_pdfs_once_made(released, client):
    chapter, book, release = (
        client.get(a) for a in ("/chapters/II.3/", "/books/II/", "/chapters/II.3/releases/1/")
    )
    assert RELEASE_PDF not in chapter.content.decode()
    assert RELEASE_PDF not in release.content.decode()
    assert BOOK_PDF not in book.content.decode()
    made(ii3_key())
    made(book_key())
    assert RELEASE_PDF in client.get("/chapters/II.3/").content.decode()
    assert RELEASE_PDF in client.get("/chapters/II.3/releases/1/").content.decode()
    assert BOOK_PDF in client.get("/books/II/").content.decode()
    # a conditional request from before the PDF was made gets the page again, with its link
    again = client.get("/chapters/II.3/", HTTP_IF_NONE_MATCH=chapter["ETag"])
    assert again.status_code == 200
