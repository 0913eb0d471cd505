"""Release history: each release says what changed since the one before, as authors wrote it."""

import json
import re

import numpy as np
import pytest
from django.urls import reverse

import attention
from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.domain.releases import release_changes
from curriculum.models import Chapter
from tests.conftest import problem, sketch, verify_now


def publish(document: dict):
    chapter_import(document=document)
    chapter = Chapter.objects.get(code=document["code"])
    verify_now(chapter)
    return chapter_publish(chapter=chapter)


def test_the_first_release_shows_everything_as_added(books):
    diff = release_changes(release=publish(sketch()))
    assert diff.startswith("--- nothing released\n+++ release 1\n")
    assert "+title: A Sketch\n" in diff


def test_a_later_release_shows_only_what_the_author_changed(books):
    publish(sketch())
    second = publish(sketch(title="A Sketch, Revised", state="published"))
    diff = release_changes(release=second)
    assert "-title: A Sketch\n+title: A Sketch, Revised\n" in diff
    assert "_html" not in diff and "derived" not in diff
    assert sum(line.startswith(("+", "-")) for line in diff.splitlines()) == 4


def test_the_admin_release_page_shows_the_changes(books, client, erin):
    release = publish(sketch())
    client.force_login(erin)
    page = client.get(reverse("admin:curriculum_release_change", args=[release.pk]))
    assert page.status_code == 200
    assert "+title: A Sketch" in page.content.decode()


def overflowing_problem() -> dict:
    """Multi-head attention whose x holds 1e308: float64's own value overflows (NaN in its
    first row) where the extended run, which the answer is held against, does not."""
    rng = np.random.default_rng(1)
    x = np.round(rng.normal(size=(4, 8)), 2)
    x[0, 0] = 1e308
    weights = [np.round(rng.normal(size=(8, 8)) * 0.5, 2).tolist() for _ in range(4)]
    inputs = dict(zip(("w_q", "w_k", "w_v", "w_o"), weights, strict=True))
    inputs |= {"x": x.tolist(), "heads": 2}
    ask = {"output": "out"}
    value = attention.evaluate("multi_head_attention", inputs, ask)
    assert np.isnan(value[0]).all()  # the case this guards
    held = attention.settled("multi_head_attention", inputs, ask, value)[0]
    answer = [[float(f"{entry:.6g}") for entry in row] for row in held]
    return problem("big", "exercise") | {
        "operation": "multi_head_attention",
        "inputs": inputs,
        "ask": ask,
        "tolerance": {"digits": 6},
        "solution": {"steps": "Computed.", "answer": answer, "published": True},
    }


def test_a_publish_again_of_an_input_past_2_53_makes_no_release(books):
    """jsonb gives 1e308 back as the integer 10**308, which Python never called equal to the
    float: every publish of such a chapter had made a release."""
    document = sketch(problems=[*sketch()["problems"], overflowing_problem()])
    first = publish(document)
    again = chapter_publish(chapter=Chapter.objects.get(code="II.7"))
    assert (first.number, again.number) == (1, 1)


def test_a_reader_is_shown_the_value_their_answer_is_held_against_never_nan(books, client):
    """float64's own value overflowed to NaN in row 0 while the extended run's, which verified
    the answer, is finite: the solution showed NaN (a bare NaN in the API's JSON)."""
    big = overflowing_problem()
    publish(sketch(problems=[*sketch()["problems"], big]))
    response = client.get("/api/v1/chapters/II.7/problems/big/instances/0?solution=true")
    assert response.status_code == 200
    shown = json.loads(response.content, parse_constant=pytest.fail)["solution"]["answer"]
    assert np.allclose(shown, big["solution"]["answer"], rtol=5e-6, atol=0)
    page = client.get("/chapters/II.7/problems/big/?instance=0&solution=1").content.decode()
    assert "0.958408" in page  # row 0 as held, as the API gives it
    assert not re.search(r"\bnan\b", page, re.IGNORECASE)
