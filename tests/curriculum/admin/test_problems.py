"""Admin, the problem page: an author adds a problem and its solution, is told plainly what is
wrong with an input, an answer or a formula, and every save asks the verifier again."""

import json

import pytest
from django.urls import reverse

from curriculum.domain.answers import default_digits
from curriculum.domain.drafts import DRAFT_PROBLEM
from curriculum.models import Chapter, Problem, Solution, Verdict
from tests.conftest import verify_now
from tests.curriculum.admin.test_books_chapters import resubmitted, shown_errors

IDENTITY = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


@pytest.fixture
def author(client, alice):
    client.force_login(alice)
    return client


def add_url(chapter):
    return f"{reverse('admin:curriculum_problem_add')}?chapter={chapter.pk}"


def change_url(problem):
    return reverse("admin:curriculum_problem_change", args=[problem.pk])


def new_problem(author, chapter, **fields) -> dict:
    """The add form, filled in as an author would for a small multi-head problem."""
    data = resubmitted(author.get(add_url(chapter)))
    data.update(
        {
            "kind": "worked",
            "variant": "head-split",
            "statement": "With $h = 2$ heads, compute the output.",
            "operation": "multi_head_attention",
            "inputs": json.dumps(
                {
                    "x": [[1, 0, 0, 0], [0, 1, 0, 0]],
                    "heads": 2,
                    "w_q": IDENTITY,
                    "w_k": IDENTITY,
                    "w_v": IDENTITY,
                    "w_o": IDENTITY,
                }
            ),
            "ask": json.dumps({"output": "out"}),
            "solution-0-steps": "Each head attends within its slice.",
            "solution-0-answer": "[[0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0]]",
            "solution-0-published": "on",
        }
    )
    data.update(fields)
    return data


def test_an_author_adds_a_problem_and_its_solution_from_the_chapter_link(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    page = author.post(add_url(chapter), new_problem(author, chapter))
    assert page.status_code == 302, shown_errors(page)
    problem = Problem.objects.get(chapter=chapter, key="p1")
    assert problem.solution.answer == [[0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0]]
    assert problem.solution.verdict.status == Verdict.Status.PENDING


def test_a_wrong_shape_input_is_named_and_nothing_is_saved(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    inputs = {
        "x": [[1, 0, 0, 0]],
        "heads": 2,
        "w_q": [row[:3] for row in IDENTITY],
        "w_k": IDENTITY,
        "w_v": IDENTITY,
        "w_o": IDENTITY,
    }
    page = author.post(add_url(chapter), new_problem(author, chapter, inputs=json.dumps(inputs)))
    assert page.status_code == 200
    assert "inputs.w_q: expected 4x4 matrix, got 4x3" in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()
    assert not Solution.objects.filter(problem__chapter=chapter).exists()


def test_inputs_that_ask_too_much_of_the_verifier_are_refused_naming_the_limit(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    weight = {"generate": "normal", "shape": [16, 16], "seed": 2}
    inputs = {
        "x": {"generate": "normal", "shape": [4096, 16], "seed": 1},
        "heads": 4,
        "w_q": weight,
        "w_k": weight,
        "w_v": weight,
        "w_o": weight,
    }
    page = author.post(
        add_url(chapter),
        new_problem(author, chapter, inputs=json.dumps(inputs), **{"solution-0-answer": "0.5"}),
    )
    assert page.status_code == 200
    assert "more than LIMIT_PROBLEM_WORK" in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_inputs_that_are_not_json_are_refused(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    page = author.post(add_url(chapter), new_problem(author, chapter, inputs="{x: [1, 2"))
    assert "Not valid JSON at line 1, column 2: Expecting property name" in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()


@pytest.mark.parametrize(
    ("field", "text", "shown"),
    [
        ("solution-0-answer", "9" * 5000, "a number is larger than about 1.8e308"),
        (
            "ask",
            '{"output": "out", "row": ' + "9" * 400 + "}",
            "a number is larger than about 1.8e308",
        ),
        ("inputs", '{"x": "\\ud800"}', "lone surrogate"),
        ("inputs", '{"heads": 2, "heads": 3}', "appears twice in one object"),
        ("solution-0-answer", "[" * 5000 + "]" * 5000, "nested more than"),
    ],
)
def test_json_no_reader_should_take_is_refused_on_the_form(seeded, author, field, text, shown):
    """Thousands of digits, a key given twice, nesting past the limit: a form error (the API's
    own words), never a 500, and nothing saved."""
    chapter = Chapter.objects.get(code="II.4")
    page = author.post(add_url(chapter), new_problem(author, chapter, **{field: text}))
    assert page.status_code == 200
    assert shown in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_an_answer_that_is_not_numbers_is_refused_and_nothing_is_saved(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    data = new_problem(author, chapter, **{"solution-0-answer": '[[0.5, "half"]]'})
    page = author.post(add_url(chapter), data)
    assert page.status_code == 200
    assert "must be a number or a list of numbers, found &#x27;half&#x27;" in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_a_statement_formula_that_does_not_parse_is_refused(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    data = new_problem(author, chapter, statement=r"Compute $\sqrt{2$ please.")
    page = author.post(add_url(chapter), data)
    assert page.status_code == 200
    assert r"formula $\sqrt{2$ does not parse: KaTeX parse error" in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_an_edited_answer_marks_a_verified_verdict_pending(seeded, author, settings):
    assert settings.CELERY_BROKER_URL, "a real broker: the check waits in Redis, no worker runs"
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    problem = chapter.problems.get(key="p1")
    assert problem.solution.verdict.status == Verdict.Status.VERIFIED
    data = resubmitted(author.get(change_url(problem)))
    data["solution-0-answer"] = "0.75"
    page = author.post(change_url(problem), data)
    assert page.status_code == 302, shown_errors(page)
    verdict = Verdict.objects.get(solution__problem=problem)
    assert verdict.status == Verdict.Status.PENDING
    assert verdict.engine_value is None


def test_an_edited_input_marks_the_verdict_pending(seeded, author):
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    problem = chapter.problems.get(key="p1")
    data = resubmitted(author.get(change_url(problem)))
    data["rtol"] = "0.0001"
    assert author.post(change_url(problem), data).status_code == 302
    assert Verdict.objects.get(solution__problem=problem).status == Verdict.Status.PENDING


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("digits", "1", "from 3 to 15, got 1: fewer significant figures accept answers a reader"),
        ("rtol", "-1", "rtol and atol are at least 0"),
        (
            "rtol",
            "0.1",
            "at most 0.0005, got 0.1: a wider rtol accepts answers wrong in their third",
        ),
    ],
)
def test_a_tolerance_looser_than_three_figures_is_refused_with_the_rule(
    seeded, author, field, value, error
):
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    data = resubmitted(author.get(change_url(problem)))
    data[field] = value
    page = author.post(change_url(problem), data)
    assert page.status_code == 200 and error in shown_errors(page), shown_errors(page)


def test_digits_alone_is_a_tolerance_and_all_three_empty_is_the_files_default(seeded, author):
    """rtol and atol check nothing beside digits: an author may clear them (and they are shown
    empty); clearing digits too takes the default a file gets, from the answer as written."""
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    data = resubmitted(author.get(change_url(problem)))
    data.update({"digits": "4", "rtol": "", "atol": ""})
    page = author.post(change_url(problem), data)
    assert page.status_code == 302, shown_errors(page)
    assert Problem.objects.get(pk=problem.pk).digits == 4
    data = resubmitted(author.get(change_url(problem)))
    assert (data["digits"], data.get("rtol"), data.get("atol")) == (4, None, None)
    data.update({"digits": "", "solution-0-answer": "[0.2689, 0.7311]"})
    page = author.post(change_url(problem), data)
    assert page.status_code == 302, shown_errors(page)
    assert Problem.objects.get(pk=problem.pk).digits == default_digits([0.2689, 0.7311]) == 4


def test_digits_beside_rtol_and_atol_is_refused_not_one_dropped(seeded, author):
    """A file's tolerance with digits and rtol is refused; so is the page's: a save never
    keeps digits and drops an rtol the author typed beside them unsaid."""
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    data = resubmitted(author.get(change_url(problem)))
    data.update({"digits": "4", "rtol": "0.0001", "atol": "0"})
    page = author.post(change_url(problem), data)
    assert page.status_code == 200
    assert "Give rtol and atol, or digits, not both." in shown_errors(page)
    stored = Problem.objects.get(pk=problem.pk)
    assert (stored.digits, stored.rtol, stored.atol) == (problem.digits, problem.rtol, problem.atol)


def test_saving_an_unchanged_problem_keeps_its_verdict(seeded, author):
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    problem = chapter.problems.get(key="p1")
    page = author.post(change_url(problem), resubmitted(author.get(change_url(problem))))
    assert page.status_code == 302, shown_errors(page)
    assert Verdict.objects.get(solution__problem=problem).status == Verdict.Status.VERIFIED


def test_the_tolerance_help_says_rtol_and_atol_are_held_to_the_floor(seeded, author):
    """At atol 50, 460 is not taken for an instance's 417.5: the author is told that rule."""
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    text = author.get(change_url(problem)).content.decode()
    assert (
        "or empty digits and rtol/atol, never looser than 3 significant figures at any instance"
        in text
    )


def test_the_problem_page_shows_the_verdict_with_the_engine_value(seeded, author):
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    text = author.get(change_url(chapter.problems.get(key="p1"))).content.decode()
    assert '<strong class="verdict verdict-verified">verified</strong>' in text
    assert "engine value: <code>0.731058578630" in text


def test_inputs_are_shown_one_matrix_row_per_line(seeded, author):
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    form = author.get(change_url(problem)).context["adminform"].form
    assert '"q": [\n    [0, 0, 1, 1],\n    [1, 1, 0, 0]\n  ]' in form["inputs"].value()


def test_deleting_a_problem_takes_the_domain_path(seeded, author):
    chapter = Chapter.objects.get(code="II.3")
    before = chapter.updated_at
    problem = chapter.problems.get(key="p1")
    url = reverse("admin:curriculum_problem_delete", args=[problem.pk])
    assert author.post(url, {"post": "yes"}).status_code == 302
    assert not Problem.objects.filter(pk=problem.pk).exists()
    chapter.refresh_from_db()
    assert chapter.updated_at > before


def test_delete_selected_removes_each_problem_through_the_domain(seeded, author):
    chapter = Chapter.objects.get(code="II.3")
    before = chapter.updated_at
    chosen = list(chapter.problems.filter(key__in=["p1", "p2"]).values_list("pk", flat=True))
    page = author.post(
        reverse("admin:curriculum_problem_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": chosen,
            "post": "yes",
        },
    )
    assert page.status_code == 302
    assert sorted(chapter.problems.values_list("key", flat=True)) == [f"p{n}" for n in range(3, 10)]
    chapter.refresh_from_db()
    assert chapter.updated_at > before


def test_deleting_a_solution_from_the_problem_page_removes_it(seeded, author):
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    data = resubmitted(author.get(change_url(problem)))
    data["solution-0-DELETE"] = "on"
    page = author.post(change_url(problem), data)
    assert page.status_code == 302, shown_errors(page)
    assert not Solution.objects.filter(problem=problem).exists()
    chapter = reverse("admin:curriculum_chapter_change", args=[problem.chapter_id])
    for shown in (page.url, chapter, f"{page.url}?q=II.3"):  # where the save and authors go
        listed = author.get(shown)
        assert listed.status_code == 200 and DRAFT_PROBLEM in listed.content.decode()


def test_a_save_over_an_edit_made_since_the_page_was_opened_is_refused(seeded, author):
    """Another writer (the API, another tab) changes the statement while the page is open; the
    author's save of the variant would have put the old statement back: refused, nothing
    written, and opened again it goes through."""
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    page = author.get(change_url(problem))
    assert 'name="opened_tag"' in page.content.decode()
    data = resubmitted(page) | {"variant": "renamed-variant"}
    Problem.objects.filter(pk=problem.pk).update(statement="Changed elsewhere.")
    Solution.objects.filter(problem=problem).update(steps="Steps changed elsewhere.")

    refused = author.post(change_url(problem), data)
    assert refused.status_code == 200
    assert "Someone changed this since you opened it" in shown_errors(refused)
    problem.refresh_from_db()
    assert problem.statement == "Changed elsewhere." and problem.variant != "renamed-variant"
    assert problem.solution.steps == "Steps changed elsewhere."

    again = resubmitted(author.get(change_url(problem))) | {"variant": "renamed-variant"}
    assert author.post(change_url(problem), again).status_code == 302
    problem.refresh_from_db()
    assert (problem.statement, problem.variant) == ("Changed elsewhere.", "renamed-variant")


WRONG = [[1, 0, 0, 0], [1, 0, 0, 0]]  # every query on the first key: a wrong answer of its shape


@pytest.mark.parametrize(
    ("field", "given", "shown"),
    [
        (
            "feedback",
            [{"answer": [1, 0, 0, 0], "says": "A vector."}],
            "feedback[0].answer: is of shape 4; the asked output (out) is of shape 2 × 4",
        ),
        (
            "feedback",
            [{"answer": WRONG, "says": "One key."}, {"answer": WRONG, "says": "Again."}],
            "feedback[1].answer: names the answer feedback[0] names (as an answer is judged: at "
            "the tolerance, or to the figures a page prints): say it there",
        ),
        (
            "feedback",
            [{"answer": WRONG, "says": "x" * 1001}],
            "feedback[0].says: is 1,001 characters long; at most 1,000 (LIMIT_FEEDBACK_CHARS)",
        ),
        (
            "hints",
            ["x" * 1001],
            "hints[0]: is 1,001 characters long; at most 1,000 (LIMIT_HINT_CHARS)",
        ),
    ],
)
def test_feedback_and_hints_are_refused_as_a_file_s_are(seeded, author, field, given, shown):
    chapter = Chapter.objects.get(code="II.4")
    page = author.post(add_url(chapter), new_problem(author, chapter, **{field: json.dumps(given)}))
    assert page.status_code == 200
    assert shown in shown_errors(page)
    assert not Problem.objects.filter(chapter=chapter).exists()


def test_a_hint_or_feedback_naming_nothing_is_refused_on_its_field_before_saving(seeded, author):
    """The rule a file's import applies (`references`), on the form: nothing is saved."""
    chapter = Chapter.objects.get(code="II.4")
    hints = json.dumps(["Split as @prop:nope says.", "Attend within the slice."])
    feedback = json.dumps([{"answer": WRONG, "says": "See @problem:p9."}])
    page = author.post(
        add_url(chapter), new_problem(author, chapter, hints=hints, feedback=feedback)
    )
    assert page.status_code == 200
    errors = page.context["adminform"].form.errors
    assert errors["hints"] == [
        "hints[0]: reference @prop:nope: II.4 has no proposition nope (it has: 1)"
    ]
    assert errors["feedback"][0].startswith("feedback[0].says: reference @problem:p9: II.4 has")
    assert not Problem.objects.filter(chapter=chapter).exists()

    fixed = json.dumps(["Split as @II.3 says.", "Attend within the slice."])
    saved = author.post(add_url(chapter), new_problem(author, chapter, hints=fixed))
    assert saved.status_code == 302, shown_errors(saved)


def test_an_edit_whose_hint_names_nothing_is_refused_and_the_stored_hint_kept(seeded, author):
    problem = Chapter.objects.get(code="II.3").problems.get(key="p1")
    before = problem.hints
    data = resubmitted(author.get(change_url(problem)))
    page = author.post(change_url(problem), data | {"hints": json.dumps(["See @fig:nowhere."])})
    assert page.status_code == 200
    assert "hints[0]: reference @fig:nowhere: II.3 has no figure nowhere" in shown_errors(page)
    problem.refresh_from_db()
    assert problem.hints == before
