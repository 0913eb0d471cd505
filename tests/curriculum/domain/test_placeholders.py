"""Placeholders: an input or an output written once, typeset from the data on every page."""

import pytest
from django.core.exceptions import ValidationError

from curriculum.domain import placeholders
from curriculum.domain.chapter_files import ChapterFileError, chapter_export, chapter_import
from curriculum.domain.placeholders import placeholder_errors, placeholders_expand, to_tex
from curriculum.domain.reading import chapter_for_reader
from curriculum.models import Problem
from tests.conftest import problem, sketch

pytestmark = pytest.mark.django_db

STATEMENT = "Softmax of $$s = {{ inputs.scores }}$$ gives $${{ outputs.out | digits 3 }}$$."


def test_a_matrix_is_typeset_from_the_data():
    assert to_tex([[1, -0.5], [0.25, 2]]) == (r"\begin{pmatrix} 1 & -0.5 \\ 0.25 & 2 \end{pmatrix}")
    assert to_tex([1.0, 2.5]) == r"\begin{pmatrix} 1 & 2.5 \end{pmatrix}"
    assert to_tex(1.5e-7) == r"1.5 \times 10^{-7}"
    assert to_tex(0.123456789, 3) == "0.123"


def test_outputs_are_the_engines_values_to_the_digits_asked():
    text = placeholders_expand(
        "{{ outputs.out }} and {{ outputs.out | digits 2 }}",
        operation="softmax",
        inputs={"scores": [[0.0, 1.0]]},
    )
    assert text == (
        r"\begin{pmatrix} 0.268941 & 0.731059 \end{pmatrix} and "
        r"\begin{pmatrix} 0.27 & 0.73 \end{pmatrix}"
    )


def test_a_generated_input_is_shown_as_drawn_for_the_instance():
    inputs = {"scores": {"generate": "uniform", "shape": [1, 2], "low": 0, "high": 1, "seed": 3}}
    first = placeholders_expand("{{ inputs.scores }}", operation="softmax", inputs=inputs)
    other = placeholders_expand(
        "{{ inputs.scores }}", operation="softmax", inputs=inputs, instance=2
    )
    assert first.startswith(r"\begin{pmatrix}") and first != other


def test_every_bad_placeholder_is_named_with_what_there_is():
    errors = placeholder_errors(
        "${{ inputs.q }} {{ outputs.weights }} {{ input.x }} {{ inputs.scores | digits 0 }}$",
        operation="softmax",
        inputs={"scores": [[1.0]]},
    )
    assert errors == [
        "{{ inputs.q }}: no input q (has: scores)",
        "{{ outputs.weights }}: no output weights (has: out)",
        "{{ input.x }} is not a placeholder: write {{ inputs.NAME }} or {{ outputs.NAME }}, "
        "optionally with | digits N; or a claim, {{ NUMBER = EXPRESSION }}",
        "{{ inputs.scores | digits 0 }}: digits must be from 1 to 15",
    ]


def test_the_reader_page_shows_numbers_and_the_file_keeps_the_placeholder(books):
    written = problem("p1", "worked") | {"statement": STATEMENT}
    written["solution"]["steps"] = "Row one: ${{ outputs.out }}$."
    chapter_import(document=sketch(problems=[written]))
    shown = chapter_for_reader(code="II.7").snapshot["problems"][0]
    assert shown["statement"] == STATEMENT
    assert "{{" not in shown["statement_html"] and "<math" in shown["statement_html"]
    assert "<mn>0.5</mn>" in shown["solution"]["steps_html"]
    assert "{{ inputs.scores }}" in chapter_export(code="II.7")


def test_a_file_naming_an_input_the_problem_lacks_is_refused_with_the_path(books):
    written = problem("p1", "worked") | {"statement": "Take $x = {{ inputs.x }}$."}
    written["solution"]["steps"] = "${{ outputs.weights }}$"
    with pytest.raises(ChapterFileError) as raised:
        chapter_import(document=sketch(problems=[written]))
    assert "problems[0].statement: {{ inputs.x }}: no input x (has: scores)" in (
        raised.value.errors
    )
    assert "problems[0].solution.steps: {{ outputs.weights }}: no output weights (has: out)" in (
        raised.value.errors
    )


def test_admin_and_services_refuse_it_too(books):
    chapter_import(document=sketch(problems=[problem("p1", "worked")]))
    stored = Problem.objects.get(chapter__code="II.7", key="p1")
    stored.statement = "Take ${{ inputs.x }}$."
    with pytest.raises(ValidationError) as raised:
        stored.full_clean()
    assert raised.value.message_dict["statement"] == ["{{ inputs.x }}: no input x (has: scores)"]
    stored.solution.steps = "${{ outputs.nothing }}$"
    with pytest.raises(ValidationError) as raised:
        stored.solution.full_clean()
    assert "steps" in raised.value.message_dict


def test_an_output_too_large_to_typeset_is_refused_before_it_is_computed():
    big = {"generate": "normal", "shape": [30, 30], "seed": 1}
    errors = placeholder_errors(
        "$${{ outputs.out }} {{ inputs.scores }}$$", operation="softmax", inputs={"scores": big}
    )
    refusal = "has 900 entries, too many to typeset (at most 400, LIMIT_VALUE_TYPESET_ENTRIES)"
    assert errors == [f"{{{{ outputs.out }}}}: {refusal}", f"{{{{ inputs.scores }}}}: {refusal}"]
    shown = placeholders_expand("{{ outputs.out }}", operation="softmax", inputs={"scores": big})
    assert shown == "{{ outputs.out }}"


def test_a_placeholder_outside_mathematics_is_refused_as_its_tex_would_show_raw():
    text = "The scores {{ inputs.scores }} and $${{ inputs.scores }}$$, `{{ outputs.out }}`."
    assert placeholder_errors(text, operation="softmax", inputs={"scores": [[0.0, 1.0]]}) == [
        "{{ inputs.scores }} is outside mathematics: a placeholder is TeX, so it goes inside "
        "$...$ or $$...$$",
        "{{ outputs.out }} is outside mathematics: a placeholder is TeX, so it goes inside "
        "$...$ or $$...$$",
    ]


def test_checking_a_texts_placeholders_asks_the_engine_once_per_output(monkeypatch):
    """Validation expands the text to measure its formulas from the values it has computed."""
    calls = []
    real = placeholders.attention.evaluate
    monkeypatch.setattr(
        placeholders.attention, "evaluate", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    text = "$$ {{ outputs.out }} $$ and $$ {{ outputs.out | digits 3 }} $$"
    inputs = {"scores": [[0.0, 1.0]]}
    assert placeholders.placeholder_errors(text, operation="softmax", inputs=inputs) == []
    assert len(calls) == 1


def test_an_output_the_engine_overflows_is_refused_and_never_printed_as_inf():
    overflowing = {
        "x": [[1e200, -1]],
        "w_1": [[1e200, 0], [0, 1]],
        "b_1": [0, 0],
        "w_2": [[1], [1]],
        "b_2": [0.5],
        "activation": "relu",
    }
    text = "The output is ${{ outputs.out }}$."
    errors = placeholder_errors(text, operation="feed_forward", inputs=overflowing)
    assert errors == ["{{ outputs.out }}: the engine computes inf at [0, 0]: no number to show"]
    shown = placeholders_expand(text, operation="feed_forward", inputs=overflowing)
    assert shown == text and "inf" not in shown
