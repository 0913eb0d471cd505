"""Admin roles: Authors edit but do not publish, Editors publish, other staff see nothing to
edit, and releases are read-only for everyone, superusers included."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter, Release
from tests.conftest import sketch, verify_now
from tests.curriculum.admin.test_books_chapters import change_url, publish_url


@pytest.fixture
def ready(books):
    """II.7: every rule holds."""
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    return chapter


@pytest.fixture
def released(ready):
    chapter_publish(chapter=ready)
    return Release.objects.get(chapter=ready)


@pytest.fixture
def sam(db):
    """Staff, in neither group."""
    return User.objects.create_user("sam", password="sam-pass-9", is_staff=True)


@pytest.fixture
def root(db):
    return User.objects.create_superuser("root", password="root-pass-9")


def test_an_author_can_add_change_and_delete_content(ready, client, alice):
    client.force_login(alice)
    problem = ready.problems.get(key="p3")
    for url in (
        reverse("admin:curriculum_chapter_add"),
        reverse("admin:curriculum_problem_add"),
        change_url(ready),
        reverse("admin:curriculum_problem_delete", args=[problem.pk]),
    ):
        assert client.get(url).status_code == 200, url
    text = client.get(change_url(ready)).content.decode()
    assert 'name="_save"' in text and "Add another Strand item" in text


def test_an_author_sees_submit_for_review_where_editors_see_publish(ready, client, alice):
    client.force_login(alice)
    page = client.get(change_url(ready)).content.decode()
    assert publish_url(ready) not in page and "Publish…" not in page
    assert "Submit for review…" in page
    assert client.get(publish_url(ready)).status_code == 403
    assert client.post(publish_url(ready)).status_code == 403
    assert not Release.objects.exists()


def test_an_editor_sees_the_publish_button_and_publishes(ready, client, erin):
    client.force_login(erin)
    assert f'href="{publish_url(ready)}"' in client.get(change_url(ready)).content.decode()
    assert "Every rule holds." in client.get(publish_url(ready)).content.decode()
    client.post(publish_url(ready))
    assert Release.objects.get(chapter=ready).created_by == erin


def test_staff_in_neither_group_see_nothing_to_edit(ready, client, sam):
    client.force_login(sam)
    assert (
        "have permission to view or edit anything"
        in client.get(reverse("admin:index")).content.decode()
    )
    for url in (
        reverse("admin:curriculum_chapter_changelist"),
        change_url(ready),
        reverse("admin:curriculum_problem_add"),
        publish_url(ready),
    ):
        assert client.get(url).status_code == 403, url
    assert client.post(publish_url(ready)).status_code == 403
    assert not Release.objects.exists()


def test_releases_cannot_be_added_changed_or_deleted_even_by_a_superuser(released, client, root):
    client.force_login(root)
    release_change = reverse("admin:curriculum_release_change", args=[released.pk])
    assert client.get(reverse("admin:curriculum_release_add")).status_code == 403
    assert (
        client.get(reverse("admin:curriculum_release_delete", args=[released.pk])).status_code
        == 403
    )
    page = client.get(release_change)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.post(release_change, {"number": 9}).status_code == 403
    released.refresh_from_db()
    assert released.number == 1


def test_the_chapter_lists_its_releases_without_add_or_delete(released, client, root):
    client.force_login(root)
    releases = client.get(change_url(released.chapter)).context["inline_admin_formsets"][6]
    assert not releases.has_add_permission
    assert not releases.has_delete_permission
    assert not releases.has_change_permission
