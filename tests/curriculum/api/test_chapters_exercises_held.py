"""An exercise is left to the reader: the chapter JSON an anonymous client reads (working copy
or release, fresh or from the cache) carries its statement and data but not its solution, hints
or feedback, which the practice route gives when asked; worked problems keep theirs; staff
with a token read the chapter whole."""

import json

import pytest
from django.core.cache import cache

from curriculum.bodies import PROCESS_BODIES
from tests.conftest import problem
from tests.curriculum.api.conftest import released

HELD = {
    "steps": "SECRET-EXERCISE-STEPS",
    "hint": "SECRET-EXERCISE-HINT",
    "second hint": "SECRET-SECOND-HINT",
    "feedback": "SECRET-EXERCISE-FEEDBACK",
}
SEED_HELD = {
    "p4 steps": "Masked entries get weight exactly 0",
    "p4 hint": "A masked entry takes no part",
    "p5 feedback": "This is one head",
}


def exercise() -> dict:
    shown = problem("p2")
    shown["solution"]["steps"] = HELD["steps"]
    return shown | {
        "hints": [HELD["hint"], HELD["second hint"]],
        "feedback": [{"answer": [[0.25, 0.75]], "says": HELD["feedback"]}],
    }


@pytest.fixture
def release(erin, books, settings):
    settings.PRACTICE_CHECK_RATE = "1000/min"
    cache.clear()
    PROCESS_BODIES.clear()
    worked = problem("p1", "worked")
    worked["solution"]["steps"] = "WORKED-STEPS-FOR-EVERYONE"
    released("II.9", erin, problems=[worked, exercise(), problem("p3")])


def _problems(response) -> dict:
    assert response.status_code == 200
    return {p["key"]: p for p in response.json()["problems"]}


def _assert_held(response, secrets: dict, where: str) -> None:
    text = response.content.decode()
    for kind, secret in secrets.items():
        assert secret not in text, f"the exercise's {kind} leaked at {where}"


def test_the_seed_chapter_json_holds_back_every_exercise_s_solution_hints_and_feedback(
    client, seeded
):
    response = client.get("/api/v1/chapters/II.3")
    _assert_held(response, SEED_HELD, "II.3")
    problems = _problems(response)
    for key in ("p4", "p5", "p6", "p7", "p8", "p9"):
        shown = problems[key]
        assert shown["kind"] == "exercise"
        assert not {"solution", "hints", "feedback"} & set(shown), key
        assert shown["statement"] and shown["inputs"] and shown["ask"] and shown["tolerance"]
        assert "solution" in shown["held"] and "hints" in shown["held"], key
    assert "feedback" in problems["p5"]["held"]
    assert problems["p1"]["kind"] == "worked" and problems["p1"]["solution"]["steps"]


def test_a_release_and_its_history_hold_them_back_and_worked_problems_keep_theirs(client, release):
    for url in ("/api/v1/chapters/II.9", "/api/v1/chapters/II.9/releases/1"):
        response = client.get(url)
        _assert_held(response, HELD, url)
        problems = _problems(response)
        assert problems["p2"]["held"] == ["solution", "hints", "feedback"]
        assert problems["p2"]["verification"]["status"] == "verified"  # practisable, said so
        assert problems["p1"]["solution"]["steps"] == "WORKED-STEPS-FOR-EVERYONE"
        assert "held" not in problems["p1"]


def test_a_staff_read_cached_first_never_reaches_an_anonymous_client(client, release, erin_token):
    for url in ("/api/v1/chapters/II.9", "/api/v1/chapters/II.9/releases/1"):
        whole = client.get(url, **erin_token)
        assert _problems(whole)["p2"]["solution"]["steps"] == HELD["steps"]
        assert _problems(whole)["p2"]["hints"] == [HELD["hint"], HELD["second hint"]]
        anonymous = client.get(url)
        _assert_held(anonymous, HELD, url)
        assert anonymous["ETag"] != whole["ETag"]
        assert anonymous["Cache-Control"].startswith("public")
        assert whole["Cache-Control"].startswith("private")
        # the staff body's tag names another body: an anonymous client gets its own, whole
        revalidated = client.get(url, HTTP_IF_NONE_MATCH=whole["ETag"])
        assert revalidated.status_code == 200
        _assert_held(revalidated, HELD, url)
        assert client.get(url, HTTP_IF_NONE_MATCH=anonymous["ETag"]).status_code == 304


def test_a_client_asks_for_hints_and_the_solution_explicitly(client, release):
    route = "/api/v1/chapters/II.9/problems/p2/instances/0"
    plain = client.get(route).json()
    assert plain["hints_total"] == 2 and plain["hints_html"] == [] and plain["solution"] is None
    _assert_held(client.get(route), HELD, route)
    one = client.get(route, {"hints": 1}).json()
    assert len(one["hints_html"]) == 1 and HELD["hint"] in one["hints_html"][0]
    assert HELD["second hint"] not in json.dumps(one)
    every = client.get(route, {"hints": 99}).json()  # past the last: every hint, no error
    assert len(every["hints_html"]) == 2
    solved = client.get(route, {"solution": "true"}).json()["solution"]
    assert solved["steps"] == HELD["steps"] and HELD["steps"] in solved["steps_html"]
    assert solved["answer"] == [[0.5, 0.5]]  # the engine's value for this instance
    assert HELD["feedback"] not in json.dumps(solved)
    assert client.get(route, {"hints": -1}).status_code == 422


def test_the_schema_documents_how_to_ask_for_an_exercise_s_solution(client, db):
    schema = client.get("/api/v1/openapi.json").json()
    route = schema["paths"]["/api/v1/chapters/{code}/problems/{key}/instances/{n}"]["get"]
    asked = {p["name"]: p for p in route["parameters"]}
    assert "solution" in asked and "hints" in asked
    assert "solution" in asked["solution"]["description"].lower()
    chapter = schema["paths"]["/api/v1/chapters/{code}"]["get"]["description"]
    assert "held" in chapter and "/instances/" in chapter
    problem_out = schema["components"]["schemas"]["ProblemOut"]["properties"]
    assert "held" in problem_out
