"""A reader reports a problem with an exercise and its authors see it beside the problem; the
verifier warns of a misconception the tolerance cannot tell from the right answer; files and
admin hold hints and feedback to their rules."""

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter, ProblemReport, Verdict
from tests.conftest import problem, sketch, verify_now

PAGE = "/chapters/II.7/problems/p2/"
ROW = [[0.7310585786300049, 0.2689414213699951]]
"""The softmax of (1, 0): a page prints it 0.731059 0.268941, 0.268941 beyond rtol 1e-6."""
REPORT = PAGE + "report/"


def sdpa(key: str, q) -> dict:
    """Attention weights of two queries over two keys, to 3 figures: with tiny q every score is
    near 0, so leaving out the 1/sqrt(d_k) scale changes them past the 3rd figure only (a
    misconception the tolerance takes for the right answer)."""
    inputs = {"q": q, "k": [[1.0, 0.0], [0.0, 1.0]], "v": [[1.0, 0.0], [0.0, 1.0]]}
    import attention

    answer = attention.evaluate("scaled_dot_product_attention", inputs, {"output": "weights"})
    return problem(key) | {
        "statement": "Compute the attention weights.",
        "operation": "scaled_dot_product_attention",
        "inputs": inputs,
        "ask": {"output": "weights"},
        "tolerance": {"digits": 3},
        "solution": {"steps": "Scores, softmax.", "answer": answer.tolist(), "published": True},
    }


@pytest.fixture
def chapter(books, settings):
    settings.PRACTICE_CHECK_RATE = "1000/min"
    settings.PRACTICE_REPORT_RATE = "3/h"
    cache.clear()
    chapter_import(
        document=sketch("II.7", problems=[problem("p1", "worked"), problem("p2"), problem("p3")])
    )
    found = Chapter.objects.get(code="II.7")
    verify_now(found)
    chapter_publish(chapter=found)
    return found


def test_a_report_carries_the_release_problem_instance_and_answer(client, chapter):
    response = client.post(
        REPORT, {"instance": 0, "answer": "0.5 0.5", "message": "The statement says s."}
    )
    assert response.status_code == 303 and response["Location"].endswith("reported=1#report")
    report = ProblemReport.objects.get()
    assert (report.chapter_code, report.problem_key, report.release, report.instance) == (
        "II.7",
        "p2",
        1,
        0,
    )
    assert report.answer == "0.5 0.5" and report.reporter is None
    thanked = client.get(response["Location"]).content.decode()
    assert "your report is with the authors" in thanked


def test_an_empty_or_overlong_report_is_refused_and_nothing_is_kept(client, chapter, settings):
    empty = client.post(REPORT, {"instance": 0, "message": "   "})
    assert empty.status_code == 400 and "Say what is wrong" in empty.content.decode()
    long = client.post(REPORT, {"instance": 0, "message": "x" * (settings.LIMIT_REPORT_CHARS + 1)})
    assert long.status_code == 400 and "LIMIT_REPORT_CHARS" in long.content.decode()
    answer = "1" * (settings.LIMIT_ANSWER_CHARS + 1)
    long = client.post(REPORT, {"instance": 0, "message": "wrong", "answer": answer})
    assert long.status_code == 400 and "LIMIT_ANSWER_CHARS" in long.content.decode()
    assert client.post(REPORT, {"instance": 7, "message": "hi"}).status_code == 400
    assert client.get(REPORT).status_code == 405
    assert not ProblemReport.objects.exists()


def test_reports_are_throttled_per_client(client, chapter):
    for _ in range(3):
        assert client.post(REPORT, {"instance": 0, "message": "wrong"}).status_code == 303
    refused = client.post(REPORT, {"instance": 0, "message": "wrong"})
    assert refused.status_code == 429 and refused["Retry-After"] == "3600"
    assert ProblemReport.objects.count() == 3


def test_authors_see_reports_and_statistics_beside_the_problem(admin_client, client, chapter):
    client.post(PAGE, {"instance": 0, "answer": "0.5 0.5", "step": "check"})
    client.post(PAGE, {"instance": 0, "answer": "0.4 0.6", "step": "check"})
    client.post(REPORT, {"instance": 0, "answer": "0.4 0.6", "message": "Ambiguous rounding."})
    p2 = chapter.problems.get(key="p2")
    text = admin_client.get(f"/admin/curriculum/problem/{p2.pk}/change/").content.decode()
    assert "Ambiguous rounding." in text
    assert "2 answers checked, 1 right (50%)" in text
    queue = admin_client.get("/admin/curriculum/problemreport/").content.decode()
    assert "Ambiguous rounding." in queue


def test_the_verifier_warns_of_a_misconception_that_gives_the_right_answer(books):
    tiny = sdpa("p2", [[1e-4, 0.0], [0.0, 1e-4]])
    scored = sdpa("p3", [[1.0, 0.0], [0.0, 2.0]])
    chapter_import(document=sketch("II.7", problems=[problem("p1", "worked"), tiny, scored]))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    warned = Verdict.objects.get(solution__problem__chapter=chapter, solution__problem__key="p2")
    assert warned.status == "verified"
    assert any("instance 0" in w and "'no-scale'" in w for w in warned.warnings), warned.warnings
    plain = Verdict.objects.get(solution__problem__chapter=chapter, solution__problem__key="p3")
    assert plain.status == "verified"
    assert not any("scale" in w for w in plain.warnings)


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        (
            {"hints": ["A claim {{ 0.5 = outputs.out[0, 0] }}."]},
            "problems[1].hints[0]: holds a claim",
        ),
        ({"hints": ["x"] * 11}, "problems[1].hints"),
        ({"hints": [""]}, "problems[1].hints[0]"),
        (
            {"feedback": [{"answer": [[0.5, 0.5]], "says": "Right, really."}]},
            "problems[1].feedback[0].answer: is the solution's answer",
        ),
        (  # the solution's answer as a page prints it: a reader who gives it is right
            {
                "inputs": {"scores": [[1.0, 0.0]]},
                "solution": {"steps": "Softmax.", "answer": ROW, "published": True},
                "feedback": [{"answer": [[0.731059, 0.268941]], "says": "Rounded."}],
            },
            "problems[1].feedback[0].answer: is the solution's answer at the problem's tolerance, "
            "or to the 6 significant figures a page prints",
        ),
        ({"feedback": [{"answer": "half", "says": "No."}]}, "problems[1].feedback[0].answer"),
        ({"feedback": [{"answer": 1, "said": "No."}]}, "problems[1].feedback[0]"),
    ],
)
def test_hints_and_feedback_that_break_their_rules_are_refused_with_a_path(books, change, refusal):
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(
            document=sketch("II.7", problems=[problem("p1", "worked"), problem("p2") | change])
        )
    assert any(refusal in error for error in refused.value.errors), refused.value.errors
    assert not Chapter.objects.filter(code="II.7").exists()


def test_admin_refuses_feedback_a_reader_would_be_told_is_right(books):
    """Admin's form validates the model: the same rule, the same path."""
    given = problem("p2", scores=[[1.0, 0.0]], answer=ROW)
    chapter_import(document=sketch("II.7", problems=[problem("p1", "worked"), given]))
    stored = Chapter.objects.get(code="II.7").problems.get(key="p2")
    stored.feedback = [{"answer": [[0.731059, 0.268941]], "says": "Rounded."}]
    with pytest.raises(ValidationError) as refused:
        stored.full_clean()
    said = refused.value.message_dict["feedback"]
    assert any(m.startswith("feedback[0].answer: is the solution's answer") for m in said), said
    stored.feedback = [{"answer": [[0.7311, 0.2689]], "says": "Four figures: more are asked."}]
    stored.full_clean()


def test_hints_and_feedback_survive_an_export_and_a_second_import(books):
    given = {
        "hints": ["Equal scores: equal weights."],
        "feedback": [{"answer": [[1.0, 0.0]], "says": "That is a max, not a softmax."}],
    }
    chapter_import(
        document=sketch("II.7", problems=[problem("p1", "worked"), problem("p2") | given])
    )
    stored = Chapter.objects.get(code="II.7").problems.get(key="p2")
    assert stored.hints == given["hints"] and stored.feedback == given["feedback"]
    from curriculum.domain.documents import chapter_document
    from curriculum.domain.selectors import chapters_with_parts

    document = chapter_document(chapters_with_parts().get(code="II.7"))
    assert document["problems"][1]["hints"] == given["hints"]
    assert "hints" not in document["problems"][0]
    chapter_import(document=document)
    assert Chapter.objects.get(code="II.7").problems.get(key="p2").feedback == given["feedback"]


def test_a_refused_report_does_not_count_against_the_limit(client, chapter):
    """Only a report that is kept counts: a reader whose empty reports were refused can still
    send the three the rate allows."""
    for _ in range(3):
        assert client.post(REPORT, {"instance": 0, "message": "  "}).status_code == 400
    for _ in range(3):
        assert client.post(REPORT, {"instance": 0, "message": "wrong"}).status_code == 303
    assert ProblemReport.objects.count() == 3
    assert client.post(REPORT, {"instance": 0, "message": "wrong"}).status_code == 429


def test_the_largest_report_a_browser_sends_is_within_the_reader_form_limit(client, chapter):
    """Each character four UTF-8 bytes, each byte percent-encoded: LIMIT_READER_BODY_BYTES
    (curriculum/reader_bodies.py) takes a longest answer with a longest message."""
    from urllib.parse import urlencode

    from django.conf import settings

    widest = "\U0001f600"
    sent = urlencode(
        {
            "instance": 0,
            "answer": widest * settings.LIMIT_ANSWER_CHARS,
            "message": widest * settings.LIMIT_REPORT_CHARS,
        }
    )
    assert len(sent) > 0.8 * settings.LIMIT_READER_BODY_BYTES
    response = client.post(REPORT, sent, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 303
    assert len(ProblemReport.objects.get().message) == settings.LIMIT_REPORT_CHARS


def test_a_report_as_long_as_its_text_box_allows_is_kept_line_breaks_and_all(client, chapter):
    """The box's maxlength counts a line break once; the browser sends it as CRLF."""
    from django.conf import settings

    typed = "ab\n" * (settings.LIMIT_REPORT_CHARS // 3) + "x" * (settings.LIMIT_REPORT_CHARS % 3)
    sent = typed.replace("\n", "\r\n")
    response = client.post(REPORT, {"instance": 0, "message": sent})
    assert response.status_code == 303
    assert ProblemReport.objects.get().message == typed.strip()
