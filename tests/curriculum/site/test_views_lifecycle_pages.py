"""Pages and lists after a second release, and a strand that asks for nothing at its level."""

from django.contrib.auth.models import User

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import sketch, verify_now


def released_twice(code: str = "II.7") -> Chapter:
    for title in ("First", "Second"):
        chapter_import(document=sketch(code, title=title, state="in_progress"))
        chapter = Chapter.objects.get(code=code)
        verify_now(chapter)
        chapter_publish(chapter=chapter)
    return chapter


def test_every_list_answers_after_a_second_release(books, client):
    released_twice()
    released_twice("II.8")
    for url in (
        "/",
        "/books/II/",
        "/api/v1/books",
        "/api/v1/chapters",
        "/api/v1/chapters?book=II",
        "/api/v1/chapters?state=published",
        "/api/v1/books/II",
    ):
        assert client.get(url).status_code == 200, url
    listed = client.get("/api/v1/chapters?book=II").json()["items"]
    assert [(c["code"], c["title"], c["latest_release"]) for c in listed] == [
        ("II.7", "Second", 2),
        ("II.8", "Second", 2),
    ]
    staff = User.objects.create_user("staff", is_staff=True)
    client.force_login(staff)
    assert client.get("/books/II/").status_code == 200


def test_a_strand_with_no_target_says_nothing_is_required_instead_of_a_full_bar(books, client):
    released_twice()
    page = client.get("/chapters/II.7/").content.decode()
    assert page.count("nothing required at this level") == 3  # concept, theory, practice
    assert page.count("<progress") == 2  # basics 1/1 and mathematics 3/3
