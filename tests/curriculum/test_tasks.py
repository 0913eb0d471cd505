"""The real worker over the real broker decides what saving asked for."""

import io
import os
import shutil
import subprocess

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

import attention
from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.verification import fingerprint, verdict_request
from curriculum.models import Chapter, PrintedPdf, Problem, PublishSchedule, Release, Solution
from curriculum.tasks import publish_due_chapters
from tests.conftest import sketch
from tests.curriculum.conftest import decided, import_chapter, release_ii3, uniform_problem
from tests.processes import wait_for

pytestmark = pytest.mark.worker

RIGHT = [[2, 3], [2, 3]]


def test_the_worker_verifies_a_right_answer_and_rejects_wrong_ones_by_any_margin(
    worker, books_committed
):
    ids = import_chapter(
        [
            uniform_problem("right", RIGHT),
            uniform_problem("close", [[2, 3], [2, 3.001]]),
            uniform_problem("far", [[20, 3], [2, 3]]),
        ]
    )
    verdicts = decided(ids)

    assert {key: v.status for key, v in verdicts.items()} == {
        "right": "verified",
        "close": "mismatch",
        "far": "mismatch",
    }
    assert verdicts["right"].max_abs_error == 0
    assert verdicts["close"].max_abs_error == pytest.approx(0.001)
    assert verdicts["far"].max_abs_error == pytest.approx(18)
    assert verdicts["far"].max_rel_error == pytest.approx(0.9)
    for verdict in verdicts.values():
        solution = verdict.solution
        assert verdict.engine_value == RIGHT
        assert verdict.engine_version == attention.ENGINE_VERSION
        assert verdict.duration_ms > 0
        assert verdict.fingerprint == fingerprint(solution.problem, solution)


BAD_INPUTS = {
    "text": {"q": "a matrix", "k": [[1, 0], [0, 1]], "v": [[1, 2], [3, 4]]},
    "shape": {"q": [[0, 0, 0], [0, 0, 0]], "k": [[1, 0], [0, 1]], "v": [[1, 2], [3, 4]]},
    "too-long": {"q": [[0]] * (attention.MAX_SEQ_LEN + 1), "k": [[1]], "v": [[1]]},
}


def test_bad_input_written_past_validation_gets_an_error_verdict(worker, books_committed):
    ids = import_chapter([uniform_problem(key, RIGHT) for key in [*BAD_INPUTS, "answer"]])
    decided(ids)
    for key, inputs in BAD_INPUTS.items():
        Problem.objects.filter(key=key).update(inputs=inputs)
    Solution.objects.filter(problem__key="answer").update(answer="forty-two")
    for solution in Solution.objects.filter(pk__in=ids).select_related("problem"):
        verdict_request(solution=solution)

    verdicts = decided(ids)

    assert {v.status for v in verdicts.values()} == {"error"}
    assert "inputs.q" in verdicts["text"].message
    assert "inputs.k: expected 2x3 matrix, got 2x2" in verdicts["shape"].message
    assert str(attention.MAX_SEQ_LEN) in verdicts["too-long"].message
    assert "answer" in verdicts["answer"].message
    assert all(v.engine_version == attention.ENGINE_VERSION for v in verdicts.values())


def test_heads_that_do_not_divide_the_width_get_an_error_verdict(worker, books_committed):
    eye = [[float(i == j) for j in range(4)] for i in range(4)]
    [sid] = import_chapter(
        [
            uniform_problem(
                "mha",
                [[0] * 4] * 2,
                operation="multi_head_attention",
                ask={"output": "out"},
                inputs={
                    "x": [[1, 0, 1, 0], [0, 1, 0, 1]],
                    "w_q": eye,
                    "w_k": eye,
                    "w_v": eye,
                    "w_o": eye,
                    "heads": 2,
                },
            )
        ]
    )
    Problem.objects.filter(key="mha").update(
        inputs=Problem.objects.get(key="mha").inputs | {"heads": 3}
    )
    verdict_request(solution=Solution.objects.select_related("problem").get(pk=sid))

    verdict = decided([sid])["mha"]

    assert verdict.status == "error"
    assert "heads" in verdict.message


def test_verify_chapter_waits_and_prints_one_row_per_problem(worker, books_committed):
    import_chapter([uniform_problem("p1", RIGHT), uniform_problem("p2", [[2, 3], [2, 3.5]])])
    out = io.StringIO()

    with pytest.raises(CommandError, match="1 of 2 not verified: p2"):
        call_command("verify_chapter", "II.9", "--wait", "30", stdout=out)

    rows = out.getvalue().splitlines()[1:]
    assert rows[0].split()[:2] == ["p1", "verified"]
    assert "engine value" not in rows[0]
    assert rows[1].split()[:2] == ["p2", "mismatch"]
    assert "max abs error 0.5" in rows[1]
    assert "engine value [[2.0, 3.0], [2.0, 3.0]]" in rows[1]


def test_verify_chapter_succeeds_when_every_answer_is_right(worker, books_committed):
    import_chapter([uniform_problem("p1", RIGHT), uniform_problem("p2", RIGHT)])
    out = io.StringIO()
    call_command("verify_chapter", "II.9", "--wait", stdout=out)
    assert [row.split()[1] for row in out.getvalue().splitlines()[1:]] == ["verified"] * 2


def test_verify_chapter_refuses_an_unknown_code(worker):
    with pytest.raises(CommandError, match="no chapter II.99"):
        call_command("verify_chapter", "II.99", "--wait", "1")


def test_verify_all_asks_again_for_every_solution(worker, books_committed):
    ids = import_chapter([uniform_problem("a1", RIGHT)]) + import_chapter(
        [uniform_problem("b1", [[2, 3], [2, 4]])], code="II.8"
    )
    first = decided(ids)
    call_command("verify_all", "--wait", "30", stdout=io.StringIO())
    again = decided(ids)
    assert {k: v.status for k, v in again.items()} == {"a1": "verified", "b1": "mismatch"}
    assert all(again[k].decided_at > first[k].decided_at for k in first)


def _worker_backends() -> set[int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        )
        return {pid for (pid,) in cursor.fetchall()}


def _edit_and_decide(sid: int, answer) -> str:
    solution = Solution.objects.select_related("problem").get(pk=sid)
    solution.answer = answer
    solution.save()
    verdict_request(solution=solution)
    return decided([sid])["p1"].status


def test_the_worker_keeps_its_database_connection_and_survives_losing_it(worker, books_committed):
    """Celery's Django fixup would close the connection around every task (two connects per
    batch); tasks keep it as web requests do, and one the server dropped is replaced."""
    [sid] = import_chapter([uniform_problem("p1", RIGHT)])
    assert decided([sid])["p1"].status == "verified"
    kept = _worker_backends()
    assert kept  # held between tasks
    assert _edit_and_decide(sid, [[2, 3], [2, 4]]) == "mismatch"
    assert _worker_backends() == kept  # the same connection, two tasks later

    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [list(kept)]
        )
    assert _edit_and_decide(sid, RIGHT) == "verified"  # a new connection, no lost check


@pytest.mark.skipif(
    not os.path.exists("/usr/bin/chromium") or not shutil.which("pdftotext"),
    reason="Chromium and pdftotext are installed by scripts/install-browser.sh",
)
def test_a_release_is_printed_by_the_worker_and_served_as_a_pdf(
    printing_worker, seeded_committed, client, tmp_path
):
    release_ii3()  # its PDF and Book II's are asked for once this commits
    wait_for(
        lambda: (
            PrintedPdf.objects.filter(state=PrintedPdf.State.MADE).count() == 2
            or PrintedPdf.objects.filter(state=PrintedPdf.State.FAILED).exists()
        ),
        timeout=90,
        what="the worker's PDFs",
    )
    assert not PrintedPdf.objects.exclude(state=PrintedPdf.State.MADE).values("key", "message")
    for address in ("/chapters/II.3/releases/1/pdf", "/books/II/pdf"):
        pdf = client.get(address)
        assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
        (tmp_path / "got.pdf").write_bytes(pdf.content)
        text = subprocess.run(
            ["pdftotext", str(tmp_path / "got.pdf"), "-"], capture_output=True, text=True
        ).stdout
        assert "Scaled" in text and "Prop. 1" in text
        assert "$" not in text and "\\frac" not in text
    assert "/chapters/II.3/releases/1/pdf" in client.get("/chapters/II.3/").content.decode()


def test_the_worker_runs_due_schedules_publishing_one_and_keeping_a_refusal(
    worker, books_committed, erin
):
    """The beat's task, sent as the beat sends it: II.7 is published as its Editor with the
    notes; II.8, whose thesis is empty, is refused and keeps the gate's reason for its author."""
    chapter_import(document=sketch("II.7"))
    chapter_import(document=sketch("II.8", thesis=""))
    decided(list(Solution.objects.values_list("pk", flat=True)))
    for code in ("II.7", "II.8"):
        PublishSchedule.objects.create(
            chapter=Chapter.objects.get(code=code),
            scheduled_by=erin,
            publish_at=timezone.now(),
            notes=f"{code} goes live.",
        )
    publish_due_chapters.delay()
    wait_for(
        lambda: not PublishSchedule.objects.filter(status="waiting").exists(),
        timeout=30,
        what="the scheduled publishes",
    )
    release = Release.objects.get()
    assert (release.chapter.code, release.made_by, release.notes) == (
        "II.7",
        "erin",
        "II.7 goes live.",
    )
    refused = PublishSchedule.objects.get()
    assert refused.chapter.code == "II.8" and refused.status == "refused"
    assert "thesis: empty (required at every maturity)" in refused.reasons
