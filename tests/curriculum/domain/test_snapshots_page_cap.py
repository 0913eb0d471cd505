"""Every part of a chapter page counts against LIMIT_CHAPTER_HTML_BYTES: its texts and figures,
its answer tables, and the markup around each part it lists. A file whose page would be over
is refused; a chapter stored before is shown with its largest parts left out; either way the
page stays within the cap and its frame."""

import json

import pytest
from django.test import Client

import attention
from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.domain.verification import jsonable
from curriculum.models import Chapter, Release, Solution
from tests.conftest import problem, sketch, verify_now

CAP = 100_000
FRAME = 60_000  # what the page around the chapter's own parts may add (README, Limits)
LEFT_OUT = b"Left out: this chapter renders to more than 100000 bytes"


@pytest.fixture(autouse=True)
def small_cap(settings):
    settings.LIMIT_CHAPTER_HTML_BYTES = CAP
    settings.LIMIT_CHAPTER_PARTS = 10_000  # the page's cap, not the count of parts, refuses here
    settings.API_ANON_RATE = "100000/min"


def with_answer(answer) -> dict:
    document = sketch("II.7")
    document["problems"][1]["solution"]["answer"] = answer
    document["problems"][1]["tolerance"] = {"digits": 6}  # zeros take no atol
    return document


def test_a_json_chapter_whose_answer_tables_would_pass_the_cap_is_refused(books, alice_token):
    body = json.dumps(with_answer([[0] * 100] * 100))  # 10,000 zeros: 31 KB of JSON
    assert len(body) < 40_000
    put = Client().put(
        "/api/v1/chapters/II.7", body, content_type="application/json", **alice_token
    )
    assert put.status_code == 422
    [error] = put.json()["errors"]
    assert error["pointer"] == "" and error["detail"].startswith("renders to ")
    assert error["code"] == "limit" and "(LIMIT_CHAPTER_HTML_BYTES)" in error["detail"]
    assert not Chapter.objects.filter(code="II.7").exists()


def page_and_body(code: str) -> tuple[bytes, bytes]:
    client = Client()
    page, body = client.get(f"/chapters/{code}/"), client.get(f"/api/v1/chapters/{code}")
    assert page.status_code == body.status_code == 200
    return page.content, body.content


def test_answer_tables_stored_before_the_cap_are_left_out_of_the_page_with_a_note(books):
    chapter_import(document=sketch("II.7"))
    big = [[0.0] * 300] * 300  # 90,000 numbers: about a megabyte of table
    # the worked problem's: an exercise's answer is on its practice page, not the chapter's
    Solution.objects.filter(problem__chapter__code="II.7", problem__key="p1").update(answer=big)
    Chapter.objects.get(code="II.7").save()  # a new version: the page is made again
    page, body = page_and_body("II.7")
    assert LEFT_OUT in page and len(page) < CAP + FRAME
    source = len(json.dumps(big))
    assert len(body) < 2 * CAP + source
    assert json.loads(body)["problems"][0]["solution"]["answer"] == big  # the data stays whole


def test_a_release_made_before_answers_were_rendered_is_shown_under_the_cap(books, erin):
    chapter_import(document=sketch("II.7"))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    release = chapter_publish(chapter=chapter, user=erin)
    old = release.snapshot | {"format": 1}  # as releases were stored: no answer tables
    for shown in old["problems"]:
        shown["solution"].pop("answer_html")
    old["problems"][0]["solution"]["answer"] = [[0.5] * 300] * 300  # the worked problem's
    Release.objects.filter(pk=release.pk).update(snapshot=old)
    page, body = page_and_body("II.7")
    assert LEFT_OUT in page and len(page) < CAP + FRAME
    shown = json.loads(body)["problems"]
    assert shown[0]["solution"]["answer_html"].startswith('<p class="too-large">')
    assert "solution" not in shown[1] and "solution" in shown[1]["held"]  # an exercise's
    staff = Client()
    staff.force_login(erin)
    whole = staff.get("/api/v1/chapters/II.7").json()["problems"]
    assert whole[1]["solution"]["answer_html"].startswith('<div class="answer">')


def practisable_problem(i: int) -> dict:
    """A generated softmax, verified, so its page shows all it can: verdict and practice link."""
    inputs = {"scores": {"generate": "normal", "shape": [1, 2], "seed": i}}
    answer = jsonable(attention.evaluate("softmax", inputs, {"output": "out"}))
    made = problem(f"p{i}-{'k' * 40}", variant="v" * 80, answer=answer)
    return made | {"inputs": inputs}


def most_accepted(make, high: int) -> int:
    low = 1
    while low < high:
        middle = (low + high + 1) // 2
        try:
            chapter_import(document=make(middle), dry_run=True)
            low = middle
        except ChapterFileError as error:
            assert "LIMIT_CHAPTER_HTML_BYTES" in error.errors[0], error.errors
            high = middle - 1
    return low


def many_problems(n: int) -> dict:
    return sketch(
        "II.7",
        maturity="M0",
        problems=[practisable_problem(i) for i in range(n)],
        strands=sketch()["strands"] | {"mathematics": {"target": 0}},
    )


def many_items(n: int) -> dict:
    items = [{"title": f"Item {i}", "body": "b", "published": True} for i in range(n)]
    document = sketch("II.7")
    document["strands"]["basics"] = {"target": 1, "items": items}
    return document


@pytest.mark.parametrize(
    ("make", "high"), [(many_problems, 400), (many_items, 6000)], ids=["problems", "strand items"]
)
def test_a_page_of_as_many_small_parts_as_the_cap_accepts_stays_within_it(books, make, high):
    n = most_accepted(make, high)
    assert n > 10
    chapter_import(document=make(n))
    verify_now(Chapter.objects.get(code="II.7"))
    page, _ = page_and_body("II.7")
    assert LEFT_OUT not in page  # accepted, so shown whole
    assert len(page) < CAP + FRAME
    assert page.count(b"Practise") == (n if make is many_problems else 3)  # the sketch's three
