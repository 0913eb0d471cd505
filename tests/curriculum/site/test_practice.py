"""A reader practises a generated problem on numbered instances: stable for the same N,
different across N, the answer checked by the engine at the problem's tolerance, nothing of
the answer in the page until the reader asks for it; on the site without JavaScript, and in
the API."""

import json
import re
from urllib.parse import quote

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client

import attention
from curriculum.domain.answer_tables import number
from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import problem, sketch, verify_now

SCORES = {"generate": "normal", "shape": [2, 3], "seed": 7}
PAGE = "/chapters/II.7/problems/p3/"
FLOOR = " but never looser than 3 significant figures"  # the engine's, whatever rtol and atol say
API = "/api/v1/chapters/II.7/problems/p3/instances"


def engine(instance: int) -> list:
    return attention.evaluate("softmax", {"scores": SCORES}, {"output": "out"}, instance).tolist()


def practice_chapter(*problems: dict) -> None:
    """II.7 of a worked p1, p2, and these problems."""
    worked = problem("p1", "worked", "softmax-row")
    chapter_import(document=sketch("II.7", problems=[worked, problem("p2"), *problems]))


def generated_chapter(*, publish: bool = True) -> None:
    """II.7 whose exercise p3 draws its scores; verified, then released unless asked not to."""
    practice_chapter(problem("p3", scores=SCORES, answer=engine(0)))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    if publish:
        chapter_publish(chapter=chapter)


def page_numbers(html: str) -> list[str]:
    return re.findall(r"<td>([^<]+)</td>", html)


def check(client, instance: int, answer: str, step: str = "check"):
    """The page answers the POST itself: nothing of an anonymous reader is kept for a redirect."""
    return client.post(PAGE, {"instance": instance, "answer": answer, "step": step})


def test_without_an_instance_the_reader_is_sent_to_a_random_one_kept_in_the_address(
    client, practice
):
    response = client.get(PAGE)
    assert response.status_code == 302
    n = int(re.fullmatch(r"/chapters/II.7/problems/p3/\?instance=(\d+)", response["Location"])[1])
    assert 1 <= n <= 20


def test_the_redirect_to_an_instance_keeps_what_else_the_reader_asked_for(client, practice):
    response = client.get(PAGE, {"solution": "1", "hints": "2"})
    assert response.status_code == 302
    assert re.fullmatch(
        r"/chapters/II.7/problems/p3/\?instance=\d+&solution=1&hints=2", response["Location"]
    )


@pytest.mark.parametrize("hints", ["01", "+1", "1.0", " 1", "\u0661"])
def test_hints_not_written_plainly_are_refused_as_an_instance_is(client, practice, hints):
    response = client.get(PAGE, {"instance": 1, "hints": hints})
    assert response.status_code == 400
    assert "whole number, written plainly" in response.content.decode()


def test_the_same_instance_shows_the_same_numbers_and_another_shows_others(client, practice):
    first = page_numbers(client.get(PAGE, {"instance": 3}).content.decode())
    assert len(first) == 6
    assert page_numbers(client.get(PAGE, {"instance": 3}).content.decode()) == first
    assert page_numbers(client.get(PAGE, {"instance": 4}).content.decode()) != first


def test_the_page_holds_no_answer_until_the_reader_asks_for_the_solution(client, practice):
    html = client.get(PAGE, {"instance": 5}).content.decode()
    answer = [number(v) for row in engine(5) for v in row]
    assert not set(answer) & set(page_numbers(html))
    assert 'class="answer"' not in html and "Equal scores share the weight" not in html
    shown = client.get(PAGE, {"instance": 5, "solution": "1"}).content.decode()
    assert set(answer) <= set(page_numbers(shown))
    assert "Equal scores share the weight" in shown


def test_a_right_answer_typed_as_rows_is_accepted(client, practice):
    typed = "\n".join(" ".join(repr(v) for v in row) for row in engine(6))
    response = check(client, 6, typed)
    assert response.status_code == 200 and response["Cache-Control"] == "private, no-store"
    assert "Right." in response.content.decode()
    assert not Session.objects.exists()  # nothing of an anonymous reader kept


def test_a_right_answer_typed_flat_or_as_json_is_accepted(client, practice):
    flat = ", ".join(repr(v) for row in engine(7) for v in row)
    assert "Right." in check(client, 7, flat).content.decode()
    assert "Right." in check(client, 7, json.dumps(engine(7))).content.decode()


def test_an_answer_within_the_tolerance_is_accepted_and_one_outside_is_not(client, practice):
    near = [[v + 5e-10 for v in row] for row in engine(8)]  # atol 1e-9
    far = [[v + 1e-3 for v in row] for row in engine(8)]
    assert "Right." in check(client, 8, json.dumps(near)).content.decode()
    html = check(client, 8, json.dumps(far)).content.decode()
    refused = (
        "Not the engine&#x27;s value within rtol 1e-06, atol 1e-09 but never looser than 3 "
        "significant figures, or to the 6 significant"
    )
    assert "Not right." in html and refused in html


def test_the_page_and_the_api_tell_the_reader_the_floor_the_check_applies(client, practice):
    """rtol and atol never loosen a check past the third figure: the reader is told so where
    the tolerance is said, on the page and in the API alike (one sentence, `reader_asks`)."""
    said = (
        f"every entry is checked within rtol 1e-06, atol 1e-09{FLOOR}, or to the 6 significant "
        "figures printed; an entry that is 0 is answered 0."
    )
    page = client.get(PAGE, {"instance": 2}).content.decode().replace("&#x27;", "'")
    assert said in page.split('id="answer-hint">')[1].split("</p>")[0]
    assert said in client.get(f"{API}/2").json()["asks"]


def test_the_answer_to_another_instance_is_wrong(client, practice):
    assert "Not right." in check(client, 9, json.dumps(engine(10))).content.decode()


def test_what_was_read_is_echoed_unrounded_so_it_never_looks_right(client, practice):
    right = [v for row in engine(1) for v in row]
    typed = [f"{right[0]:.6g}49", "1216.0000001", "2", "1e-07", "-0.25", "123456789012345678"]
    for step in ("read", "check"):
        page = check(client, 1, " ".join(typed), step=step).content.decode()
        assert page_numbers(page)[-6:] == typed  # a whole number is read whole, as typed


def test_a_wrong_shape_names_both_shapes(client, practice):
    html = check(client, 2, "1 2\n3 4").content.decode()
    assert "Not read." not in html and "Nothing was judged." not in html  # it was read
    assert (
        "Read as a matrix of 2 × 2 numbers</strong>, but the answer is a matrix of 2 × 3 "
        "numbers: nothing was judged." in html
    )


def test_one_number_per_line_for_a_matrix_is_its_rows_and_refused_as_the_wrong_shape(
    client, practice
):
    """One matrix row per line, as the page says: a column typed for p2's 1 × 2 matrix is
    2 × 1, never the row it was not (it had been judged right); on one line it is the row."""
    row = "/chapters/II.7/problems/p2/"
    column = client.post(row, {"instance": 0, "answer": "0.5\n0.5", "step": "check"})
    assert (
        "Read as a matrix of 2 × 1 numbers</strong>, but the answer is a matrix of 1 × 2 "
        "numbers: nothing was judged." in column.content.decode()
    )
    assert "Right." not in column.content.decode()
    line = client.post(row, {"instance": 0, "answer": "0.5 0.5", "step": "check"})
    assert "Right." in line.content.decode()
    six = "\n".join(repr(v) for row in engine(3) for v in row)  # p3's 2 × 3, one per line
    assert (
        "Read as a matrix of 6 × 1 numbers</strong>, but" in check(client, 3, six).content.decode()
    )


@pytest.mark.parametrize(
    "typed, message",
    [
        ("0.5 banana", "line 1: &#x27;banana&#x27; is not a number"),
        ("1 2 3\n4 5", "the rows have different lengths (row 1: 3, row 2: 2)"),
        ("[[1, 2]", "the JSON does not parse"),
        ("nan nan nan", "is not a finite number"),
        ("1_0 2 3", "&#x27;1_0&#x27; is not a number"),
        ("\u0660.\u0664\u0666 1 1", "is not a number"),
        ("1,,2", "line 1: an entry is empty"),
        ("1, 1, 1,", "line 1: an entry is empty"),
        ("[" * 5000 + "]" * 5000, "the answer nests more than"),
        ("[" + "1" * 5000 + "]", "the JSON does not parse"),
    ],
)
def test_bad_input_gets_a_clear_message(client, practice, typed, message):
    html = check(client, 1, typed).content.decode()
    assert "Not read." in html and message.lower() in html.lower()


NOT_AN_INSTANCE = ["21", "x", "-1", "1.5", "00", "01", "+0", " 0", "0 ", "\u0660", "\u0661", "１"]
"""Only plain ASCII decimal without sign, space or leading zero names an instance: one
instance, one address (Arabic-Indic ٠ and fullwidth １ are digits to Python's int)."""


@pytest.mark.parametrize("instance", NOT_AN_INSTANCE)
def test_an_instance_out_of_range_gets_a_clear_message(client, practice, instance):
    response = client.get(PAGE, {"instance": instance})
    assert response.status_code == 400
    assert "The instance is a whole number from 0 to 20." in response.content.decode()
    posted = client.post(PAGE, {"instance": instance, "answer": "1 2 3\n4 5 6", "step": "check"})
    assert posted.status_code == 400 and "Right." not in posted.content.decode()


@pytest.mark.parametrize("instance", NOT_AN_INSTANCE)
def test_the_api_refuses_an_instance_not_written_plainly(client, practice, instance):
    address = f"{API}/{quote(instance)}"
    read = client.get(address)
    assert read.status_code == 422 and "whole number from 0 to 20" in json.dumps(read.json())
    checked = client.post(f"{address}/check", {"answer": 1}, content_type="application/json")
    assert checked.status_code == 422


def test_one_number_is_read_as_one_number(client, practice):
    """Grammatical for 1: a vector of 1 number, a matrix of 1 × 1 number."""
    for typed, said in (("[0.5]", "a vector of 1 number"), ("[[0.5]]", "a matrix of 1 × 1 number")):
        page = check(client, 1, typed, step="read").content.decode()
        assert f"Read as {said}</strong>, but" in page and "1 numbers" not in page
        body = client.post(f"{API}/1/check", {"answer": json.loads(typed)}, "application/json")
        assert body.json()["read"] == said
    assert (
        "Read as a vector of 2 numbers</strong>, but"
        in check(client, 1, "[0.5, 1]", step="read").content.decode()
    )


def test_checks_are_throttled_per_client(client, practice, settings):
    settings.PRACTICE_CHECK_RATE = "2/min"
    cache.clear()
    right_shape = "1 2 3\n4 5 6"
    assert check(client, 1, right_shape).status_code == 200
    assert check(client, 1, right_shape, step="read").status_code == 200  # reading runs nothing
    assert check(client, 1, right_shape).status_code == 200
    refused = check(client, 1, right_shape)
    assert refused.status_code == 429 and "too many answers" in refused.content.decode().lower()


@pytest.fixture
def evaluations(monkeypatch):
    """Every real engine evaluation, by instance: the engine runs, and is counted."""
    counted: list[int] = []
    evaluate = attention.evaluate

    def counting(operation, inputs, ask, instance=0):
        counted.append(instance)
        return evaluate(operation, inputs, ask, instance)

    monkeypatch.setattr(attention, "evaluate", counting)
    return counted


def solution_page(client, instance: int):
    return client.get(PAGE, {"instance": instance, "solution": "1"})


def test_the_solution_asked_for_many_times_is_computed_once(client, practice, evaluations):
    pages = [solution_page(client, 5) for _ in range(5)]
    pages += [solution_page(Client(), 5) for _ in range(3)]  # other readers read it too

    assert {page.status_code for page in pages} == {200}
    assert evaluations.count(5) == 1
    answer = {number(v) for row in engine(5) for v in row}
    assert all(answer <= set(page_numbers(page.content.decode())) for page in pages)


def test_checks_of_an_instance_run_the_engine_once_for_every_reader(
    client, practice, evaluations, monkeypatch
):
    """The engine's value of an instance is made once and kept for everyone, and so is the
    value an answer is held against and where it finds float noise in it: checks right and
    wrong, from any reader, and the solution shown after them share them (a problem whose
    value costs seconds must not cost them again on each check)."""
    noise_checks = []
    settled = attention.settled
    monkeypatch.setattr(
        attention, "settled", lambda *args: noise_checks.append(args) or settled(*args)
    )
    wrong = "\n".join(" ".join(str(v + 1) for v in row) for row in engine(6))
    checks = [check(client, 6, wrong)]
    first = evaluations.count(6)  # the value, and what the page's text shows of the instance
    assert len(noise_checks) == 1
    checks += [check(client, 6, wrong) for _ in range(2)]
    checks += [check(Client(REMOTE_ADDR=f"10.0.1.{n}"), 6, wrong) for n in range(3)]
    assert {response.status_code for response in checks} == {200}
    assert all("Not right." in response.content.decode() for response in checks)
    assert solution_page(client, 6).status_code == 200
    assert evaluations.count(6) == first and len(noise_checks) == 1


def test_computing_solutions_counts_against_the_practice_throttle(
    client, practice, settings, evaluations
):
    settings.PRACTICE_CHECK_RATE = "3/min"
    cache.clear()
    assert [solution_page(client, n).status_code for n in (1, 2)] == [200, 200]
    assert check(client, 1, "1 2 3\n4 5 6").status_code == 200  # a check: the 3rd

    refused = solution_page(client, 3)

    assert refused.status_code == 429
    assert "too many solutions computed" in refused.content.decode().lower()
    assert 3 not in evaluations  # refused before the engine ran
    assert solution_page(client, 1).status_code == 200  # made already: no engine, no count
    assert solution_page(Client(REMOTE_ADDR="10.0.0.9"), 3).status_code == 200  # another client


def test_the_api_gives_an_instance_without_running_the_engine(client, practice, evaluations):
    assert client.get(f"{API}/4").status_code == 200
    assert evaluations == []


def test_the_chapter_page_links_practice_for_every_verified_problem(client, practice):
    html = client.get("/chapters/II.7/").content.decode()
    linked = set(re.findall(r'href="(/chapters/II.7/problems/[^"?]+)', html))
    assert linked == {f"/chapters/II.7/problems/{key}/" for key in ("p1", "p2", "p3")}
    assert "Practise exercise 2 on fresh numbers" in html  # p3 draws its numbers
    assert client.get("/chapters/II.7/problems/p1/")["Location"].endswith("?instance=0")
    fixed = client.get("/chapters/II.7/problems/p1/", {"instance": 1})
    assert fixed.status_code == 400 and "one instance, 0" in fixed.content.decode()
    assert client.get("/chapters/II.7/problems/nope/").status_code == 404


# ---------------------------------------------------------------- the API


def test_the_api_gives_an_instance_s_inputs_and_never_the_answer(client, practice):
    body = client.get(f"{API}/4").json()
    assert body["instance"] == 4 and body["instances"] == 20
    assert body["inputs"]["scores"] == attention.expand_inputs({"scores": SCORES}, 4)["scores"]
    assert body["solution"] is None  # until asked for; "answered" is in what the reader is asked
    assert not re.search(r"\banswer\b", json.dumps(body))
    assert client.get(f"{API}/4").json() == body
    assert client.get(f"{API}/5").json()["inputs"] != body["inputs"]


def test_the_api_checks_an_answer_right_wrong_and_badly_written(client, practice):
    def post(answer):
        return client.post(f"{API}/4/check", {"answer": answer}, content_type="application/json")

    assert post(engine(4)).json()["ok"] is True
    wrong = post(engine(5)).json()
    assert wrong["ok"] is False
    assert f"within rtol 1e-06, atol 1e-09{FLOOR}, or to the 6" in wrong["message"]
    assert post(" ".join(repr(v) for row in engine(4) for v in row)).json()["ok"] is True
    shape = post([1, 2]).json()
    assert shape["answer_shape"] == [2] and shape["expected_shape"] == [2, 3]
    bad = post("1 two")
    assert bad.status_code == 422 and "'two' is not a number" in bad.json()["errors"][0]["detail"]


def test_the_api_refuses_a_bad_instance_and_an_unknown_problem(client, practice):
    assert client.get(f"{API}/21").status_code == 422
    assert client.get(f"{API}/0").json()["inputs"] == {
        "scores": attention.expand_inputs({"scores": SCORES}, 0)["scores"]
    }
    assert client.get("/api/v1/chapters/II.7/problems/p1/instances/0").status_code == 200
    assert client.get("/api/v1/chapters/II.7/problems/p1/instances/1").status_code == 422
    assert client.get("/api/v1/chapters/II.7/problems/nope/instances/0").status_code == 404
    assert client.get("/api/v1/chapters/II.3/problems/p3/instances/1").status_code == 404


@pytest.mark.parametrize(
    "address",
    [
        "/chapters/II.99/problems/p3/?instance=1",
        "/chapters/II.99/problems/p3/",
        "/chapters/II.3%00/",
        "/books/%00/",
        "/chapters/II.7/problems/p3%00/",
    ],
)
def test_no_such_chapter_or_a_nul_in_the_address_is_a_plain_404(client, practice, address):
    assert client.get(address).status_code == 404


def test_a_drafts_problem_cannot_be_practised(client, practice):
    Chapter.objects.filter(code="II.7").update(state="draft")
    assert client.get(PAGE, {"instance": 1}).status_code == 404


def test_a_check_body_that_is_not_json_is_a_documented_400_with_errors(client, practice):
    response = client.post(f"{API}/1/check", b"\x00", content_type="application/json")
    assert response.status_code == 400 and "errors" in response.json()
    documented = client.get("/api/v1/openapi.json").json()["paths"]
    check = documented["/api/v1/chapters/{code}/problems/{key}/instances/{n}/check"]["post"]
    assert "400" in check["responses"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"answer": 1, "answer": 2}', "the key 'answer' appears twice in one object"),
        (b'{"answer": ' + b"9" * 5000 + b"}", "a number is larger than about 1.8e308"),
        (b'{"answer": ' + b"[" * 500 + b"]" * 500 + b"}", "nested more than"),
    ],
)
def test_a_check_body_no_reader_should_take_is_refused_with_its_reason(
    client, practice, body, reason
):
    """A key given twice would be graded on whichever value won: refused, as in every body."""
    response = client.post(f"{API}/1/check", body, content_type="application/json")
    assert response.status_code == 400
    assert reason in response.json()["errors"][0]["detail"]
