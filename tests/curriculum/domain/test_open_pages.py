"""Who else has a chapter's admin page open: named on the page, since when, bounded, forgotten."""

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from curriculum.domain.open_pages import chapter_closed, chapter_opened
from curriculum.models import Chapter


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def change_url(chapter):
    return reverse("admin:curriculum_chapter_change", args=[chapter.pk])


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_names_who_else_has_it_open_and_since_when(seeded, alice, erin):
    chapter = Chapter.objects.get(code="II.4")
    first = signed_in(alice).get(change_url(chapter)).content.decode()
    assert "Also open in admin" not in first
    text = signed_in(erin).get(change_url(chapter)).content.decode()
    assert "Also open in admin: alice since <time" in text
    assert "Whoever saves second is refused" in text
    again = signed_in(alice).get(change_url(chapter)).content.decode()
    assert "Also open in admin: erin since" in again and "alice since" not in again


def test_since_is_when_they_first_opened_it(db, alice):
    chapter_opened(chapter_id=1, user=alice)
    other = User.objects.create_user("bob")
    (before,) = chapter_opened(chapter_id=1, user=other)
    chapter_opened(chapter_id=1, user=alice)
    (after,) = chapter_opened(chapter_id=1, user=other)
    assert before.since == after.since


def test_at_most_the_limit_are_named_and_kept(db, settings):
    settings.LIMIT_OPEN_EDITORS_SHOWN = 2
    users = [User.objects.create_user(f"user{i}") for i in range(6)]
    for user in users:
        chapter_opened(chapter_id=1, user=user)
    assert len(cache.get("chapter-open:1")) == 3
    shown = chapter_opened(chapter_id=1, user=users[0])
    assert [o.name for o in shown] == ["user5", "user4"]


def test_a_page_not_opened_again_within_the_window_is_forgotten(db, settings, alice, erin):
    chapter_opened(chapter_id=1, user=alice)
    settings.CHAPTER_OPEN_SECONDS = -1  # every earlier opening is now too old
    assert chapter_opened(chapter_id=1, user=erin) == []


def test_a_save_forgets_that_its_author_had_the_page_open(seeded, alice, erin):
    from tests.curriculum.admin.test_books_chapters import resubmitted

    chapter = Chapter.objects.get(code="II.4")
    client = signed_in(alice)
    saved = client.post(change_url(chapter), resubmitted(client.get(change_url(chapter))))
    assert saved.status_code == 302
    assert "Also open in admin" not in signed_in(erin).get(change_url(chapter)).content.decode()
    chapter_closed(chapter_id=chapter.pk, user=erin)
    assert chapter_opened(chapter_id=chapter.pk, user=alice) == []
