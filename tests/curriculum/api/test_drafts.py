"""A problem with steps and no answer, through the API and in chapter files: saved as a draft,
exported as written, never verified by the worker, never shown to readers, and it keeps the
chapter from being published."""

import yaml

from curriculum.domain.drafts import DRAFT_UNPUBLISHED
from curriculum.models import Chapter, Solution, Verdict
from tests.conftest import sketch
from tests.curriculum.api.test_writes import put

YAML = "application/yaml"
HALF_WRITTEN = "SECRET-HALF-WRITTEN-STEPS"


def with_draft(**solution) -> dict:
    """The sketch with p3's solution steps only (no answer yet)."""
    document = sketch()
    document["problems"][2]["solution"] = {"steps": HALF_WRITTEN, "published": False} | solution
    return document


def test_a_problem_without_an_answer_is_saved_and_exported_as_written(client, books, alice_token):
    created = put(client, "II.7", with_draft(), alice_token)
    assert created.status_code == 201, created.json()
    assert created.json()["verifications_enqueued"] == 2  # p1 and p2; the draft is not checked
    draft = Solution.objects.get(problem__chapter__code="II.7", problem__key="p3")
    assert (draft.steps, draft.answer) == (HALF_WRITTEN, None)
    assert not Verdict.objects.filter(solution=draft).exists()

    exported = client.get("/api/v1/chapters/II.7/source", HTTP_ACCEPT=YAML, **alice_token)
    assert yaml.safe_load(exported.content)["problems"][2]["solution"] == {
        "steps": HALF_WRITTEN,
        "published": False,
    }
    again = client.put("/api/v1/chapters/II.7", exported.content, content_type=YAML, **alice_token)
    assert again.status_code == 200, again.json()
    same = client.get("/api/v1/chapters/II.7/source", HTTP_ACCEPT=YAML, **alice_token)
    assert same.content == exported.content


def test_a_published_solution_without_an_answer_is_refused_with_its_path(
    client, books, alice_token
):
    response = put(client, "II.7", with_draft(published=True), alice_token)
    assert response.status_code == 422
    errors = {e["pointer"]: e["detail"] for e in response.json()["errors"]}
    assert DRAFT_UNPUBLISHED in errors["/problems/2/solution/published"]
    assert not Chapter.objects.filter(code="II.7").exists()
