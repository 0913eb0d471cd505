"""Chapter reads are cheap: validators answer conditional requests, and a read costs a fixed
number of queries however many problems the chapter has."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import ChapterSave
from curriculum.models import Chapter
from tests.conftest import problem, sketch
from tests.curriculum.api.conftest import released
from tests.curriculum.api.test_writes import put

CHAPTER_READ_QUERIES = 10  # validators 2, release lookup 1, chapter and its parts 7


def test_a_chapter_read_carries_etag_and_last_modified(client, seeded):
    response = client.get("/api/v1/chapters/II.4")
    assert response["ETag"].startswith('"II.4:')
    assert response["Last-Modified"].endswith("GMT")
    assert "Authorization" in response["Vary"]


def test_if_none_match_gets_304_without_building_the_chapter(client, seeded):
    etag = client.get("/api/v1/chapters/II.4")["ETag"]
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/chapters/II.4", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304 and response.content == b""
    assert len(queries) == 1
    assert not any("curriculum_problem" in q["sql"] for q in queries.captured_queries)


@pytest.mark.parametrize("path", ["/api/v1/chapters/II.4", "/chapters/II.4/"])
def test_an_edit_within_the_second_is_served_to_if_modified_since(client, seeded, path):
    """Last-Modified has whole seconds, and a page also moves with its neighbours: only the
    ETag may answer 304."""
    first = client.get(path)
    chapter = Chapter.objects.get(code="II.4")
    chapter.title = "Retitled within the second"
    ChapterSave(chapter=chapter).execute()
    for since in (first["Last-Modified"], "Fri, 31 Dec 9999 23:59:59 GMT"):
        response = client.get(path, HTTP_IF_MODIFIED_SINCE=since)
        assert response.status_code == 200 and b"Retitled within the second" in response.content
    assert client.get(path, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


def test_an_edit_changes_the_etag_so_the_client_gets_the_new_body(client, seeded):
    etag = client.get("/api/v1/chapters/II.4")["ETag"]
    document = client.get("/api/v1/chapters/II.4?preview=true").json()  # anonymous: no preview
    ChapterSave(chapter=Chapter.objects.get(code="II.4")).execute()
    response = client.get("/api/v1/chapters/II.4", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response["ETag"] != etag
    assert response.json()["title"] == document["title"]


def test_a_new_release_changes_the_etag_of_an_older_release(client, books, erin):
    released("II.7", erin)
    etag = client.get("/api/v1/chapters/II.7/releases/1")["ETag"]
    assert (
        client.get("/api/v1/chapters/II.7/releases/1", HTTP_IF_NONE_MATCH=etag).status_code == 304
    )
    from curriculum.domain.gate import chapter_publish

    chapter = Chapter.objects.get(code="II.7")
    chapter.thesis = "A claim, revised for release 2."  # an unchanged chapter makes no release
    ChapterSave(chapter=chapter).execute()
    assert chapter_publish(chapter=chapter, user=erin).number == 2
    assert (
        client.get("/api/v1/chapters/II.7/releases/1", HTTP_IF_NONE_MATCH=etag).status_code == 200
    )


def _chapter_with(problems: int) -> None:
    document = sketch("II.7", problems=[problem(f"p{i}") for i in range(problems)])
    chapter_import(document=document)


@pytest.mark.parametrize("problems", [3, 30])
def test_a_working_copy_read_costs_a_fixed_number_of_queries(
    client, books, problems, django_assert_max_num_queries
):
    _chapter_with(problems)
    with django_assert_max_num_queries(CHAPTER_READ_QUERIES):
        body = client.get("/api/v1/chapters/II.7").json()
    assert len(body["problems"]) == problems


@pytest.mark.parametrize("problems", [3, 30])
def test_a_staff_token_read_costs_a_fixed_number_of_queries(
    client, books, problems, erin_token, django_assert_max_num_queries
):
    _chapter_with(problems)
    client.get("/api/v1/ping", **erin_token)  # records last use, a write made once a minute
    with django_assert_max_num_queries(CHAPTER_READ_QUERIES + 1):
        assert client.get("/api/v1/chapters/II.7", **erin_token).status_code == 200


def test_a_released_read_costs_two_queries(client, books, erin, django_assert_num_queries):
    released("II.7", erin)
    with django_assert_num_queries(2):
        assert client.get("/api/v1/chapters/II.7").json()["release"] == 1


def test_a_304_on_a_release_never_loads_its_snapshot(client, books, erin):
    released("II.7", erin)
    etag = client.get("/api/v1/chapters/II.7/releases/1")["ETag"]
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/chapters/II.7/releases/1", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304 and response.content == b""
    assert not any("snapshot" in q["sql"] for q in queries.captured_queries)


def test_an_api_write_moves_the_etag(client, books, alice_token):
    chapter_import(document=sketch(state="in_progress"))
    before = client.get("/api/v1/chapters/II.7")["ETag"]
    written = put(client, "II.7", sketch(state="in_progress", title="Renamed"), alice_token)
    assert written.status_code == 200, written.content
    after = client.get("/api/v1/chapters/II.7")
    assert after["ETag"] != before and after.json()["title"] == "Renamed"


def test_a_database_restored_under_its_cache_never_serves_another_text(client, books):
    """A backup restored (or the database made again) counts revisions from where it stood,
    beside a cache that has seen the later ones: a revision number written again with another
    text is another ETag, never the cached page (a hostile test's database made again was shown
    the old database's text)."""
    chapter_import(document=sketch(state="in_progress"))
    before = Chapter.objects.get(code="II.7").revision
    chapter_import(document=sketch(title="Before the backup was restored", state="in_progress"))
    written = Chapter.objects.get(code="II.7").revision
    cached = client.get("/api/v1/chapters/II.7")
    assert cached.json()["title"] == "Before the backup was restored"
    Chapter.objects.filter(code="II.7").update(revision=before)  # the backup's, as restored
    chapter_import(document=sketch(title="Written after the restore", state="in_progress"))
    assert Chapter.objects.get(code="II.7").revision == written
    again = client.get("/api/v1/chapters/II.7", HTTP_IF_NONE_MATCH=cached["ETag"])
    assert again.status_code == 200
    assert again.json()["title"] == "Written after the restore"


@pytest.mark.parametrize("path", ["/api/v1/chapters/II.7", "/chapters/II.7/"])
def test_a_release_tells_readers_nothing_of_how_often_or_when_its_working_copy_is_edited(
    client, books, erin, path
):
    """A release's ETag moves with its working copy (its links do), but as a digest: it had
    shown the copy's revision count and the microsecond of its last edit, and Last-Modified
    that edit's time (a hostile round). Last-Modified is the release's own."""
    chapter = released("II.7", erin)
    first = client.get(path)
    for title in ("Edited once, unreleased", "Edited twice, unreleased"):
        chapter.refresh_from_db()
        chapter.title = title
        ChapterSave(chapter=chapter).execute()
        again = client.get(path)
        assert again["ETag"] != first["ETag"] and again["Last-Modified"] == first["Last-Modified"]
        assert title.encode() not in again.content
    chapter.refresh_from_db()
    # no word of the tag is the count or the moment (a digest may hold their digits by chance)
    words = re.split(r"[^0-9a-zA-Z]+", again["ETag"])
    for shown in (str(chapter.revision), f"{int(chapter.updated_at.timestamp() * 1e6):x}"):
        assert shown not in words
    assert client.get(path, HTTP_IF_NONE_MATCH=again["ETag"]).status_code == 304
