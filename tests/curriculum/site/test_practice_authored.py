"""A practice problem as its author writes and changes it: offered once its answer is verified,
its statement showing the instance's own numbers and never the answer, an edit never answered
from the cache of the old inputs, and the longest key the model allows practised too. Each
test writes its own II.7 (the practice tests read one world of the module's)."""

import pytest

import attention
from curriculum.domain.answer_tables import number
from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import problem, sketch, verify_now
from tests.curriculum.site.test_practice import (
    PAGE,
    SCORES,
    engine,
    generated_chapter,
    page_numbers,
    practice_chapter,
    solution_page,
)

pytestmark = pytest.mark.django_db


def test_an_edited_problem_never_shows_the_value_cached_for_its_old_inputs(
    client, seeded, settings
):
    settings.PRACTICE_CHECK_RATE = "1000/min"
    generated_chapter(publish=False)  # readers see the working copy
    before = page_numbers(solution_page(client, 2).content.decode())
    edited = SCORES | {"seed": 8}
    answer = attention.evaluate("softmax", {"scores": edited}, {"output": "out"}).tolist()
    practice_chapter(problem("p3", scores=edited, answer=answer))
    verify_now(Chapter.objects.get(code="II.7"))

    after = page_numbers(solution_page(client, 2).content.decode())

    shown = attention.evaluate("softmax", {"scores": edited}, {"output": "out"}, 2).tolist()
    assert {number(v) for row in shown for v in row} <= set(after)
    assert after != before


def test_a_generated_problem_is_offered_only_once_its_answer_is_verified(client, seeded):
    practice_chapter(problem("p3", scores=SCORES, answer=engine(0)))
    assert client.get(PAGE, {"instance": 1}).status_code == 404  # pending: not yet offered
    verify_now(Chapter.objects.get(code="II.7"))
    Chapter.objects.filter(code="II.7").update(title="Checked")  # the working copy's version moves
    assert client.get(PAGE, {"instance": 1}).status_code == 200


def test_the_statement_shows_the_instances_own_numbers_and_never_its_answer(client, seeded):
    placed = {"statement": "Softmax of ${{ inputs.scores | digits 3 }}$ is ${{ outputs.out }}$."}
    exercise = problem("p3", scores=SCORES, answer=engine(0)) | placed
    with pytest.raises(ChapterFileError, match="shows the answer: an exercise's statement"):
        chapter_import(document=sketch("II.7", problems=[problem("p1", "worked"), exercise]))
    practice_chapter(exercise | {"kind": "worked"}, problem("p4"))  # worked: shows its outputs
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    html = client.get(PAGE, {"instance": 6}).content.decode()
    statement = html.split('class="prose statement">')[1].split("</div>")[0]
    drawn = attention.expand_inputs({"scores": SCORES}, instance=6)["scores"]
    assert f"<mn>{drawn[0][0]:.3g}</mn>".replace("-", "") in statement.replace("−", "")
    assert "?" in statement
    answer = engine(6)
    assert number(answer[0][0]) not in statement
    read = client.get("/api/v1/chapters/II.7/problems/p3/instances/6").json()
    assert "{{ inputs.scores" in read["statement"]
    assert read["statement_html"].strip() == statement.strip()  # the page's: drawn, and "?"


def test_a_problem_key_as_long_as_the_model_allows_is_practised_through_the_api(
    client, books, settings
):
    settings.API_ANON_RATE = "1000/min"
    long_key = "k" * 50
    practice_chapter(problem(long_key, scores=SCORES, answer=engine(0)))
    verify_now(Chapter.objects.get(code="II.7"))
    read = client.get(f"/api/v1/chapters/II.7/problems/{long_key}/instances/1")
    assert read.status_code == 200, read.content
    too_long = client.get(f"/api/v1/chapters/II.7/problems/{long_key}k/instances/1")
    assert too_long.status_code == 422


def test_one_number_per_line_is_a_vector_where_a_vector_is_asked(client, seeded, settings):
    """Numbers separated by new lines, as the page says: a vector where one is asked (p3), a
    matrix's rows where a matrix is (p4's 2 × 1 column); on the site and in the API alike."""
    settings.PRACTICE_CHECK_RATE = "1000/min"
    vector = attention.evaluate("softmax", {"scores": [0.0, 1.0]}, {"output": "out"}).tolist()
    practice_chapter(
        problem("p3", scores=[0.0, 1.0], answer=vector),
        problem("p4", scores=[[0.0], [1.0]], answer=[[1.0], [1.0]]),
    )
    verify_now(Chapter.objects.get(code="II.7"))
    for key, typed, said in (
        ("p3", "\n".join(f"{v:.6g}" for v in vector), "a vector of 2 numbers"),
        ("p4", "1\n1", "a matrix of 2 × 1 numbers"),
    ):
        page = client.post(
            f"/chapters/II.7/problems/{key}/",
            {"instance": 0, "answer": typed, "step": "check"},
        ).content.decode()
        assert f"Read as {said}:</strong>" in page and "Right." in page
        checked = client.post(
            f"/api/v1/chapters/II.7/problems/{key}/instances/0/check",
            {"answer": typed},
            content_type="application/json",
        ).json()
        assert (checked["ok"], checked["read"]) == (True, said)
