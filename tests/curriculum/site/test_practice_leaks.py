"""A check leaks nothing: what it says holds no number of the engine's value, and an answer
that cannot be judged is refused before the engine runs."""

import html
import json
import re

import pytest

from curriculum.domain.placeholders import SHOWN_DIGITS
from tests.curriculum.site.test_practice import API, PAGE, check, engine

TOLERANCE_AND_SHAPES = {1e-6, 1e-9, 2.0, 3.0, float(SHOWN_DIGITS)}
"""The only numbers a check may say: the problem's tolerance and shapes, and the figures a page
prints (an answer to them is right too), never the engine's."""


def numbers_in(text: str) -> set[float]:
    return {float(n) for n in re.findall(r"[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?", text)}


def result_of(page: str) -> str:
    """What the check says: the result without the reader's own numbers read back."""
    said = page.split('id="result"')[1].split("<form")[0]
    return html.unescape(re.sub(r'<div class="answer">.*?</div>', "", said, flags=re.DOTALL))


ZEROS = "\n".join(["-0.0 -0.0 -0.0"] * 2)


def test_a_check_says_nothing_of_the_engine_s_value(client, practice):
    """-0.0 everywhere once came back with the largest difference: the engine's largest |v|."""
    for answer in (ZEROS, json.dumps(engine(3)), json.dumps(engine(4))):
        page = check(client, 3, answer).content.decode()
        assert numbers_in(result_of(page)) <= TOLERANCE_AND_SHAPES, result_of(page)
        assert "largest difference" not in page and "differs" not in page.lower()


def test_the_api_s_check_says_nothing_of_the_engine_s_value(client, practice):
    for answer in (ZEROS, engine(4), engine(5), [[v + 1e-3 for v in row] for row in engine(4)]):
        body = client.post(
            f"{API}/4/check", {"answer": answer}, content_type="application/json"
        ).json()
        assert set(body) == {
            "ok",
            "judged",
            "read",
            "message",
            "mistake",
            "answer_shape",
            "expected_shape",
        }
        assert numbers_in(body["message"] + body["read"]) <= TOLERANCE_AND_SHAPES, body


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("0.5 banana", "line 1: &#x27;banana&#x27; is not a number"),
        ("1 2\n3 4", "but the answer is a matrix of 2 × 3 numbers: nothing was judged."),
        ("1 2 3 4 5", "a vector of 5 numbers</strong>, but the answer is a matrix of 2 × 3"),
        (
            '[[0.5, "a", 1], [1, 1, 1]]',
            "must be a number or a list of numbers, found &#x27;a&#x27;",
        ),
        ("[[1, 2, 3], [4, 5]]", "ragged"),
    ],
)
def test_a_malformed_answer_is_refused_with_what_was_read_and_the_engine_never_runs(
    client, practice, engine_runs, typed, read
):
    client.get(PAGE, {"instance": 2})  # the page itself, rendered before the count starts
    engine_runs.clear()
    response = check(client, 2, typed)
    assert response.status_code == 200 and engine_runs == []
    page = response.content.decode()
    assert read.lower() in page.lower() and "nothing was judged" in page.lower()


def test_an_answer_of_the_right_shape_costs_one_engine_run(client, practice, engine_runs):
    flat = " ".join(repr(v) for row in engine(2) for v in row)  # read in the asked shape
    client.get(PAGE, {"instance": 2})
    engine_runs.clear()
    page = check(client, 2, flat).content.decode()
    assert len(engine_runs) == 1
    assert "Right." in page and "Read as a matrix of 2 × 3 numbers" in page


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ([1, 2], 200),
        ([[1, "a", 2], [1, 2, 3]], 422),
        ({"out": [1, 2]}, 200),
        (True, 422),
    ],
)
def test_the_api_refuses_a_malformed_answer_without_running_the_engine(
    client, practice, engine_runs, answer, status
):
    response = client.post(f"{API}/1/check", {"answer": answer}, content_type="application/json")
    assert response.status_code == status and engine_runs == []
    if status == 200:
        body = response.json()
        assert body["ok"] is False and body["judged"] is False
        assert body["expected_shape"] == [2, 3]
