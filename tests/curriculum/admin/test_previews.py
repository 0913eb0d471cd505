"""Admin's preview beside the form: the page as readers will see it, made from the unsaved form
(a new problem's drawn numbers before any answer), refused plainly when the form is wrong, and
writing nothing; and a problem saved without an answer (steps or none) is a draft that says so
and counts for nothing."""

import json

import pytest
from django.test import Client
from django.urls import reverse

import attention
from curriculum.domain.counting import chapter_counts
from curriculum.domain.drafts import DRAFT_PROBLEM, DRAFT_UNPUBLISHED
from curriculum.domain.gate import publish_reasons
from curriculum.domain.ladder import MATHEMATICS
from curriculum.domain.selectors import chapters_with_parts
from curriculum.models import Chapter, Problem, Solution, Verdict
from tests.conftest import verify_now
from tests.curriculum.admin.test_books_chapters import resubmitted, shown_errors
from tests.curriculum.admin.test_problems import IDENTITY, add_url, change_url, new_problem

GENERATED = {
    "x": {"generate": "normal", "shape": [2, 4], "seed": 3},
    "heads": 2,
    "w_q": IDENTITY,
    "w_k": IDENTITY,
    "w_v": IDENTITY,
    "w_o": IDENTITY,
}
PREVIEW = reverse("admin:curriculum_problem_preview")


@pytest.fixture
def author(client, alice):
    client.force_login(alice)
    return client


def generated_draft(author, chapter, **fields) -> dict:
    """A new generated problem with no answer and no steps yet."""
    data = new_problem(
        author,
        chapter,
        inputs=json.dumps(GENERATED),
        statement="Take $$x = {{ inputs.x }}$$ and find the output.",
        **{"solution-0-answer": "", "solution-0-steps": ""},
    )
    data.pop("solution-0-published")
    return data | fields


def stored_state(code: str) -> tuple:
    chapter = Chapter.objects.get(code=code)
    return (
        Problem.objects.count(),
        Solution.objects.count(),
        list(Verdict.objects.values_list("pk", "status", "fingerprint")),
        chapter.revision,
        chapter.title,
    )


def test_a_new_generated_problem_shows_its_drawn_numbers_before_any_answer(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    page = author.post(PREVIEW, generated_draft(author, chapter))
    assert page.status_code == 200, page.content.decode()[:2000]
    text = page.content.decode()
    assert "Preview of the form, not saved" in text
    assert "Drawn inputs, instance 0 (the numbers the chapter prints)" in text
    drawn = attention.expand_inputs(GENERATED, instance=0)["x"]
    assert f"{drawn[0][0]:g}" in text  # the numbers the reader will compute from
    assert DRAFT_PROBLEM in text  # no answer yet: a draft, said on the page


def test_another_instance_is_drawn_on_request_and_a_wrong_one_is_refused(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    data = generated_draft(author, chapter)
    page = author.post(PREVIEW, data | {"preview_instance": "3"}).content.decode()
    assert "Drawn inputs, instance 3</h3>" in page
    assert f"{attention.expand_inputs(GENERATED, instance=3)['x'][1][2]:g}" in page
    page = author.post(PREVIEW, data | {"preview_instance": "99999"}).content.decode()
    assert "Drawn inputs: instance: from 0 to 20 (PRACTICE_INSTANCES)" in page


def test_a_preview_writes_nothing_and_readers_still_see_the_saved_page(seeded, author):
    chapter = Chapter.objects.get(code="II.3")
    problem = chapter.problems.get(key="p1")
    before = stored_state("II.3")
    data = resubmitted(author.get(change_url(problem)))
    data.update({"statement": "An edit not yet saved.", "solution-0-answer": "[0.25, 0.75]"})
    url = reverse("admin:curriculum_problem_preview_change", args=[problem.pk])
    page = author.post(url, data)
    assert page.status_code == 200 and "An edit not yet saved." in page.content.decode()
    assert stored_state("II.3") == before
    assert Problem.objects.get(pk=problem.pk).statement != "An edit not yet saved."
    chapter_url = reverse("admin:curriculum_chapter_change", args=[chapter.pk])
    data = resubmitted(author.get(chapter_url)) | {"title": "A title not yet saved"}
    url = reverse("admin:curriculum_chapter_preview_change", args=[chapter.pk])
    page = author.post(url, data).content.decode()
    assert "A title not yet saved" in page
    assert stored_state("II.3") == before
    reader = Client().get(reverse("site:chapter", args=["II.3"])).content.decode()
    assert "A title not yet saved" not in reader and "An edit not yet saved." not in reader


def test_a_wrong_form_is_refused_with_its_paths_and_nothing_is_saved(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    inputs = {**GENERATED, "w_q": [row[:3] for row in IDENTITY]}
    page = author.post(PREVIEW, generated_draft(author, chapter, inputs=json.dumps(inputs)))
    text = page.content.decode()
    assert page.status_code == 200 and "Nothing to preview yet" in text
    assert "inputs.w_q: expected 4x4 matrix, got 4x3" in text
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_the_preview_is_a_staff_post_with_its_token_framed_only_by_admin(seeded, author, alice):
    chapter = Chapter.objects.get(code="II.4")
    data = generated_draft(author, chapter)
    assert author.get(PREVIEW).status_code == 405
    assert Client().post(PREVIEW, data).status_code == 302  # to the login page
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(alice)
    assert guarded.post(PREVIEW, {k: v for k, v in data.items()}).status_code == 403
    page = author.post(PREVIEW, data)
    assert "frame-ancestors 'self'" in page["Content-Security-Policy"]
    assert page["X-Frame-Options"] == "SAMEORIGIN"
    form = author.get(add_url(chapter)).content.decode()
    assert 'formaction="/admin/curriculum/problem/preview/" formtarget="preview"' in form
    assert '<iframe name="preview"' in form


def test_a_problem_saved_without_an_answer_is_a_draft_that_says_so(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    page = author.post(add_url(chapter), generated_draft(author, chapter))
    assert page.status_code == 302, shown_errors(page)
    problem = Problem.objects.get(chapter=chapter, key="p1")
    assert not Solution.objects.filter(problem=problem).exists()
    assert DRAFT_PROBLEM in author.get(change_url(problem)).content.decode()
    chapter_page = author.get(reverse("admin:curriculum_chapter_change", args=[chapter.pk]))
    assert DRAFT_PROBLEM in chapter_page.content.decode()


def test_steps_without_an_answer_save_a_draft_that_counts_for_nothing(seeded, author):
    """Half-written steps are kept with no answer: a draft, said so in admin and the staff
    preview, never sent to the verifier, never shown to readers, and the gate names it."""
    chapter = Chapter.objects.get(code="II.4")
    data = generated_draft(author, chapter, **{"solution-0-steps": "Half-written steps."})
    page = author.post(add_url(chapter), data)
    assert page.status_code == 302, shown_errors(page)
    solution = Solution.objects.get(problem__chapter=chapter, problem__key="p1")
    assert (solution.steps, solution.answer) == ("Half-written steps.", None)
    assert not Verdict.objects.filter(solution=solution).exists()
    assert DRAFT_PROBLEM in author.get(change_url(solution.problem)).content.decode()
    chapter_page = author.get(reverse("admin:curriculum_chapter_change", args=[chapter.pk]))
    assert DRAFT_PROBLEM in chapter_page.content.decode()
    staff_view = author.get("/chapters/II.4/?preview=1").content.decode()
    assert DRAFT_PROBLEM in staff_view and "Half-written steps." not in staff_view
    assert "Half-written steps." not in Client().get("/chapters/II.4/").content.decode()
    loaded = chapters_with_parts().get(pk=chapter.pk)
    assert "problem p1: has no answer yet (a draft)" in publish_reasons(loaded)


def test_a_solution_with_no_answer_cannot_be_published(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    data = generated_draft(author, chapter, **{"solution-0-steps": "Half-written steps."})
    page = author.post(add_url(chapter), data | {"solution-0-published": "on"})
    assert page.status_code == 200
    assert DRAFT_UNPUBLISHED in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_clearing_a_verified_answer_makes_a_draft_that_stops_counting(seeded, author):
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    done = mathematics_done(chapter)
    problem = chapter.problems.get(key="p1")
    data = resubmitted(author.get(change_url(problem)))
    data.pop("solution-0-published", None)
    page = author.post(change_url(problem), data | {"solution-0-answer": ""})
    assert page.status_code == 302, shown_errors(page)
    assert Solution.objects.get(problem=problem).answer is None
    assert not Verdict.objects.filter(solution__problem=problem).exists()
    assert mathematics_done(chapter) == done - 1


def mathematics_done(chapter: Chapter) -> int:
    counts = chapter_counts(chapters_with_parts().get(pk=chapter.pk))
    return next(s.done for s in counts.strands if s.kind == MATHEMATICS)
