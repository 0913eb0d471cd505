"""Admin, as Erin the editor sees it: verdict badges, the verdict filter, "Verify again"."""

import re

import pytest
from django.urls import reverse

from curriculum.domain.verification import verdict_request
from curriculum.models import Chapter, Problem, Solution, Verdict
from tests.conftest import verify_now
from tests.curriculum.conftest import import_chapter, uniform_problem

RIGHT = [[2, 3], [2, 3]]


def changelist() -> str:
    return reverse("admin:curriculum_problem_changelist")


@pytest.fixture
def as_erin(client, erin):
    client.force_login(erin)
    return client


def judged() -> dict[str, int]:
    """II.9 with one verified, one mismatched and one error verdict; problem ids by key."""
    import_chapter(
        [
            uniform_problem("right-one", RIGHT),
            uniform_problem("wrong-one", [[2, 3], [2, 3.5]]),
            uniform_problem("broken-one", RIGHT),
        ]
    )
    # written past validation, as a bad migration or a direct SQL edit could
    Problem.objects.filter(key="broken-one").update(
        inputs={"q": "a matrix", "k": [[1, 0], [0, 1]], "v": [[1, 2], [3, 4]]}
    )
    verdict_request(
        solution=Solution.objects.select_related("problem").get(problem__key="broken-one")
    )
    verify_now(Chapter.objects.get(code="II.9"))
    return dict(Problem.objects.filter(chapter__code="II.9").values_list("key", "pk"))


def rows(page) -> dict[str, str]:
    """The changelist's table rows by problem key (text with tags removed)."""
    found = {}
    for html in page.content.decode().split("<tr")[1:]:
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
        for key in ("right-one", "wrong-one", "broken-one"):
            if f"II.9 {key}" in text:
                found[key] = text
    return found


@pytest.mark.django_db
def test_the_changelist_shows_each_verdict_with_its_errors(as_erin, books):
    judged()

    found = rows(as_erin.get(changelist()))

    assert "verified" in found["right-one"] and "max abs 0" in found["right-one"]
    assert "mismatch" in found["wrong-one"] and "max abs 0.5" in found["wrong-one"]
    assert "error" in found["broken-one"]
    assert "inputs.q: must contain only numbers, found str" in found["broken-one"]


@pytest.mark.django_db
def test_the_verdict_filter_lists_only_problems_with_that_verdict(as_erin, books):
    judged()

    assert set(rows(as_erin.get(changelist(), {"verdict": "mismatch"}))) == {"wrong-one"}
    assert set(rows(as_erin.get(changelist(), {"verdict": "verified"}))) == {"right-one"}
    assert set(rows(as_erin.get(changelist(), {"verdict": "error"}))) == {"broken-one"}


@pytest.mark.django_db
def test_the_change_page_of_a_mismatch_shows_the_engines_value(as_erin, books):
    ids = judged()

    page = as_erin.get(reverse("admin:curriculum_problem_change", args=[ids["wrong-one"]]))

    text = page.content.decode()
    assert page.status_code == 200
    assert "mismatch" in text
    assert "engine value: <code>[[2.0, 3.0], [2.0, 3.0]]</code>" in text


def verify_again(client, ids: list[int]):
    return client.post(
        changelist(), {"action": "verify_again", "_selected_action": ids}, follow=True
    )


@pytest.mark.django_db
def test_verify_again_marks_the_selected_verdicts_pending(as_erin, books):
    ids = judged()

    page = verify_again(as_erin, [ids["right-one"], ids["wrong-one"]])

    assert "2 solutions sent to the verifier." in page.content.decode()
    statuses = dict(
        Verdict.objects.filter(solution__problem__chapter__code="II.9").values_list(
            "solution__problem__key", "status"
        )
    )
    assert statuses == {"right-one": "pending", "wrong-one": "pending", "broken-one": "error"}


@pytest.mark.django_db
@pytest.mark.parametrize("forged", ["abc", "1e3", "-1", "١"])
def test_a_forged_selection_is_refused_not_a_500(as_erin, books, forged):
    ids = judged()
    page = verify_again(as_erin, [ids["right-one"], forged])
    assert page.status_code == 200
    assert "Choose the rows from the list." in page.content.decode()
    assert Verdict.objects.get(solution__problem_id=ids["right-one"]).status == "verified"
