"""The real worker decides claims and properties from what a committed write asked for, and the
sweep resends what a lost task left pending."""

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.claims.requests import claims_sweep
from curriculum.domain.gate import ChapterPublish
from curriculum.models import Chapter, ClaimVerdict
from tests.conftest import sketch
from tests.processes import wait_for


def document(body: str) -> dict:
    chapter = sketch()
    chapter["strands"]["basics"]["items"].append(
        {"title": "Checked", "body": body, "published": True}
    )
    chapter["propositions"] = [
        {
            "number": 1,
            "title": "Shift.",
            "statement": "Softmax ignores a shift.",
            "check": {
                "inputs": {
                    "s": {"generate": "normal", "shape": [4], "seed": 3},
                    "c": {"generate": "normal", "shape": [], "seed": 4},
                },
                "holds": "softmax(scores=s + c).out == softmax(scores=s).out",
                "instances": 10,
                "tolerance": {"rtol": 1e-12, "atol": 1e-15},
            },
        }
    ]
    return chapter


def decided() -> dict[str, ClaimVerdict]:
    wait_for(
        lambda: (
            ClaimVerdict.objects.exists()
            and not ClaimVerdict.objects.filter(status=ClaimVerdict.Status.PENDING).exists()
        ),
        timeout=30,
        what="the worker's claim verdicts",
    )
    return {row.kind + ":" + row.status: row for row in ClaimVerdict.objects.all()}


def test_a_committed_import_has_its_claims_decided_by_the_worker(worker, books_committed):
    chapter_import(
        document=document(
            "Right {{ 0.731059 = softmax(scores=[1, 0]).out[0] }}, "
            "wrong {{ 0.7312 = softmax(scores=[1, 0]).out[0] }}."
        )
    )
    rows = decided()
    assert set(rows) == {"claim:verified", "claim:mismatch", "property:verified"}
    assert rows["claim:verified"].engine_value == 0.7310585786300049
    assert "0.7312 typed" in rows["claim:mismatch"].message
    chapter = Chapter.objects.get(code="II.7")
    assert any("claim 0.7312" in reason for reason in ChapterPublish(chapter=chapter).check())


def test_the_sweep_resends_a_claim_whose_task_was_lost(worker, books_committed):
    from datetime import timedelta

    from django.utils import timezone

    ClaimVerdict.objects.create(
        fingerprint="f" * 64,
        kind="claim",
        spec={
            "typed": "2",
            "numbers": [2.0],
            "figures": [1],
            "expression": "1 + 1",
            "tolerance": {},
        },
        requested_at=timezone.now() - timedelta(minutes=10),
    )
    assert claims_sweep(older_than=timedelta(minutes=1)) == 1
    assert decided() and ClaimVerdict.objects.get(fingerprint="f" * 64).status == "verified"
