"""Review in admin: an Author submits with a note, the Editor's queue lists it, the Editor
returns it with comments the Author reads, then publishes it with release notes readers see;
schedules a publish; and the delete confirmation lists what an author would recognise."""

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.schedules import due_publishes_run
from curriculum.domain.search_index import search_index_sync
from curriculum.models import Book, Chapter, PublishSchedule, Release, Review, SearchEntry
from tests.conftest import sketch, verify_now
from tests.curriculum.admin.test_books_chapters import change_url, publish_url

QUEUE = reverse("admin:curriculum_review_changelist")


@pytest.fixture
def ready(books):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    return chapter


def submit_url(chapter):
    return reverse("admin:curriculum_chapter_submit", args=[chapter.pk])


def test_a_review_round_trip(ready, client, alice, erin):
    client.force_login(alice)
    assert submit_url(ready) in client.get(change_url(ready)).content.decode()
    client.post(submit_url(ready), {"note": "Please check the new exercise."})
    assert client.get(QUEUE).status_code == 403  # the queue is the Editors'

    client.force_login(erin)
    queue = client.get(QUEUE).content.decode()
    assert "II.7" in queue and "Please check the new exercise." in queue
    assert f'href="{publish_url(ready)}"' in queue
    page = client.get(publish_url(ready)).content.decode()
    assert "Please check the new exercise." in page and "Return to the author" in page
    refused = client.post(publish_url(ready), {"_return": "1", "comments": ""})
    assert "comments: say what the author should change (required)" in refused.content.decode()
    client.post(publish_url(ready), {"_return": "1", "comments": "Exercise 2 repeats 1."})
    assert f'href="{publish_url(ready)}"' not in client.get(QUEUE).content.decode()

    client.force_login(alice)
    page = client.get(change_url(ready)).content.decode()
    assert "Returned by <strong>erin</strong>" in page and "Exercise 2 repeats 1." in page
    client.post(submit_url(ready), {"note": "Exercise 2 replaced."})

    client.force_login(erin)
    confirmation = client.get(publish_url(ready))
    client.post(
        publish_url(ready),
        {"reviewed": confirmation.context["reviewed"], "notes": "A new second exercise."},
    )
    assert Release.objects.get(chapter=ready).notes == "A new second exercise."
    assert not Review.objects.exists()
    readers = client.get("/chapters/II.7/releases/").content.decode()
    assert "A new second exercise." in readers
    assert client.get("/api/v1/chapters/II.7").json()["release_notes"] == "A new second exercise."


def test_a_note_past_the_limit_is_refused_and_kept_in_the_page(ready, client, alice, settings):
    settings.LIMIT_REVIEW_TEXT_CHARS = 20
    client.force_login(alice)
    page = client.post(submit_url(ready), {"note": "a note longer than twenty"})
    text = page.content.decode()
    assert "note: 25 characters, at most 20" in text and "a note longer than twenty" in text
    assert not Review.objects.exists()


def test_a_nul_in_any_review_text_is_refused_in_the_page_not_a_500(ready, client, alice, erin):
    client.force_login(alice)
    text = client.post(submit_url(ready), {"note": "a\x00b"}).content.decode()
    assert "note: contains a NUL character" in text
    client.force_login(erin)
    reviewed = client.get(publish_url(ready)).context["reviewed"]
    at = (timezone.now() + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    for sent, said in (
        ({"reviewed": reviewed, "notes": "nul\x00here"}, "release notes"),
        ({"_schedule": "1", "publish_at": at, "schedule_notes": "nul\x00"}, "release notes"),
        ({"_return": "1", "comments": "x\x00y"}, "comments"),
    ):
        page = client.post(publish_url(ready), sent)
        assert page.status_code == 200
        assert f"{said}: contains a NUL character" in page.content.decode()
    assert not Release.objects.exists() and not PublishSchedule.objects.exists()


def test_an_editor_schedules_and_a_refusal_is_shown_to_the_author(ready, client, alice, erin):
    client.force_login(erin)
    at = (timezone.now() + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    bad = client.post(publish_url(ready), {"_schedule": "1", "publish_at": "tomorrow"})
    assert "publish at: a date and time, as 2030-01-31T09:00 (UTC)" in bad.content.decode()
    client.post(publish_url(ready), {"_schedule": "1", "publish_at": at, "schedule_notes": "Soon."})
    assert PublishSchedule.objects.get(chapter=ready).notes == "Soon."
    ready.problems.get(key="p3").solution.delete()  # the gate will refuse it then
    due_publishes_run(now=timezone.now() + datetime.timedelta(hours=2))

    client.force_login(alice)
    page = client.get(change_url(ready)).content.decode()
    assert "was refused by the gate" in page and "problem p3: has no solution" in page
    assert not Release.objects.exists()


@pytest.mark.parametrize("at", ["", "  "])
def test_a_schedule_without_a_time_is_refused_not_set_for_the_next_minute(ready, client, erin, at):
    client.force_login(erin)
    page = client.post(
        publish_url(ready), {"_schedule": "1", "publish_at": at, "schedule_notes": "x"}
    )
    assert "Not scheduled." in page.content.decode()
    assert not PublishSchedule.objects.exists()


def test_a_schedule_that_ran_with_nothing_to_release_shows_its_notes_until_cancelled(
    ready, client, erin
):
    client.force_login(erin)
    client.post(publish_url(ready), {"notes": "First."})
    at = (timezone.now() + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    client.post(publish_url(ready), {"_schedule": "1", "publish_at": at, "schedule_notes": "Lost?"})
    due_publishes_run(now=timezone.now() + datetime.timedelta(hours=2))
    page = client.get(change_url(ready)).content.decode()
    assert "with no release to hold its notes" in page
    assert "The release notes were not recorded" in page and "Lost?" in page
    assert Release.objects.get(chapter=ready).notes == "First."
    offered = client.get(publish_url(ready)).content.decode()
    for box in ("id_notes", "id_schedule_notes"):  # publish now, or later
        assert re.search(rf'<textarea id="{box}"[^>]*>Lost\?</textarea>', offered)
    client.post(publish_url(ready), {"notes": ""})  # still nothing to release: still said
    assert "Lost?" in client.get(change_url(ready)).content.decode()
    done = client.post(publish_url(ready), {"_unschedule": "1"}, follow=True).content.decode()
    assert "the notes no release held are cleared" in done and "Lost?" not in done
    again = client.post(publish_url(ready), {"_unschedule": "1"}, follow=True).content.decode()
    assert "II.7: nothing was scheduled." in again


def test_authors_neither_edit_books_nor_delete_chapters(ready, client, alice):
    client.force_login(alice)
    book = Book.objects.get(numeral="II")
    assert client.get(reverse("admin:curriculum_book_change", args=[book.pk])).status_code == 200
    page = client.get(reverse("admin:curriculum_book_change", args=[book.pk])).content.decode()
    assert 'name="_save"' not in page  # read only
    assert client.get(reverse("admin:curriculum_book_add")).status_code == 403
    delete = reverse("admin:curriculum_chapter_delete", args=[ready.pk])
    assert client.get(delete).status_code == 403
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert Chapter.objects.filter(pk=ready.pk).exists()


def test_the_delete_confirmation_lists_no_search_rows(ready, client, erin):
    Chapter.objects.filter(pk=ready.pk).update(state="in_progress")  # readers see it: indexed
    search_index_sync(chapter_ids=[ready.pk])
    assert SearchEntry.objects.filter(chapter=ready).exists()  # deleted with it, unlisted
    client.force_login(erin)
    page = client.get(reverse("admin:curriculum_chapter_delete", args=[ready.pk]))
    text = page.content.decode()
    assert "Problems: " in text
    assert "Search entr" not in text and "Search word" not in text
    assert "Search chapter" not in text
    client.post(reverse("admin:curriculum_chapter_delete", args=[ready.pk]), {"post": "yes"})
    assert not Chapter.objects.filter(pk=ready.pk).exists()
