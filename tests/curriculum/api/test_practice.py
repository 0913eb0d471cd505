"""The practice routes' bodies: JSON only (a cross-site form cannot post it without a
preflight), a signed-in reader's check needs the CSRF token its session was given, and an
answer is bounded before anything reads it."""

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from curriculum.domain.gate import chapter_publish
from curriculum.models import Attempt, Chapter, PracticeTally
from tests.conftest import problem, verify_now
from tests.curriculum.site.test_practice import engine, practice_chapter

API = "/api/v1/chapters/II.7/problems/p3/instances"


@pytest.fixture
def reader_client(practice) -> Client:
    """A signed-in reader's browser, CSRF enforced as a real browser's is."""
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(User.objects.create_user("rhea", password="rhea-pass-9"))
    return browser


def _answer(instance: int = 4) -> str:
    return json.dumps({"answer": engine(instance)})


def _csrf_token(browser: Client) -> str:
    browser.get("/chapters/II.7/problems/p3/?instance=4")  # the page hands out the token
    return browser.cookies["csrftoken"].value


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""],
)
def test_a_body_that_is_not_declared_json_is_415_and_nothing_is_recorded(
    reader_client, content_type
):
    token = _csrf_token(reader_client)  # a reader's own page, not a forgery: only the type
    response = reader_client.post(
        f"{API}/4/check", _answer(), content_type=content_type, HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 415
    body = response.json()
    assert body["detail"] == "Unsupported Media Type"
    [error] = body["errors"]
    assert error["code"] == "unsupported_media_type" and "application/json" in error["detail"]
    assert not Attempt.objects.exists() and not PracticeTally.objects.exists()


def test_a_signed_in_reader_s_check_without_its_csrf_token_is_refused(reader_client):
    """A form on another site posts text/plain with the reader's cookie (415), and a script
    that could send JSON has no token (403): nothing is kept."""
    forged = reader_client.post(f"{API}/4/check", _answer(), content_type="text/plain")
    assert forged.status_code == 415
    refused = reader_client.post(f"{API}/4/check", _answer(), content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    assert not Attempt.objects.exists() and not PracticeTally.objects.exists()
    token = _csrf_token(reader_client)
    kept = reader_client.post(
        f"{API}/4/check", _answer(), content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert kept.status_code == 200 and kept.json()["ok"] is True
    assert Attempt.objects.get().right is True


def test_a_client_without_a_session_checks_without_a_csrf_token(practice):
    anonymous = Client(enforce_csrf_checks=True)
    response = anonymous.post(f"{API}/4/check", _answer(), content_type="application/json")
    assert response.status_code == 200 and response.json()["ok"] is True
    assert anonymous.post(f"{API}/4/check", _answer(), content_type="text/plain").status_code == 415
    charset = "application/json; charset=utf-8"
    assert anonymous.post(f"{API}/4/check", _answer(), content_type=charset).status_code == 200


def test_a_chapter_put_that_is_neither_json_nor_yaml_is_415(client, practice, alice_token):
    source = client.get("/api/v1/chapters/II.7/source", **alice_token).content
    response = client.put("/api/v1/chapters/II.7", source, content_type="text/plain", **alice_token)
    assert response.status_code == 415
    assert "application/json" in response.json()["errors"][0]["detail"]


@pytest.mark.parametrize(
    "answer",
    # within LIMIT_READER_BODY_BYTES (tests/curriculum/test_reader_bodies.py: past it, 413)
    [[0.5] * 6_000, [[0.5] * 3] * 2_000, {"out": [0.5] * 6_000}],
)
def test_a_json_answer_past_the_answer_limit_is_refused_before_any_work(
    client, practice, engine_runs, settings, answer
):
    response = client.post(f"{API}/4/check", {"answer": answer}, content_type="application/json")
    assert response.status_code == 422 and engine_runs == []
    [error] = response.json()["errors"]
    assert (error["pointer"], error["code"]) == ("/answer", "limit")
    limit = settings.LIMIT_ANSWER_CHARS
    assert "LIMIT_ANSWER_CHARS" in error["detail"]
    assert f"{limit:,}" in error["detail"] or str(limit) in error["detail"]
    assert not PracticeTally.objects.exists()


def test_a_json_answer_within_the_limit_is_still_judged(client, practice):
    response = client.post(f"{API}/4/check", {"answer": engine(4)}, content_type="application/json")
    assert response.status_code == 200 and response.json()["ok"] is True


def test_a_typed_column_for_a_matrix_is_read_as_its_rows_as_on_the_site(client, practice):
    """ "0.2689\\n0.7311" for a 1 × 2 matrix had been read as "a matrix of 1 × 2" and judged
    right: one matrix row per line makes it 2 × 1, refused as the page refuses it."""
    row = "/api/v1/chapters/II.7/problems/p2/instances/0/check"
    body = client.post(row, {"answer": "0.5\n0.5"}, content_type="application/json").json()
    assert (body["ok"], body["judged"], body["read"]) == (False, False, "a matrix of 2 × 1 numbers")
    assert body["message"] == "the answer is a matrix of 1 × 2 numbers"
    assert (body["answer_shape"], body["expected_shape"]) == ([2, 1], [1, 2])
    line = client.post(row, {"answer": "0.5 0.5"}, content_type="application/json").json()
    assert line["ok"] is True
    six = "\n".join(repr(v) for row in engine(4) for v in row)  # p3's 2 × 3, one per line
    refused = client.post(f"{API}/4/check", {"answer": six}, content_type="application/json")
    assert refused.json()["read"] == "a matrix of 6 × 1 numbers"
    assert refused.json()["judged"] is False


@pytest.mark.parametrize(("scores", "answer"), [([[3.0]], [[1.0]]), ([3.0], [1.0])])
def test_one_number_typed_for_a_value_of_one_number_takes_its_shape(client, books, scores, answer):
    """One line takes the asked shape when its count fits: "1" for a 1 × 1 matrix or a vector
    of one had been read as a single number and refused, where only JSON was judged."""
    practice_chapter(problem("p9", scores=scores, answer=answer))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    url = "/api/v1/chapters/II.7/problems/p9/instances/0/check"
    for typed in ("1", "1.0", json.dumps(answer)):
        body = client.post(url, {"answer": typed}, content_type="application/json").json()
        assert body["ok"] is True, (typed, body)
    wrong = client.post(url, {"answer": "0.5"}, content_type="application/json").json()
    assert (wrong["ok"], wrong["judged"]) == (False, True)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"", ("", "a JSON object is required; the request has no body")),
        (b"{}", ("/answer", "Field required")),  # required in the schema too
        (b'{"answer": null}', ("/answer", 'send the answer: {"answer": [[0.5, 0.5]]}')),
    ],
)
def test_a_check_without_an_answer_says_what_is_missing_in_the_client_s_terms(
    client, practice, body, said
):
    response = client.post(f"{API}/1/check", body, content_type="application/json")
    [error] = response.json()["errors"]
    assert response.status_code == 422 and (error["pointer"], error["detail"]) == said


@pytest.mark.parametrize("tiny", ["1e-400", "-1e-330", "1e-320"])
@pytest.mark.parametrize("typed", [False, True])
def test_an_answer_holding_a_number_past_float64s_range_is_refused_not_read_as_0(
    client, practice, tiny, typed
):
    """1e-400 had been read as 0 (and judged right for an entry of 0) where 1e-320 was refused:
    a number written nonzero is never 0, whether sent as JSON or typed."""
    right = engine(4)
    rows = [[*row[:-1], tiny] for row in right]
    said = "; ".join(" ".join(map(str, row)) for row in rows) if typed else None
    body = f'{{"answer": {json.dumps(said) if typed else json.dumps(rows).replace('"', "")}}}'
    response = client.post(f"{API}/4/check", body, content_type="application/json")
    assert response.status_code == 422, response.content
    [error] = response.json()["errors"]
    assert error["pointer"] == "/answer"
    assert "must be 0 or at least 2.23e-308 in size" in error["detail"]
