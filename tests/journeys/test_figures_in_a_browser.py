"""The SVG allowlist holds without the CSP: a hostile figure, sanitised, is shown to headless
Chromium on a page with no Content-Security-Policy, and a listener on a port the test owns
hears nothing. The same figure unsanitised is heard, so the test can fail."""

import os
import socket
import threading
import time

import pytest

from curriculum.domain.svg import svg_inline

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"


class Listener:
    """A TCP socket on a free port that counts every connection made to it."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.heard: list[bytes] = []
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.running:
            try:
                connection, _ = self.socket.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    self.heard.append(connection.recv(1024) or b"(connected)")
                except OSError:
                    self.heard.append(b"(connected)")

    def close(self):
        self.running = False
        self.thread.join(timeout=2)
        self.socket.close()


def hostile(base: str) -> str:
    """Every way a figure attribute can name an outside address."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'width="200" height="200" viewBox="0 0 200 200">'
        f'<rect width="50" height="50" fill="URL({base}/fill#p)"/>'
        f'<rect x="60" width="50" height="50" stroke="Url({base}/stroke#p)" stroke-width="9"/>'
        f'<rect y="60" width="50" height="50" fill="\\75 rl({base}/escaped#p)"/>'
        f'<path d="M0 150L100 150" stroke="black" marker-end="url({base}/marker#m)"/>'
        f'<rect x="120" width="50" height="50" clip-path="url({base}/clip#c)"/>'
        f'<rect x="120" y="60" width="50" height="50" mask="url({base}/mask#k)"/>'
        f'<use href="{base}/use.svg#u"/><use xlink:href="{base}/xuse.svg#u"/>'
        f'<pattern id="p" href="{base}/pattern#q"/>'
        f'<image href="{base}/image.png" width="10" height="10"/>'
        f'<rect width="5" height="5" style="fill: url({base}/style#p)"/>'
        "</svg>"
    )


@pytest.fixture(scope="module")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is installed by scripts/install-browser.sh")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


def heard_when_shown(chromium, figure_html: str, listener: Listener) -> list[bytes]:
    page = chromium.new_page()
    try:
        page.set_content(
            f"<!doctype html><html><body>{figure_html}</body></html>", wait_until="load"
        )
        time.sleep(1.5)  # paint servers, markers and masks resolve after load
    finally:
        page.close()
    return list(listener.heard)


def test_a_sanitised_hostile_figure_fetches_nothing_even_without_the_csp(chromium):
    listener = Listener()
    try:
        source = hostile(f"http://127.0.0.1:{listener.port}")
        assert heard_when_shown(chromium, svg_inline(source, alt="hostile"), listener) == []
        heard = heard_when_shown(chromium, source, listener)
        assert heard, "the unsanitised figure does reach the listener (the test can fail)"
    finally:
        listener.close()
