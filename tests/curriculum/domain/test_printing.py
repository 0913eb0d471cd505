"""PDFs: what a release asks for, what the worker's print makes of it (read back with
pdftotext), and prints that fail (no Chromium, too slow, too big) recorded, not retried."""

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from curriculum.domain.chromium import UNAVAILABLE
from curriculum.domain.gate import chapter_publish
from curriculum.domain.printing import (
    GAVE_UP,
    PDF_ATTEMPTS,
    book_edition,
    pdf_print,
    pdfs_sweep,
    release_key,
)
from curriculum.models import Book, Chapter, PrintedPdf, Release
from curriculum.site.printing import pdf_page
from tests.conftest import verify_now

State = PrintedPdf.State
CHROMIUM = Path("/usr/bin/chromium")
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists() or not shutil.which("pdftotext"),
    reason="Chromium and pdftotext are installed by scripts/install-browser.sh",
)


def text_of(data: bytes, tmp_path: Path) -> str:
    pdf = tmp_path / "printed.pdf"
    pdf.write_bytes(data)
    return subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout


def ii3() -> Release:
    return Release.objects.get(chapter__code="II.3", number=1)


def fake_chromium(tmp_path: Path, body: str) -> str:
    """A program in Chromium's place: `body` is the shell it runs ($out: where to print)."""
    script = tmp_path / "chromium"
    script.write_text(
        '#!/bin/sh\nfor a in "$@"; do case "$a" in --print-to-pdf=*) out="${a#*=}";; esac; done\n'
        + body
        + "\n"
    )
    script.chmod(0o755)
    return str(script)


def test_a_release_asks_for_its_pdf_and_its_books_edition(released):
    release = ii3()
    edition = book_edition(release.chapter.book)
    asked = dict(PrintedPdf.objects.values_list("key", "state"))
    assert asked == {release_key(release.pk): State.PENDING, edition.key: State.PENDING}
    assert [r.pk for r in edition.releases] == [release.pk]


def test_withdrawing_a_chapter_makes_a_new_edition_and_the_old_one_is_not_printed(released):
    book = Book.objects.get(numeral="II")
    before = book_edition(book)
    Chapter.objects.filter(code="II.3").update(state=Chapter.State.DRAFT)
    assert book_edition(book) is None  # no chapter of Book II is shown now
    assert pdf_print(before.key, pdf_page) == "gone"
    assert not PrintedPdf.objects.filter(key=before.key).exists()


@needs_chromium
def test_a_release_printed_shows_its_title_propositions_and_typeset_maths(released, tmp_path):
    key = release_key(ii3().pk)
    assert pdf_print(key, pdf_page) == State.MADE
    printed = PrintedPdf.objects.get(key=key)
    data = bytes(printed.data)
    assert data.startswith(b"%PDF") and b"/Outlines" in data  # bookmarks from the headings
    text = text_of(data, tmp_path)
    title = ii3().snapshot["title"]
    assert title in " ".join(text.split())
    assert "Prop. 1" in text
    pages = re.findall(r"^\s*(\d+)\s*/\s*(\d+)\s*$", text, re.MULTILINE)  # in the footer
    assert pages and pages[0][0] == "1" and pages[-1][0] == pages[-1][1] == str(len(pages))
    assert "$" not in text and "\\frac" not in text and "\\sqrt" not in text  # no TeX source


@needs_chromium
def test_a_book_printed_has_its_contents_then_each_chapter(seeded, tmp_path):
    for code in ("0.LA.01", "0.MC.07"):  # Book 0's chapters, released at M0
        chapter = Chapter.objects.get(code=code)
        verify_now(chapter)
        chapter_publish(chapter=chapter)
    edition = book_edition(Book.objects.get(numeral="0"))
    assert [r.chapter.code for r in edition.releases] == ["0.LA.01", "0.MC.07"]
    assert pdf_print(edition.key, pdf_page) == State.MADE
    data = bytes(PrintedPdf.objects.get(key=edition.key).data)
    assert b"/Outlines" in data
    text = " ".join(text_of(data, tmp_path).split())
    titles = [r.snapshot["title"] for r in edition.releases]
    contents = text.index("Contents")
    codes = [r.chapter.code for r in edition.releases]
    listed = [text.index(f"{t} {code}, release 1") for t, code in zip(titles, codes, strict=True)]
    begun = [text.index(code, listed[-1] + 40) for code in codes]  # each chapter's own head
    assert contents < listed[0] < listed[1] < begun[0] < begun[1]  # listed, then each in order
    assert "$" not in text and "\\frac" not in text


def test_no_chromium_is_recorded_and_the_sweep_asks_again_once_it_is_there(
    released, settings, client
):
    key = release_key(ii3().pk)
    settings.PDF_CHROMIUM = "/nonexistent/chromium"
    assert pdf_print(key, pdf_page) == State.FAILED
    assert PrintedPdf.objects.get(key=key).message == UNAVAILABLE
    assert pdf_print(key, pdf_page) == State.FAILED  # recorded: not printed again
    page = client.get("/chapters/II.3/releases/1/pdf")
    assert page.status_code == 404
    assert "Chromium is not installed" in page.content.decode()
    pdfs_sweep()  # still absent: left as it is
    assert PrintedPdf.objects.get(key=key).state == State.FAILED
    settings.PDF_CHROMIUM = "/bin/true"  # installed now
    pdfs_sweep()
    assert PrintedPdf.objects.get(key=key).state == State.PENDING


def test_a_print_past_its_time_is_stopped_and_recorded(released, settings, tmp_path):
    settings.PDF_CHROMIUM = fake_chromium(tmp_path, "sleep 30")
    settings.PDF_PRINT_SECONDS = 0.5
    key = release_key(ii3().pk)
    began = time.monotonic()
    assert pdf_print(key, pdf_page) == State.FAILED
    assert time.monotonic() - began < 10
    assert "PDF_PRINT_SECONDS" in PrintedPdf.objects.get(key=key).message


def test_a_pdf_over_the_size_limit_is_refused(released, settings, tmp_path):
    settings.PDF_CHROMIUM = fake_chromium(tmp_path, 'head -c 5000 /dev/zero > "$out"')
    settings.PDF_MAX_BYTES = 1000
    key = release_key(ii3().pk)
    assert pdf_print(key, pdf_page) == State.FAILED
    assert "over PDF_MAX_BYTES (1000)" in PrintedPdf.objects.get(key=key).message


def test_a_chromium_that_prints_nothing_is_a_failure_with_what_it_said(
    released, settings, tmp_path
):
    settings.PDF_CHROMIUM = fake_chromium(tmp_path, "echo 'cannot open display' >&2; exit 3")
    key = release_key(ii3().pk)
    assert pdf_print(key, pdf_page) == State.FAILED
    assert PrintedPdf.objects.get(key=key).message == (
        "Chromium printed no PDF (exit 3): cannot open display"
    )


def test_a_print_whose_worker_died_too_often_has_failed(released):
    key = release_key(ii3().pk)
    PrintedPdf.objects.filter(key=key).update(attempts=PDF_ATTEMPTS)
    assert pdf_print(key, pdf_page) == State.FAILED
    assert PrintedPdf.objects.get(key=key).message == GAVE_UP
