"""Admin: the author sees what a chapter owes before trying, and Publish goes through the gate."""

import pytest
from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from curriculum.models import Chapter, Release
from tests.conftest import sketch, verify_now


@pytest.fixture
def admin_client_for(client):
    def login(user):
        client.force_login(user)
        return client

    return login


def change_url(chapter):
    return reverse("admin:curriculum_chapter_change", args=[chapter.pk])


def test_ii4_change_page_shows_the_seed_counts_and_debt(seeded, admin_client_for, erin):
    page = admin_client_for(erin).get(change_url(Chapter.objects.get(code="II.4")))
    text = page.content.decode()
    assert page.status_code == 200
    for fragment in (
        "M3 Load-bearing",
        "<strong>basics</strong> 2/11",
        "<strong>concept</strong> 2/2",
        "<strong>theory</strong> 0/4",
        "<strong>mathematics</strong> 0/15",
        "<strong>practice</strong> 0/9",
        "0/5 problems · 0/4 variants · 0/10 exercises · owes 15 more",
        "At M3 this chapter owes 5 worked problems across 4 distinct variants, and "
        "10 exercises, every one with a published solution.",
    ):
        assert fragment in text


def test_publish_button_lists_every_reason(seeded, admin_client_for, erin):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(erin)
    page = client.post(reverse("admin:curriculum_chapter_publish", args=[chapter.pk]), follow=True)
    text = page.content.decode()
    assert "Publish refused. 7 reasons:" in text
    assert "strand practice: 0 of 9 done" in text
    assert not Release.objects.exists()


def test_publish_button_makes_a_release_when_every_rule_holds(books, admin_client_for, erin):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    page = admin_client_for(erin).post(
        reverse("admin:curriculum_chapter_publish", args=[chapter.pk]), follow=True
    )
    assert "Published II.7 as release 1." in page.content.decode()
    assert "Release 1" in admin_client_for(erin).get(change_url(chapter)).content.decode()


def test_an_author_sees_no_publish_button_and_cannot_post_one(books, admin_client_for, alice):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    client = admin_client_for(alice)
    assert ">Publish</button>" not in client.get(change_url(chapter)).content.decode()
    page = client.post(reverse("admin:curriculum_chapter_publish", args=[chapter.pk]), follow=True)
    assert "not publish" in page.content.decode()
    assert not Release.objects.exists()


def test_the_state_field_offers_no_published_choice(seeded, admin_client_for, erin):
    text = admin_client_for(erin).get(change_url(Chapter.objects.get(code="II.4"))).content.decode()
    assert 'value="in_progress"' in text and 'value="published"' not in text


def test_posting_state_published_by_hand_is_refused(seeded, admin_client_for, erin):
    chapter = Chapter.objects.get(code="II.4")
    client = admin_client_for(erin)
    form = client.get(change_url(chapter)).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(state="published", book=chapter.book_id)
    client.post(change_url(chapter), data)
    chapter.refresh_from_db()
    assert chapter.state == "in_progress"


def test_every_admin_page_an_author_uses_renders(seeded, admin_client_for, alice):
    client = admin_client_for(alice)
    for name in ("chapter", "problem", "book"):
        assert client.get(reverse(f"admin:curriculum_{name}_changelist")).status_code == 200
    chapter = Chapter.objects.get(code="II.3")
    assert client.get(change_url(chapter)).status_code == 200
    problem = chapter.problems.first()
    assert (
        client.get(reverse("admin:curriculum_problem_change", args=[problem.pk])).status_code == 200
    )
