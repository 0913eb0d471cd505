"""Requests the API refuses, each the same way on every route: a body past
LIMIT_API_BODY_BYTES is 413 (even where no body is read), JSON that does not parse is 400
`invalid_json`, a body of no type says none was sent; every error item names its place (a 404
the path parameter that found nothing, a bad Host the header); a 405's Allow lists HEAD."""

import json
import re

import pytest
import yaml

from curriculum.models import Chapter
from tests.conftest import sketch
from tests.curriculum.api.conftest import released

CHECK = "/api/v1/chapters/II.7/problems/p1/instances/0/check"


@pytest.fixture
def shown(books, erin):
    return released("II.7", erin)


def test_a_body_past_the_api_limit_is_413_on_every_route(client, shown, erin_token, settings):
    big = b"[" + b"1," * (settings.LIMIT_API_BODY_BYTES // 2) + b"1]"
    said = f"at most {settings.LIMIT_API_BODY_BYTES:,} bytes (LIMIT_API_BODY_BYTES)"
    for path in (CHECK, "/api/v1/chapters/II.7/publish", "/api/v1/chapters/II.7/verify"):
        response = client.post(path, big, content_type="application/json", **erin_token)
        assert response.status_code == 413, path
        assert response.json()["errors"] == [{"pointer": "", "code": "limit", "detail": said}]


def test_an_answer_past_its_limit_is_422_naming_it(client, shown, settings):
    answer = json.dumps({"answer": "1 " * settings.LIMIT_ANSWER_CHARS})
    response = client.post(CHECK, answer, content_type="application/json")
    [item] = response.json()["errors"]
    assert response.status_code == 422 and item["pointer"] == "/answer"
    assert "LIMIT_ANSWER_CHARS" in item["detail"]


def test_a_check_of_more_numbers_than_a_chapter_file_is_an_answer_past_its_limit(
    client, shown, erin_token, settings
):
    """Within LIMIT_API_BODY_BYTES, past LIMIT_CHAPTER_NUMBERS: an answer is held to its own
    limit, not measured as a chapter file (ninja called that a 400 that "cannot parse")."""
    body = json.dumps({"answer": [1] * (settings.LIMIT_CHAPTER_NUMBERS + 1)})
    response = client.post(CHECK, body, content_type="application/json", **erin_token)
    assert response.status_code == 422
    [item] = response.json()["errors"]
    assert item["pointer"] == "/answer" and "LIMIT_ANSWER_CHARS" in item["detail"]


NOT_UTF8 = ['{"answer": 1}'.encode(codec) for codec in ("utf-16", "utf-32")] + [b"\xff\xfe\x00"]
"""JSON in UTF-16 or UTF-32 (with its BOM), and bytes of no encoding: a body is UTF-8."""


@pytest.mark.parametrize("body", ["{", '{"answer": 1, "answer": 2}', *NOT_UTF8])
def test_json_that_does_not_parse_is_400_invalid_json_on_every_route(
    client, shown, erin_token, body
):
    put = client.put("/api/v1/chapters/II.7", body, content_type="application/json", **erin_token)
    check = client.post(CHECK, body, content_type="application/json")
    publish = client.post(
        "/api/v1/chapters/II.7/publish", body, content_type="application/json", **erin_token
    )
    for response in (put, check, publish):
        [item] = response.json()["errors"]
        assert response.status_code == 400
        assert (item["pointer"], item["code"]) == ("", "invalid_json")
        assert item["detail"].startswith("not valid JSON")
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    taking = [op for ops in paths.values() for op in ops.values() if "requestBody" in op]
    assert len(taking) == 3 and all("400" in op["responses"] for op in taking)  # documented


def test_a_number_float64_cannot_hold_as_written_is_422_at_its_place_on_every_route(
    client, shown, erin_token
):
    """JSON that reads: each such number refused where it stands (it had been a 400 calling
    valid JSON not JSON, at the whole body)."""
    document = json.dumps(sketch("II.7")).replace('"answer": [[0.5, 0.5]]', '"answer": 2.0', 1)
    put = client.put(
        "/api/v1/chapters/II.7",
        document.replace('"answer": 2.0', '"answer": 4110396818392708.2', 1),
        content_type="application/json",
        **erin_token,
    )
    check = client.post(
        CHECK, '{"answer": [[1, 36943215058793618.5]]}', content_type="application/json"
    )
    publish = client.post(
        "/api/v1/chapters/II.7/publish",
        '{"notes": "n", "x": 2448.00000000000001}',
        content_type="application/json",
        **erin_token,
    )
    said = {
        put: ("/problems/0/solution/answer", "4110396818392708.2: float64 would read it as"),
        check: ("/answer/0/1", "36943215058793618.5: float64 would read it as"),
        publish: ("/x", "2448.00000000000001: float64 would read it as 2448.0, losing"),
    }
    for response, (where, words) in said.items():
        assert response.status_code == 422, response.content
        [item] = response.json()["errors"]
        assert response.json()["detail"] == "a number in the body cannot be read as written"
        assert item["pointer"] == where and item["detail"].startswith(words), item
    assert Chapter.objects.get(code="II.7").problems.get(key="p1").solution.answer != 2.0


def test_a_body_sent_without_a_content_type_is_said_so(client, shown):
    response = client.generic("POST", CHECK, b'{"answer": 1}', content_type="")
    [item] = response.json()["errors"]
    assert response.status_code == 415
    assert item["detail"] == "no Content-Type was sent; send it as application/json"


@pytest.mark.parametrize("kind", ["application/yaml", "application/x-yaml", "text/yaml"])
def test_a_document_is_read_as_yaml_under_each_yaml_type(client, books, alice_token, kind):
    text = yaml.safe_dump(sketch(title=f"As {kind}"), sort_keys=False)
    response = client.put("/api/v1/chapters/II.7", text, content_type=kind, **alice_token)
    assert response.status_code == 201, response.json()["errors"]
    assert Chapter.objects.get(code="II.7").title == f"As {kind}"


def test_each_404_names_the_path_parameter_that_found_nothing(client, shown, erin_token):
    answers = {
        "code": client.get("/api/v1/chapters/II.70"),
        "number": client.get("/api/v1/chapters/II.7/releases/9"),
        "key": client.get("/api/v1/chapters/II.7/problems/p99/instances/0"),
        "numeral": client.get("/api/v1/books/IX"),
    }
    answers["code (source)"] = client.get("/api/v1/chapters/II.70/source", **erin_token)
    for name, response in answers.items():
        [item] = response.json()["errors"]
        assert (response.status_code, item["code"]) == (404, "not_found"), name
        assert item["parameter"] == name.split()[0]


def test_a_host_not_allowed_is_400_naming_the_host_header(client, db):
    response = client.get("/api/v1/books", HTTP_HOST="evil.test")
    [item] = response.json()["errors"]
    assert response.status_code == 400 and (item["header"], item["code"]) == ("Host", "invalid")
    assert "ALLOWED_HOSTS" not in response.content.decode()  # the operators' setting, not said


def test_a_405_allows_head_where_get_is_served(client, db):
    response = client.delete("/api/v1/books")
    assert response.status_code == 405
    allowed = {method.strip() for method in response["Allow"].split(",")}
    assert {"GET", "HEAD"} <= allowed and "DELETE" not in allowed
    assert client.head("/api/v1/books").status_code == 200


PUBLISH = "/api/v1/chapters/II.7/publish"
OTHER_JSON_TYPES = [
    "application/merge-patch+json",
    "application/foo+json",
    "application/vnd.api+json",
    "application/yaml+json",
]


def _refused_for_its_type(response) -> str:
    [item] = response.json()["errors"]
    assert response.status_code == 415
    assert response["Content-Type"] == "application/problem+json"
    assert (item["header"], item["code"]) == ("Content-Type", "unsupported_media_type")
    return item["detail"]


@pytest.mark.parametrize("kind", OTHER_JSON_TYPES)
def test_a_json_suffixed_type_is_415_on_every_route_that_reads_a_body(
    client, shown, erin_token, kind
):
    """Only the types each route documents are read: a +json type is another format (a merge
    patch, JSON:API), not the document or answer the route reads."""
    before = Chapter.objects.get(code="II.7")
    document = json.dumps(sketch(title="Overwritten"))
    put = client.put("/api/v1/chapters/II.7", document, content_type=kind, **erin_token)
    publish = client.post(PUBLISH, '{"notes": "n"}', content_type=kind, **erin_token)
    check = client.post(CHECK, '{"answer": 1}', content_type=kind)
    for response in (put, publish, check):
        assert f"the Content-Type is {kind!r}" in _refused_for_its_type(response)
    after = Chapter.objects.get(code="II.7")
    assert (after.title, after.revision) == (before.title, before.revision)
    assert after.releases.count() == 1


@pytest.mark.parametrize("kind", ["application/json", "application/yaml", "text/x-yaml"])
@pytest.mark.parametrize("charset", ["bogus", "ebcdic", "utf-16", "iso-8859-1", ""])
def test_a_charset_other_than_utf_8_is_415_saying_the_body_must_be_utf_8(
    client, books, alice_token, kind, charset
):
    text = (
        json.dumps(sketch())
        if kind == "application/json"
        else yaml.safe_dump(sketch(), sort_keys=False)
    )
    response = client.put(  # bytes: the test client would encode text in the charset named
        "/api/v1/chapters/II.7",
        text.encode(),
        content_type=f"{kind}; charset={charset}",
        **alice_token,
    )
    detail = _refused_for_its_type(response)
    assert detail.startswith(f"the body must be UTF-8, but the Content-Type says charset={charset}")
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_check_or_publish_in_another_charset_is_415_too(client, shown, erin_token):
    kind = "application/json; charset=ebcdic"
    # generic: post() would encode the body in the charset named
    check = client.generic("POST", CHECK, b'{"answer": 1}', content_type=kind)
    publish = client.generic("POST", PUBLISH, b'{"notes": "n"}', content_type=kind, **erin_token)
    for response in (check, publish):
        assert "must be UTF-8" in _refused_for_its_type(response)


@pytest.mark.parametrize(
    "kind", ["application/json; charset=UTF-8", 'application/yaml; charset="utf-8"', "text/yaml"]
)
def test_utf_8_named_in_any_case_or_not_at_all_is_read(client, books, alice_token, kind):
    text = json.dumps(sketch()) if "json" in kind else yaml.safe_dump(sketch(), sort_keys=False)
    response = client.put("/api/v1/chapters/II.7", text, content_type=kind, **alice_token)
    assert response.status_code == 201, response.json()["errors"]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("code: 2001-12-14", ("/code", "the document is for 2001-12-14; this address is for II.7")),
        ("title: !!binary aGk=", ("", "line {}, column 8: the tag !!binary is not allowed")),
        ("title: !!set {x}", ("", "line {}, column 8: the tag !!set is not allowed")),
    ],
)
def test_a_yaml_document_s_date_is_text_and_a_tag_beyond_yaml_1_2_is_named(
    client, books, alice_token, written, said
):
    text = yaml.safe_dump(sketch(), sort_keys=False)
    key = written.split(":")[0]
    text = re.sub(rf"^{key}: .*$", written, text, count=1, flags=re.MULTILINE)
    response = client.put(
        "/api/v1/chapters/II.7", text, content_type="application/yaml", **alice_token
    )
    [item] = response.json()["errors"]
    pointer, detail = said[0], said[1].format(text.splitlines().index(written) + 1)
    assert response.status_code == 422
    assert (item["pointer"], item["detail"][: len(detail)]) == (pointer, detail)
    assert not Chapter.objects.filter(code="II.7").exists()
