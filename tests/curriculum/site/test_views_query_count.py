"""A chapter page costs the same few queries however many problems it has."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_export, chapter_import, load_yaml
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import verify_now, without_terms

MAX_QUERIES = 8  # measured: 8 for 3 problems and for 30


def chapter_with_problems(code: str, count: int) -> None:
    """II.3's problems, repeated until the chapter has `count` of them, imported as `code`.

    At M0 nothing is owed, so any number of verified problems may be released."""
    document = without_terms(load_yaml(chapter_export(code="II.3")))
    base = document["problems"]
    document.update(
        code=code, number=int(code.split(".")[1]), title=f"Copy with {count}", maturity="M0"
    )
    document["strands"]["mathematics"]["target"] = 0
    document["problems"] = [{**base[i % len(base)], "key": f"q{i}"} for i in range(count)]
    chapter_import(document=document)


@pytest.mark.parametrize("count", [3, 30])
def test_the_working_copy_page_costs_a_fixed_number_of_queries(client, seeded, count):
    chapter_with_problems("II.7", count)
    client.get("/chapters/II.7/")  # warm the render cache, as saving would
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/chapters/II.7/")
    assert response.status_code == 200
    assert response.content.decode().count('class="problem problem-') == count
    assert len(queries) <= MAX_QUERIES, [q["sql"][:80] for q in queries]


@pytest.mark.parametrize("count", [3, 30])
def test_a_released_page_is_served_from_its_release_in_six_queries_then_two(client, seeded, count):
    chapter_with_problems("II.7", count)
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/chapters/II.7/")
    assert response.content.decode().count('class="problem problem-') == count
    # its tag, the course's tag (its neighbours are found once per course tag), the release,
    # which of the Book 0 entries it links readers can open now, whether its PDF is made
    assert len(queries) <= 6, [q["sql"][:80] for q in queries]
    with CaptureQueriesContext(connection) as queries:
        again = client.get("/chapters/II.7/")
    assert again.content == response.content
    assert len(queries) == 2  # the two tags: the page's bytes and its neighbours are kept
