"""Lists (the home page, a book's page, the API's lists) are made once per version of the course:
a repeated read costs one query and gets the same bytes, and whatever a list shows is served
new the moment it changes, by any writer."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.bodies import PROCESS_BODIES
from curriculum.domain.chapter_files import chapter_export, chapter_import, load_yaml
from curriculum.domain.editing import ChapterWithdraw
from curriculum.domain.gate import chapter_publish
from curriculum.models import Book, Chapter
from tests.conftest import sketch, verify_now

LISTS = [
    "/",
    "/books/II/",
    "/api/v1/books",
    "/api/v1/books?limit=1&offset=1",
    "/api/v1/books/II",
    "/api/v1/chapters",
    "/api/v1/chapters?book=II&limit=1",
]


@pytest.fixture(autouse=True)
def generous_rate(settings):
    settings.API_ANON_RATE = "100000/min"


def made_afresh(client, url: str) -> bytes:
    """What a process that never served the list makes of it now."""
    PROCESS_BODIES.clear()
    return client.get(url).content


def test_a_repeated_list_read_costs_one_query_and_the_same_bytes(client, released):
    for url in LISTS:
        first = client.get(url)
        with CaptureQueriesContext(connection) as queries:
            again = client.get(url)
        assert again.status_code == 200, url
        assert again.content == first.content, url
        assert again["Content-Type"] == first["Content-Type"], url
        assert len(queries) == 1, (url, [q["sql"][:60] for q in queries])


def _retitle_book(admin_client):
    book = Book.objects.get(numeral="II")
    book.title = "Attention, Retitled"
    book.save()
    return "Attention, Retitled"


def _edit_working_copy(admin_client):
    document = load_yaml(chapter_export(code="II.4"))
    document["title"] = "Heads, Edited"
    chapter_import(document=document)
    return "Heads, Edited"


def _release_under_a_new_title(admin_client):
    document = load_yaml(chapter_export(code="II.3"))
    document["title"] = "Scaled, Released Again"
    chapter_import(document=document)
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    return "Scaled, Released Again"


def _verdicts_decided(admin_client):
    verify_now(Chapter.objects.get(code="II.7"))  # its mathematics: 0/3, then 3/3
    return None


def _a_new_chapter(admin_client):
    chapter_import(document=sketch("II.8", title="A Brand New Chapter"))
    return "A Brand New Chapter"


def _withdrawn(admin_client):
    ChapterWithdraw(chapter=Chapter.objects.get(code="II.3")).execute()
    return None


def _deleted(admin_client):
    Chapter.objects.get(code="II.4").delete()
    return None


@pytest.mark.parametrize(
    "change",
    [
        _retitle_book,
        _edit_working_copy,
        _release_under_a_new_title,
        _verdicts_decided,
        _a_new_chapter,
        _withdrawn,
        _deleted,
    ],
)
def test_every_change_a_list_shows_is_served_at_once(client, released, change):
    chapter_import(document=sketch("II.7"))  # in progress, its answers not yet verified
    before = {url: client.get(url).content for url in LISTS}
    shown = change(client)
    after = {url: client.get(url).content for url in LISTS}
    for url in LISTS:
        assert after[url] == made_afresh(client, url), url
    assert after != before
    if shown is not None:
        assert shown in after["/"].decode()
        assert shown in after["/api/v1/books"].decode()


def test_staff_lists_show_drafts_and_readers_lists_never_do(client, admin_client, released):
    chapter_import(document=sketch("II.7", title="A Hidden Draft", state="draft"))
    for url in ("/", "/books/II/"):
        assert "A Hidden Draft" in admin_client.get(url).content.decode()
        assert "A Hidden Draft" not in client.get(url).content.decode()
        assert "A Hidden Draft" in admin_client.get(url).content.decode()
