"""Every exercise of the seed can be practised, as a reader would: the page holds no answer
until it is asked for, hints come one at a time, an answer is read before it is judged, and a
wrong answer made by a common mistake is told which mistake made it."""

import html
import json
import re

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session

import attention
from curriculum.domain.answer_tables import number
from curriculum.domain.attempts import problem_statistics
from curriculum.domain.judging import reader_right, tolerance_of
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Attempt, Chapter, PracticeTally
from tests.conftest import rows_for_the_module, verify_now

SEED = ("II.3", "II.4", "0.MC.07", "0.LA.01")


@pytest.fixture(scope="module")
def verified_seed_world(seed_world, django_db_blocker):
    """The seed world with its answers verified, written once for the module."""
    with rows_for_the_module(django_db_blocker):
        for chapter in Chapter.objects.filter(code__in=SEED):
            verify_now(chapter)
        yield


@pytest.fixture
def practised(verified_seed_world, module_rows, settings):
    settings.PRACTICE_CHECK_RATE = "10000/min"


def seed_problems() -> list[tuple[str, dict]]:
    return [
        (code, p)
        for code in SEED
        for p in chapter_for_reader(code=code).snapshot["problems"]
        if "solution" in p
    ]


def page(client, code: str, key: str, **query) -> str:
    response = client.get(f"/chapters/{code}/problems/{key}/", {"instance": 0, **query})
    assert response.status_code == 200, (code, key, response.status_code)
    return response.content.decode()


def post(client, code: str, key: str, answer, step: str = "check", **extra) -> str:
    typed = answer if isinstance(answer, str) else json.dumps(answer)
    data = {"instance": 0, "answer": typed, "step": step, **extra}
    response = client.post(f"/chapters/{code}/problems/{key}/", data)
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def answer_numbers(answer) -> set[str]:
    """The answer's entries that are not whole, as a page prints them."""
    stack, shown = list(answer.values()) if isinstance(answer, dict) else [answer], set()
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif not float(item).is_integer():  # whole numbers are on every page anyway
            shown.add(number(item))
    return shown


def cells(text: str) -> set[str]:
    return set(re.findall(r"<td>([^<]+)</td>", text)) | set(
        re.findall(r'class="answer-scalar">([^<]+)<', text)
    )


def test_every_seed_exercise_can_be_practised_and_holds_no_answer_until_asked(client, practised):
    problems = seed_problems()
    assert len([p for _, p in problems if p["kind"] == "exercise"]) >= 6
    for code, p in problems:
        shown = page(client, code, p["key"])
        answer = answer_numbers(p["solution"]["answer"])
        assert not answer & cells(shown.split('id="inputs"')[1]), (code, p["key"])
        # the steps as the practice page shows them: links to the chapter's parts go there
        steps = p["solution"]["steps_html"].replace('href="#', f'href="/chapters/{code}/#')
        assert steps[:80] not in shown
        solved = page(client, code, p["key"], solution="1")
        assert steps[:80] in solved


def test_the_chapter_page_keeps_an_exercise_s_solution_for_the_practice_page(client, practised):
    text = client.get("/chapters/II.3/").content.decode()
    exercise = chapter_for_reader(code="II.3").snapshot["problems"][3]
    assert exercise["kind"] == "exercise"
    assert exercise["solution"]["steps_html"][:60] not in text
    assert f"/chapters/II.3/problems/{exercise['key']}/?instance=0&amp;solution=1" in text


def test_hints_come_one_at_a_time_and_stay_through_a_check(client, practised):
    first = "takes no part in its row"
    second = "the softmax of"
    shown = page(client, "II.3", "p4")
    assert first not in shown and "Show a hint" in shown
    one = page(client, "II.3", "p4", hints=1)
    assert first in one and second not in one and "Show the next hint" in one
    two = page(client, "II.3", "p4", hints=2)
    assert first in two and second in two and "That is every hint." in two
    assert page(client, "II.3", "p4", hints=99).count('id="hint-') == 2
    checked = post(client, "II.3", "p4", [[1, 0, 0], [1, 0, 0]], hints=1)
    assert first in checked and second not in checked


def test_an_answer_is_read_first_and_only_a_well_formed_one_is_judged(client, practised):
    read = post(client, "II.3", "p4", "0.2 0.7 0\n0.5 0 0.5", step="read")
    assert "Read as a matrix of 2 × 3 numbers" in read and "Not judged yet" in read
    assert "Right." not in read and "Not right." not in read
    assert not PracticeTally.objects.exists()  # reading is not an attempt
    wrong_shape = post(client, "II.3", "p4", "0.2 0.7")
    assert "but the answer is a matrix of 2 × 3 numbers: nothing was judged" in wrong_shape
    assert not PracticeTally.objects.exists()
    judged = post(client, "II.3", "p4", "0.2 0.7 0\n0.5 0 0.5")
    assert "Read as a matrix of 2 × 3 numbers" in judged and "Not right." in judged


def offered(code: str, p: dict) -> list[tuple[str, str, list]]:
    """(name, says, value) of each misconception the engine knows for p at instance 0 that a
    reader's answer is told from the right answer by."""
    right = attention.evaluate(p["operation"], p["inputs"], p["ask"])
    found = []
    for m, value in attention.misconception_values(p["operation"], p["inputs"], p["ask"]):
        listed = value if isinstance(value, dict) else value.tolist()
        if not reader_right(right, listed, tolerance_of(p)):
            found.append((m.name, m.says, listed))
    return found


def test_an_answer_made_by_each_misconception_is_told_that_misconception(client, practised):
    tried = 0
    for code, p in seed_problems():
        right = p["solution"]["answer"]
        assert "What went wrong" not in post(client, code, p["key"], right)
        for name, _says, value in offered(code, p):
            shown = html.unescape(post(client, code, p["key"], value))
            assert "Not right." in shown, (code, p["key"], name)
            assert "What went wrong" in shown, (code, p["key"], name)
            said = shown.split("What went wrong")[1].split("</div>")[0]
            tried += 1
            if any(_close(f["answer"], value, p) for f in p.get("feedback", [])):
                continue  # the author's feedback on this very answer is said first
            # another misconception giving the same numbers may be named first; one of them is
            assert any(m.says in said for m in _same_value(p, value)), (code, p["key"], name)
    assert tried >= 10


def _close(given, value, p: dict) -> bool:
    return reader_right(given, value, tolerance_of(p))


def _same_value(p: dict, value) -> list:
    found = attention.misconception_values(p["operation"], p["inputs"], p["ask"])
    return [m for m, other in found if _close(other, value, p)]


def test_an_author_s_feedback_names_a_specific_wrong_answer(client, practised):
    counted = html.unescape(post(client, "II.3", "p5", 1280))
    assert "Not right." in counted and "finding the maximum takes" in counted
    right = post(client, "II.3", "p5", 1216)
    assert "Right." in right and "What went wrong" not in right
    plain = post(client, "II.3", "p5", 1000)
    assert "Not right." in plain and "What went wrong" not in plain


def test_an_anonymous_reader_leaves_only_counts_a_signed_in_one_keeps_attempts(client, practised):
    post(client, "II.3", "p5", 1216)
    post(client, "II.3", "p5", 1280)
    assert not Attempt.objects.exists() and not Session.objects.exists()
    stats = problem_statistics(code="II.3", key="p5")
    assert (stats.attempts, stats.right) == (2, 1) and stats.mistakes == [("feedback-1", 1)]

    reader = User.objects.create_user("rhea", password="rhea-pass-9")
    client.force_login(reader)
    post(client, "II.3", "p5", 1216)
    kept = Attempt.objects.get(reader=reader)
    assert (kept.chapter_code, kept.problem_key, kept.instance, kept.right) == (
        "II.3",
        "p5",
        0,
        True,
    )
    assert kept.answer == "1216"
    assert problem_statistics(code="II.3", key="p5").attempts == 3


def printed_solution(client, code: str, key: str) -> str:
    """The engine's value as `?solution=1` prints it, typed back as a reader types it: a row per
    line, or named values as JSON."""
    shown = page(client, code, key, solution="1").split('id="solution"')[1].split("</table>")[0]
    shown = shown.split("</div>")[0] if "<table" not in shown else shown
    if "answer-named" in shown:
        names = re.findall(r'<th scope="row">([^<]+)</th>', shown)
        values = re.findall(r"<td>([^<]+)</td>", shown)
        return json.dumps(dict(zip(names, map(float, values), strict=True)))
    rows = re.findall(r"<tr>(.*?)</tr>", shown, flags=re.DOTALL)
    if not rows:
        return re.findall(r'class="answer-scalar">([^<]+)<', shown)[0]
    return "\n".join(" ".join(re.findall(r"<td>([^<]+)</td>", row)) for row in rows)


def test_the_solution_as_the_page_prints_it_is_right_on_the_page_and_in_the_api(client, practised):
    """II.3 p4 printed 0.268941 0.731059 0 and called it "Not right" at rtol 1e-6."""
    for code, p in seed_problems():
        typed = printed_solution(client, code, p["key"])
        judged = post(client, code, p["key"], typed)
        assert "Right." in judged and "Not right." not in judged, (code, p["key"], typed)
        checked = client.post(
            f"/api/v1/chapters/{code}/problems/{p['key']}/instances/0/check",
            {"answer": typed},
            content_type="application/json",
        ).json()
        assert checked["ok"] and checked["mistake"] is None, (code, p["key"], typed, checked)


def test_six_figures_are_asked_for_and_enough_and_five_are_not(client, practised):
    asked = html.unescape(page(client, "II.3", "p4"))
    assert "Give 6 significant figures (as many as the page prints)" in asked
    assert "Right." in post(client, "II.3", "p4", "0.268941 0.731059 0\n0.5 0 0.5")
    fewer = post(client, "II.3", "p4", "0.26894 0.73106 0\n0.5 0 0.5")
    assert "Not right." in fewer and "What went wrong" not in fewer


def test_a_count_is_said_to_be_checked_exactly_and_is(client, practised):
    asked = html.unescape(page(client, "II.3", "p5"))
    hint = asked.split('id="answer-hint">')[1].split("</p>")[0]
    assert "give it exactly" in hint and "rtol" not in hint
    assert "Not right." in post(client, "II.3", "p5", 1216.004)
    wrong = html.unescape(post(client, "II.3", "p5", 1000))
    assert (
        "Not the engine's value exactly (a count)" in wrong
        and "rtol" not in wrong.split('id="result"')[1].split("<form")[0]
    )
    words = {
        p["key"]: p["verification"]["checked_as"]
        for p in chapter_for_reader(code="II.3").snapshot["problems"]
        if p.get("verification")
    }
    assert words["p5"] == words["p6"] == "exactly (a count)"
    assert (
        words["p4"] == "within rtol 1e-06, atol 1e-09 but never looser than 3 significant figures"
    )
    served = client.get("/api/v1/chapters/II.3").json()["problems"]
    assert {p["key"]: p["verification"]["checked_as"] for p in served if p["verification"]} == words
