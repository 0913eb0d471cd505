"""Nothing hidden reaches an anonymous client, whatever endpoint or parameter it tries.

The content holds one of each kind of hidden thing (see `every_kind`): a draft chapter, an
unpublished strand item, proof and solution (steps and answer) in an in-progress chapter, and
a newer working copy of a released chapter. Every endpoint is walked with every parameter.
"""

import itertools

from tests.api.conftest import SECRETS

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
