"""A signed-in reader sees their progress on the chapter and book pages; those pages stay one
cached body for everyone else: an anonymous reader gets the same bytes, ETag and headers
whoever signed in before, and no reader ever gets another's progress."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_export, chapter_import, load_yaml
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import sketch, stored_as_before, verify_now
from tests.curriculum.domain.test_progress import attempt, practised_chapter
from tests.curriculum.site.test_views_accessibility import Outline, assert_headings_in_order
from tests.curriculum.site.test_views_chapter_page import visible_text

PAGE = "/chapters/II.7/"


@pytest.fixture
def course(books):
    practised_chapter()


def reader(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.create_user(name, password="a-long-reader-pass-9"))
    return client


def user(name: str) -> User:
    return User.objects.get(username=name)


def shown(response) -> str:
    return visible_text(response.content.decode())


def test_a_signed_in_reader_sees_what_they_solved_on_the_chapter_page(course):
    rita = reader("rita")
    attempt(user("rita"), "p3", right=False, instance=2)
    attempt(user("rita"), "p3", right=True, instance=6, minutes=4)
    response = rita.get(PAGE)
    text = shown(response)
    assert "Your progress 1 of 3 problems solved" in text
    assert (
        "Exercise 2 : solved on instance 6 of release 1, "
        "1 March 2026, 09:34 UTC (2 attempts)" in text
    )
    assert "Exercise 1 : not tried" in text
    assert "softmax-row" not in text  # a variant is the authors' slug, never shown
    assert response["Cache-Control"] == "private, no-cache"
    assert "Cookie" in response["Vary"]


def test_an_anonymous_reader_gets_the_same_bytes_and_etag_whoever_signed_in(course):
    anonymous = Client()
    before = anonymous.get(PAGE)
    rita = reader("rita")
    attempt(user("rita"), "p3", right=True, instance=6)
    assert "1 of 3 problems solved" in shown(rita.get(PAGE))
    after = anonymous.get(PAGE)
    assert after.content == before.content and after["ETag"] == before["ETag"]
    assert after["Cache-Control"] == before["Cache-Control"] == "public, no-cache"
    assert b'id="reader-progress"' not in after.content
    assert b"<!-- reader-progress -->" in after.content
    assert anonymous.get(PAGE, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304


def test_no_reader_gets_another_readers_progress(course):
    rita, sam = reader("rita"), reader("sam")
    attempt(user("rita"), "p3", right=True, instance=6)
    ritas = rita.get(PAGE)
    assert "1 of 3 problems solved" in shown(ritas)
    sams = sam.get(PAGE)
    assert "You have not tried a problem of this chapter yet." in shown(sams)
    assert "instance 6" not in shown(sams)
    assert sams["ETag"] != ritas["ETag"]
    assert sam.get(PAGE, HTTP_IF_NONE_MATCH=ritas["ETag"]).status_code == 200  # not rita's page
    assert "instance 6" not in shown(Client().get(PAGE))


def test_a_readers_page_is_revalidated_until_their_progress_moves(course):
    rita = reader("rita")
    first = rita.get(PAGE)
    assert rita.get(PAGE, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    attempt(user("rita"), "p3", right=True, instance=6)
    moved = rita.get(PAGE, HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
    assert "1 of 3 problems solved" in shown(moved)


def test_a_signed_in_reader_sees_the_books_sum_on_the_book_page(course):
    practised_chapter("II.8")
    anonymous = Client()
    before = anonymous.get("/books/II/")
    rita = reader("rita")
    attempt(user("rita"), "p3", right=True)
    attempt(user("rita"), "p2", right=True, code="II.8")
    response = rita.get("/books/II/")
    text = shown(response)
    assert "Your progress in Book II 2 of 6 problems solved" in text
    assert "II.7 A Sketch : 1 of 3 solved" in text and "II.8 A Sketch : 1 of 3 solved" in text
    assert response["Cache-Control"] == "private, no-cache"
    after = anonymous.get("/books/II/")
    assert after.content == before.content and b'id="reader-progress"' not in after.content
    assert not after.has_header("Cache-Control")


def test_a_staff_readers_progress_costs_the_same_beside_a_working_copy(course):
    """Progress lists the contents' codes and titles; it never counts a working copy's parts
    again (the listing, kept apart, already did)."""
    erin = Client()
    erin.force_login(User.objects.create_user("erin-staff", is_staff=True))
    attempt(user("erin-staff"), "p3", right=True)

    def progress_queries() -> int:
        erin.get("/books/II/")  # the shared listing, kept for the next read
        with CaptureQueriesContext(connection) as queries:
            assert erin.get("/books/II/").status_code == 200
        return len(queries)

    released_only = progress_queries()
    chapter_import(document=sketch("II.9", title="Still a working copy"))
    assert "Still a working copy" in shown(erin.get("/books/II/"))
    assert progress_queries() == released_only


def test_author_text_cannot_place_the_progress(books):
    practised_chapter()
    tricky = "<!-- reader-progress --> is only text here."
    with stored_as_before():  # refused at import now; a chapter may hold it from before
        chapter_import(
            document=load_yaml(chapter_export(code="II.7")) | {"summary": tricky, "thesis": tricky}
        )
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    response = reader("rita").get(PAGE)
    html = response.content.decode()
    assert html.count('<section class="reader-progress"') == 1
    assert html.count("is only text here") == 2
    assert html.index('id="reader-progress"') > html.rindex("is only text here")


def test_the_pages_with_progress_keep_their_headings_in_order(course):
    rita = reader("rita")
    attempt(user("rita"), "p3", right=True)
    for path in (PAGE, "/books/II/", "/account/", "/account/delete/", "/accounts/password/change/"):
        outline = Outline()
        outline.feed(rita.get(path).content.decode())
        assert_headings_in_order(outline.levels)
        assert outline.title.strip().endswith("— Curriculum") and outline.skip_target == "#main"
