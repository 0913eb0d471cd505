"""The chapter's Revisions page: an admin save is one revision with its inline rows; a compare
shows exactly the changed paths, values escaped; revert asks first, restores the text, and is
refused (nothing written) after another writer's change or for a user who may not edit."""

import pytest
from django.urls import reverse

from curriculum.admin.conflicts import OPENED_CHANGED
from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.chapter_history import chapter_history
from curriculum.domain.working_copy import chapter_source
from curriculum.models import Chapter
from tests.conftest import sketch
from tests.curriculum.admin.test_books_chapters import change_url, resubmitted, shown_errors


def signed_in(client, user):
    client.force_login(user)
    return client


def revisions_url(chapter, **query) -> str:
    url = reverse("admin:curriculum_chapter_revisions", args=[chapter.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def revert_url(chapter, number: int) -> str:
    return reverse("admin:curriculum_chapter_revert", args=[chapter.pk, number])


@pytest.fixture
def two_revisions(books, committed):
    """II.7 imported, then its title and a basics item's body changed (with markup in it)."""
    committed(lambda: chapter_import(document=sketch()))
    changed = sketch(title="Second")
    changed["strands"]["basics"]["items"][0]["body"] = "Not `<script>alert(1)</script>`."
    committed(lambda: chapter_import(document=changed))
    return Chapter.objects.get(code="II.7")


def test_an_admin_save_is_one_revision_with_its_rows(two_revisions, client, alice, committed):
    chapter = two_revisions
    client = signed_in(client, alice)
    data = resubmitted(client.get(change_url(chapter)))
    data.update({"thesis": "Another claim.", "strand_items-0-body": "Means more."})
    page = committed(lambda: client.post(change_url(chapter), data))
    assert page.status_code == 302, shown_errors(page)
    newest = chapter_history(chapter=chapter)[0]
    assert (newest.number, newest.via, newest.made_by) == (3, "admin", "alice")
    listed = client.get(revisions_url(chapter, a=2, b=3)).context["changes"].shown
    assert [c.path for c in listed] == ["thesis", "strands.basics.items[0].body"]


def test_a_compare_shows_exactly_the_changed_paths_escaped(two_revisions, client, alice):
    page = signed_in(client, alice).get(revisions_url(two_revisions, a=1, b=2))
    assert [c.path for c in page.context["changes"].shown] == [
        "title",
        "strands.basics.items[0].body",
    ]
    html = page.content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html


@pytest.mark.parametrize("query", [{"a": 1, "b": 9}, {"a": "x", "b": "2"}, {"a": "1" * 40, "b": 2}])
def test_a_compare_of_revisions_not_listed_is_told_not_a_500(two_revisions, client, alice, query):
    page = signed_in(client, alice).get(revisions_url(two_revisions, **query), follow=True)
    assert page.status_code == 200


def test_revert_asks_first_then_restores_the_text(two_revisions, client, alice, committed):
    client = signed_in(client, alice)
    asked = client.get(revert_url(two_revisions, 1))
    assert [c.path for c in asked.context["changes"].shown] == [
        "title",
        "strands.basics.items[0].body",
    ]
    page = committed(
        lambda: client.post(revert_url(two_revisions, 1), {"opened": asked.context["opened"]})
    )
    assert page.status_code == 302 and page.url == change_url(two_revisions)
    assert chapter_source(code="II.7")["title"] == "A Sketch"
    assert chapter_history(chapter=two_revisions)[0].note == "reverted to revision 1"


def test_revert_after_another_writers_change_is_refused(two_revisions, client, alice):
    client = signed_in(client, alice)
    opened = client.get(revert_url(two_revisions, 1)).context["opened"]
    chapter_import(document=sketch(title="Meanwhile"))
    page = client.post(revert_url(two_revisions, 1), {"opened": opened}, follow=True)
    assert OPENED_CHANGED in page.content.decode()
    assert chapter_source(code="II.7")["title"] == "Meanwhile"


def test_who_may_not_edit_the_chapter_may_not_revert(two_revisions, client, django_user_model):
    viewer = django_user_model.objects.create_user("vic", password="vic-pass-9", is_staff=True)
    client = signed_in(client, viewer)
    assert client.get(revisions_url(two_revisions)).status_code == 403
    assert client.post(revert_url(two_revisions, 1), {"opened": ""}).status_code == 403
    assert chapter_source(code="II.7")["title"] == "Second"
