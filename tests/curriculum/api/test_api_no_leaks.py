"""Nothing hidden reaches an anonymous client, whatever endpoint or parameter it tries.

The content holds one of each kind of hidden thing (see `every_kind`): a draft chapter, an
unpublished strand item, proof and solution (steps and answer) in an in-progress chapter, and
a newer working copy of a released chapter. Every endpoint is walked with every parameter.
"""

import itertools

from curriculum.domain.chapter_files import chapter_import
from curriculum.models import Chapter, Release
from tests.conftest import sketch, verify_now
from tests.curriculum.api.conftest import SECRETS, released

CODES = ["0.LA.01", "0.MC.07", "II.3", "II.4", "II.7", "II.8", "II.9"]
MATURITIES = [None, "M0", "M1", "M2", "M3", "M4"]
STATES = [None, "draft", "in_progress", "published"]
PAGES = ["", "limit=1&offset=0", "limit=100&offset=0", "limit=1&offset=3"]


def _query(**params) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items() if v is not None)


def _urls():
    yield "/api/v1/ping"
    yield "/api/v1/openapi.json"
    yield "/api/v1/docs"
    for maturity, state, page in itertools.product(MATURITIES, STATES, PAGES):
        yield f"/api/v1/books?{_query(maturity=maturity, state=state)}&{page}"
        for book in (None, "0", "II", "I"):
            yield f"/api/v1/chapters?{_query(book=book, maturity=maturity, state=state)}&{page}"
    for numeral, maturity, state in itertools.product(("0", "I", "II"), MATURITIES, STATES):
        yield f"/api/v1/books/{numeral}?{_query(maturity=maturity, state=state)}"
    for code in CODES:
        for preview in ("", "?preview=true", "?preview=1"):
            yield f"/api/v1/chapters/{code}{preview}"
        for page in PAGES:
            yield f"/api/v1/chapters/{code}/releases?{page}"
        for number in (1, 2):
            yield f"/api/v1/chapters/{code}/releases/{number}"


def _assert_hidden(response, url):
    text = response.content.decode()
    for kind, secret in SECRETS.items():
        assert secret not in text, f"{kind} leaked at {url}"
    assert "II.7" not in text, f"the draft's existence leaked at {url}"


def test_no_endpoint_or_parameter_shows_hidden_content_to_anonymous(client, every_kind):
    for url in _urls():
        response = client.get(url)
        assert response.status_code in (200, 404), url
        _assert_hidden(response, url)
        if response.has_header("ETag"):
            again = client.get(url, HTTP_IF_NONE_MATCH='"II.9:w0"')
            _assert_hidden(again, url)


def test_writes_without_a_token_show_nothing_either(client, every_kind):
    for code in CODES:
        for verb in ("publish", "verify"):
            response = client.post(f"/api/v1/chapters/{code}/{verb}")
            assert response.status_code == 401
            _assert_hidden(response, code)


def test_staff_do_see_what_was_hidden(client, every_kind, erin_token):
    """The hunt above is meaningful: the hidden text is really there for staff."""
    assert SECRETS["draft"] in client.get("/api/v1/chapters/II.7", **erin_token).content.decode()
    preview = client.get("/api/v1/chapters/II.8?preview=true", **erin_token).content.decode()
    assert all(SECRETS[k] in preview for k in ("item", "proof", "steps", "answer"))
    working = client.get("/api/v1/chapters/II.9?preview=true", **erin_token).content.decode()
    assert SECRETS["working"] in working


HOSTILE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)">'
    "<script>alert(2)</script>"
    '<image href="http://evil.test/x.png" width="5" height="5"/>'
    '<rect width="4" height="4"/></svg>'
)
HOSTILE = ("onload", "alert(", "<script", "<image", "evil.test")


def test_readers_get_only_the_sanitised_figure_never_the_authors_svg(
    client, books, erin, erin_token
):
    figure = {"label": "1", "caption": "A square.", "alt": "a square", "svg": HOSTILE_SVG}
    chapter_import(document=sketch("II.8", figures=[figure]))  # in progress: a working copy
    chapter = released("II.9", erin, figures=[figure])
    # a release keeps the chapter whole, the author's source too (staff diff releases with it),
    # as every release made before readers were given only the drawing does
    assert Release.objects.get(chapter=chapter).snapshot["figures"][0]["svg"] == HOSTILE_SVG
    chapter_import(document=sketch("II.10", figures=[figure]))
    verify_now(Chapter.objects.get(code="II.10"))
    served = {
        "working copy": client.get("/api/v1/chapters/II.8"),
        "staff read": client.get("/api/v1/chapters/II.8", **erin_token),
        "staff preview": client.get("/api/v1/chapters/II.8?preview=true", **erin_token),
        "release": client.get("/api/v1/chapters/II.9"),
        "release by number": client.get("/api/v1/chapters/II.9/releases/1"),
        "publish answer": client.post("/api/v1/chapters/II.10/publish", **erin_token),
        "page": client.get("/chapters/II.9/"),
    }
    for where, response in served.items():
        assert response.status_code in (200, 201), where
        text = response.content.decode()
        assert "<rect" in text, where  # the drawing is there, rebuilt from the allowlist
        assert not [h for h in HOSTILE if h in text], where
        if where != "page":
            [shown] = response.json()["figures"]
            assert "svg" not in shown and shown["svg_html"].startswith("<svg"), where
    source = client.get("/api/v1/chapters/II.9/source", **erin_token).json()
    assert source["figures"][0]["svg"] == HOSTILE_SVG  # the author's own, for staff only
