"""A draft through the API and the worker: the worker never checks it, and the gate names it
(committed rows, apart from test_drafts.py's module world)."""

import json

from curriculum.domain.verification import Reverify
from curriculum.models import Chapter, Solution, Verdict
from tests.conftest import verify_now
from tests.curriculum.api.test_drafts import HALF_WRITTEN, with_draft
from tests.curriculum.api.test_writes import put
from tests.curriculum.conftest import decided


def test_the_worker_never_checks_a_draft_and_the_gate_names_it(
    client, books_committed, alice_token, erin_token, worker
):
    assert put(client, "II.7", with_draft(), alice_token).status_code == 201
    solutions = Solution.objects.filter(problem__chapter__code="II.7")
    verdicts = decided(list(solutions.values_list("pk", flat=True)))
    assert sorted(verdicts) == ["p1", "p2"]
    assert {v.status for v in verdicts.values()} == {"verified"}
    again = Reverify(code="II.7").execute()  # "Verify again" sends the answered ones only
    assert sorted(again) == sorted(
        solutions.exclude(problem__key="p3").values_list("pk", flat=True)
    )
    decided(again)
    assert not Verdict.objects.filter(solution__in=solutions.filter(problem__key="p3")).exists()

    refused = client.post("/api/v1/chapters/II.7/publish", **erin_token)
    assert refused.status_code == 409
    reasons = json.dumps(refused.json())
    assert "problem p3: has no answer yet (a draft)" in reasons

    verify_now(Chapter.objects.get(code="II.7"))  # nothing to decide for the draft either
    assert not Verdict.objects.filter(solution__in=solutions.filter(problem__key="p3")).exists()
    reader = client.get("/api/v1/chapters/II.7").content.decode()
    assert HALF_WRITTEN not in reader
