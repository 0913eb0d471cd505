"""Admin, the list of chapters: what each owes and whether it could be published, found by
filter or search, in a number of queries that does not grow with the chapters."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from tests.conftest import sketch


def changelist(client, **query):
    return client.get(reverse("admin:curriculum_chapter_changelist"), query)


@pytest.fixture
def author(client, alice):
    client.force_login(alice)
    return client


def chapters(first: int, last: int) -> None:
    for number in range(first, last + 1):
        chapter_import(document=sketch(f"II.{number}"))


def test_the_list_shows_what_each_chapter_owes_and_its_latest_release(seeded, author):
    page = changelist(author)
    text = page.content.decode()
    for heading in ("Code", "Title", "Maturity", "State", "Owes", "Publish?", "Latest release"):
        assert f">{heading}</a>" in text or f"<span>{heading}</span>" in text, heading
    ii4 = next(c for c in page.context["cl"].result_list if c.code == "II.4")
    admin = page.context["cl"].model_admin
    assert (admin.owes(ii4), admin.to_publish(ii4), admin.latest_release(ii4)) == (
        15,
        "8 to fix",
        "—",
    )


def test_filters_and_search_find_chapters(seeded, author):
    by_maturity = changelist(author, maturity="M3").context["cl"].result_list
    assert [c.code for c in by_maturity] == ["II.4"]
    found = changelist(author, q="Multi-Head").context["cl"].result_list
    assert [c.code for c in found] == ["II.4"]


def test_the_list_costs_the_same_queries_for_three_chapters_as_for_twelve(
    books, author, django_assert_max_num_queries
):
    chapters(1, 3)
    changelist(author)  # warm the session and content types
    with CaptureQueriesContext(connection) as three:
        assert changelist(author).status_code == 200
    chapters(4, 12)
    with django_assert_max_num_queries(len(three)):
        page = changelist(author)
    assert len(page.context["cl"].result_list) == 12 + 2  # and Book 0's two entries
