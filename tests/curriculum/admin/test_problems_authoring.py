"""Admin that explains itself: what ask can pick, the number from the code, shapes in a
mismatch, kind and variant in the seed's words, and answers written tighter than their tolerance."""

import json

import pytest
from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.verification import verdict_decide
from curriculum.models import Chapter, Problem
from tests.conftest import problem, sketch
from tests.curriculum.admin.test_books_chapters import resubmitted, shown_errors
from tests.curriculum.admin.test_problems import IDENTITY, add_url, change_url, new_problem


@pytest.fixture
def author(client, alice):
    client.force_login(alice)
    return client


def test_the_ask_help_lists_the_operations_selectors_for_the_saved_inputs(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    author.post(add_url(chapter), new_problem(author, chapter))
    page = author.get(change_url(Problem.objects.get(chapter=chapter, key="p1")))
    text = page.content.decode()
    assert "For these inputs multi_head_attention gives out: row 0..1, col 0..3; " in text
    assert "weights: head 0..1, row 0..1, col 0..1." in text


def test_the_ask_help_of_a_new_problem_names_every_selector(seeded, author):
    text = author.get(add_url(Chapter.objects.get(code="II.4"))).content.decode()
    assert '"batch", "head", "row", "col", each a 0-based index' in text


def test_kind_and_variant_are_explained_in_the_seeds_words(seeded, author):
    text = author.get(add_url(Chapter.objects.get(code="II.4"))).content.decode()
    assert "A worked problem is solved step by step in the text" in text
    assert "counts the distinct variants among the worked problems" in text


def test_a_wrong_shaped_answer_names_both_shapes(books, author):
    wrong = problem("p1", "worked", answer=[0.5, 0.5])
    chapter_import(document=sketch(problems=[wrong]))
    stored = Problem.objects.get(chapter__code="II.7", key="p1")
    verdict_decide(solution_id=stored.solution.pk)
    text = author.get(change_url(stored)).content.decode()
    assert (
        "mismatch</strong>: the answer is a vector of 2 but the engine&#x27;s value is a "
        "1x2 array" in text
    )


def test_an_answer_written_to_fewer_figures_than_its_tolerance_is_warned(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    data = new_problem(
        author,
        chapter,
        **{"solution-0-answer": "[[0.5124, 0.4876, 0, 0], [0.5, 0.5, 0, 0]]", "digits": "6"},
    )
    page = author.post(add_url(chapter), data, follow=True)
    assert "the answer is written to 4 significant figures but the tolerance asks for 6" in (
        page.content.decode()
    )


def test_a_new_problem_starts_with_no_tolerance_and_gets_the_one_a_file_would(seeded, author):
    """One default for admin, files and the API: the figures the answer is written to. The
    same answer typed into admin and imported from a file is held to the same digits."""
    chapter = Chapter.objects.get(code="II.4")
    form = resubmitted(author.get(add_url(chapter)))
    assert [form.get(name) for name in ("digits", "rtol", "atol")] == [None, None, None]
    answer = [[0.5124, 0.4876, 0, 0], [0.5, 0.5, 0, 0]]
    data = new_problem(author, chapter, **{"solution-0-answer": json.dumps(answer)})
    page = author.post(add_url(chapter), data)
    assert page.status_code == 302, shown_errors(page)
    typed = Problem.objects.get(chapter=chapter, key="p1")
    imported = problem("p1", "worked", answer=answer)
    imported.pop("tolerance", None)
    chapter_import(document=sketch(problems=[imported]))
    from_file = Problem.objects.get(chapter__code="II.7", key="p1")
    assert typed.digits == from_file.digits == 4


def test_the_chapter_form_takes_the_number_from_the_code(books, author):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    url = reverse("admin:curriculum_chapter_change", args=[chapter.pk])
    page = author.get(url)
    assert 'name="number"' not in page.content.decode()
    data = resubmitted(page) | {"code": "II.8"}
    saved = author.post(url, data)
    assert saved.status_code == 302, shown_errors(saved)
    assert Chapter.objects.get(pk=chapter.pk).number == 8


def test_generated_inputs_are_accepted_in_admin(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    inputs = {
        "x": {"generate": "normal", "shape": [2, 4], "seed": 3},
        "heads": 2,
        "w_q": IDENTITY,
        "w_k": IDENTITY,
        "w_v": IDENTITY,
        "w_o": IDENTITY,
    }
    data = new_problem(
        author, chapter, inputs=json.dumps(inputs), statement="Take $$x = {{ inputs.x }}$$."
    )
    page = author.post(add_url(chapter), data)
    assert page.status_code == 302, shown_errors(page)
    assert Problem.objects.get(chapter=chapter, key="p1").inputs["x"]["generate"] == "normal"
