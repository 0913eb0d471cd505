"""A reader's page on another origin, in a real browser: it reads the public chapter JSON (CORS)
and the headers a client acts on, never with the reader's cookies, and its write (a PUT with
credentials and a token) is refused by the browser before it reaches the site."""

import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from curriculum.domain.tokens import token_issue
from curriculum.models import Chapter
from tests.conftest import sketch
from tests.curriculum.conftest import release_ii3
from tests.journeys.test_browser import browser  # noqa: F401  (the module's Chromium)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

READ = """async (api) => {
  const response = await fetch(api + "/api/v1/chapters/II.3");
  const chapter = await response.json();
  return {status: response.status, code: chapter.code, release: chapter.release,
          etag: response.headers.get("ETag"),
          remaining: response.headers.get("RateLimit-Remaining")};
}"""
REFUSED = """async ([url, init]) => {
  try { await fetch(url, init); return "sent"; } catch (error) { return error.name; }
}"""


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002  (the base class's name)
        """Nothing on the test's output."""


@pytest.fixture
def elsewhere(tmp_path):
    """A page served from another origin (another port of the loopback address): a reader's
    app that uses the API."""
    (tmp_path / "index.html").write_text(
        "<!doctype html><title>A reader's app</title><p>elsewhere</p>", encoding="utf-8"
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_a_page_on_another_origin_reads_the_chapter_json_and_cannot_write(
    browser,  # noqa: F811
    live_server,
    seeded_committed,
    erin,
    elsewhere,
):
    release_ii3()
    secret = token_issue(user=erin, name="reader's app", scopes=["read", "write"])[1]
    page = browser.new_page()
    try:
        page.goto(f"{elsewhere}/index.html")
        assert page.evaluate("location.origin") != live_server.url
        read = page.evaluate(READ, live_server.url)
        assert read["status"] == 200 and (read["code"], read["release"]) == ("II.3", 1)
        assert read["etag"] and read["remaining"] is not None  # exposed to its scripts

        chapter = f"{live_server.url}/api/v1/chapters/II.3"
        with_cookies = {"credentials": "include"}
        renamed = {
            "method": "PUT",
            "credentials": "include",
            "headers": {"Content-Type": "application/json", "Authorization": f"Bearer {secret}"},
            "body": json.dumps(sketch("II.3", title="Written from elsewhere")),
        }
        assert page.evaluate(REFUSED, [chapter, with_cookies]) == "TypeError"
        assert page.evaluate(REFUSED, [chapter, renamed]) == "TypeError"
    finally:
        page.close()
    assert Chapter.objects.get(code="II.3").title != "Written from elsewhere"
