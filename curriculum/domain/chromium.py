"""Printing a page to PDF with headless Chromium, bounded: one process group per print, killed
when it runs past PDF_PRINT_SECONDS, its PDF refused past PDF_MAX_BYTES, with a profile of its
own (prints in parallel never share one) and no network but the page's own files.

Chromium prints what a reader's browser shows (MathML, SVG figures, the print stylesheet);
page numbers come from the stylesheet's @page margin boxes, bookmarks from the headings
(`--generate-pdf-document-outline`)."""

import contextlib
import os
import signal
import subprocess
import tempfile
from pathlib import Path

from django.conf import settings

UNAVAILABLE = (
    "PDF not available: Chromium is not installed where the worker runs "
    "(scripts/install-browser.sh installs it; PDF_CHROMIUM names another)"
)

HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""Chromium run headless on a machine with no network beyond loopback (the browser tests too)."""
FLAGS = (
    *HEADLESS,
    "--disable-extensions",
    "--no-pdf-header-footer",
    "--generate-pdf-document-outline",
)


class PrintFailed(Exception):
    """Why a page could not be printed, as the site tells readers."""


def chromium_present() -> bool:
    return os.access(settings.PDF_CHROMIUM, os.X_OK)


def html_to_pdf(html: str) -> bytes:
    """The PDF Chromium prints of `html` (a page whose files it names by file:// address)."""
    if not chromium_present():
        raise PrintFailed(UNAVAILABLE)
    seconds = settings.PDF_PRINT_SECONDS
    with tempfile.TemporaryDirectory(prefix="curriculum-pdf-") as work:
        page, printed, log = Path(work, "page.html"), Path(work, "page.pdf"), Path(work, "log")
        page.write_text(html, encoding="utf-8")
        command = [
            settings.PDF_CHROMIUM,
            *FLAGS,
            f"--user-data-dir={Path(work, 'profile')}",
            f"--print-to-pdf={printed}",
            page.as_uri(),
        ]
        with log.open("wb") as errors:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=errors, stderr=errors,
                start_new_session=True,
            )  # fmt: skip
            try:
                process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                raise PrintFailed(
                    f"Chromium took longer than {seconds:g} s (PDF_PRINT_SECONDS) and was stopped"
                ) from None
            finally:
                _stop(process)
        size = printed.stat().st_size if printed.exists() else 0
        if process.returncode != 0 or size == 0:
            said = log.read_text(errors="replace").strip().splitlines()[-1:] or ["nothing"]
            raise PrintFailed(f"Chromium printed no PDF (exit {process.returncode}): {said[0]}")
        if size > settings.PDF_MAX_BYTES:
            raise PrintFailed(
                f"the PDF is {size} bytes, over PDF_MAX_BYTES ({settings.PDF_MAX_BYTES})"
            )
        return printed.read_bytes()


def _stop(process: subprocess.Popen) -> None:
    """Chromium and every process it started (renderer, GPU, zygote), whatever ended the wait:
    the time limit, the task's own, or a print that finished and left helpers behind."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
