"""A problem's hints and feedback are held to one rule wherever they are written (a file, the
API, admin): counts and lengths named by their limits, feedback of the asked output's shape,
each wrong answer told once."""

import pytest

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.hints import feedback_errors, hints_errors
from curriculum.models import Chapter
from tests.conftest import problem, sketch

SOFTMAX = {"operation": "softmax", "inputs": {"scores": [[0.0, 0.0]]}, "ask": {"output": "out"}}
SHOWN = SOFTMAX | {"tolerance": {"rtol": 1e-6, "atol": 1e-9}}


def refused(**change) -> list[str]:
    """What importing the sketch says when problem p2 carries `change`; nothing is stored."""
    with pytest.raises(ChapterFileError) as refusal:
        chapter_import(
            document=sketch("II.7", problems=[problem("p1", "worked"), problem("p2") | change])
        )
    assert not Chapter.objects.filter(code="II.7").exists()
    return refusal.value.errors


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            {"hints": ["x"] * 11},
            "problems[1].hints: has 11 hints; at most 10 (LIMIT_PROBLEM_HINTS)",
        ),
        (
            {"hints": ["Fine.", "x" * 1001]},
            "problems[1].hints[1]: is 1,001 characters long; at most 1,000 (LIMIT_HINT_CHARS)",
        ),
        ({"hints": [" "]}, "problems[1].hints[0]: must be a non-empty Markdown text"),
        (
            {"feedback": [{"answer": [[1.0, 0.0]], "says": "x"}] * 21},
            "problems[1].feedback: has 21 entries; at most 20 (LIMIT_PROBLEM_FEEDBACK)",
        ),
        (
            {"feedback": [{"answer": [[1.0, 0.0]], "says": "x" * 1001}]},
            "problems[1].feedback[0].says: is 1,001 characters long; at most 1,000 "
            "(LIMIT_FEEDBACK_CHARS)",
        ),
    ],
)
def test_counts_and_lengths_are_refused_naming_their_limit(books, change, said):
    assert refused(**change) == [said]


def test_a_placeholder_outside_mathematics_in_a_hint_is_refused_with_its_path(books):
    """One rule with statements (`placeholders`): its TeX would show raw."""
    assert refused(hints=["Start from $x$.", "The scores {{ inputs.scores }} first."]) == [
        "problems[1].hints[1]: {{ inputs.scores }} is outside mathematics: a placeholder is "
        "TeX, so it goes inside $...$ or $$...$$"
    ]


def test_a_lowered_limit_is_the_one_a_file_is_held_to(books, settings):
    settings.LIMIT_HINT_CHARS = 20
    assert refused(hints=["A hint of thirty characters."]) == [
        "problems[1].hints[0]: is 28 characters long; at most 20 (LIMIT_HINT_CHARS)"
    ]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ([1.0, 0.0], "is of shape 2; the asked output (out) is of shape 1 × 2"),
        (1.0, "is a single number; the asked output (out) is of shape 1 × 2"),
        ({"a": 1.0}, "is named values; the asked output (out) is of shape 1 × 2"),
        ([[1.0, 0.0, 0.0]], "is of shape 1 × 3; the asked output (out) is of shape 1 × 2"),
    ],
)
def test_feedback_of_another_shape_than_the_asked_output_is_refused(books, answer, said):
    (error,) = refused(feedback=[{"answer": answer, "says": "Not that."}])
    assert error.startswith(f"problems[1].feedback[0].answer: {said}: "), error


def test_the_same_wrong_answer_twice_is_refused_naming_the_first(books):
    feedback = [
        {"answer": [[1.0, 0.0]], "says": "A max, not a softmax."},
        {"answer": [[0.0, 1.0]], "says": "The other max."},
        {"answer": [[1, 0]], "says": "Said again."},
    ]
    assert refused(feedback=feedback) == [
        "problems[1].feedback[2].answer: names the answer problems[1].feedback[0] names "
        "(as an answer is judged: at the tolerance, or to the figures a page "
        "prints): say it there"
    ]


@pytest.mark.parametrize("near", [0.1000000001, 0.1000004])
def test_a_wrong_answer_the_judging_rule_takes_for_an_earlier_one_is_refused(near):
    """A reader's answer is judged at the tolerance or to the printed figures: an entry that
    rule cannot tell from an earlier one could never be shown."""
    three = SHOWN | {"inputs": {"scores": [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]}}
    feedback = [
        {"answer": [[0.1, 0.9, 0], [0.5, 0, 0.5]], "says": "first"},
        {"answer": [[near, 0.9, 0], [0.5, 0, 0.5]], "says": "second"},
        {"answer": [[0.2, 0.8, 0], [0.5, 0, 0.5]], "says": "another"},
    ]
    assert feedback_errors(feedback, three, None) == [
        (
            "feedback[1].answer",
            "names the answer feedback[0] names (as an answer is judged: at the "
            "tolerance, or to the figures a page prints): say it there",
        )
    ]


def test_a_selected_output_and_named_values_take_their_own_shape():
    cost = {
        "operation": "attention_cost",
        "inputs": {"seq_len": 4, "width": 8, "heads": 2},
        "tolerance": {"digits": 3},
    }
    terms = cost | {"ask": {"output": "terms"}}
    assert not feedback_errors([{"answer": {"flops": 1.0}, "says": "No."}], terms, None)
    (error,) = feedback_errors([{"answer": [1.0], "says": "No."}], terms, None)
    assert error == (
        "feedback[0].answer",
        "is of shape 1; the asked output (terms) is named values: a reader's answer is read in "
        "the asked shape, so this one would never be told",
    )
    flops = cost | {"ask": {"output": "flops"}}
    assert not feedback_errors([{"answer": 100, "says": "No."}], flops, None)
    row = SHOWN | {
        "inputs": {"scores": [[0.0, 0.0], [1.0, 2.0]]},
        "ask": {"output": "out", "row": 1},
    }
    assert not feedback_errors([{"answer": [0.5, 0.5], "says": "No."}], row, None)


def test_hints_and_feedback_of_admin_are_held_alike():
    """Admin's form calls these with paths of its own fields."""
    assert hints_errors(["x" * 1001], SHOWN) == [
        ("hints[0]", "is 1,001 characters long; at most 1,000 (LIMIT_HINT_CHARS)")
    ]
    (error,) = feedback_errors([{"answer": [0.4, 0.6], "says": "Half."}], SHOWN, [[0.5, 0.5]])
    assert error[0] == "feedback[0].answer" and "is of shape 2" in error[1]
