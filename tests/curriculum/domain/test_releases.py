"""Release history: each release says what changed since the one before, as authors wrote it."""

from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.gate import chapter_publish
from curriculum.domain.releases import release_changes
from curriculum.models import Chapter
from tests.conftest import sketch, verify_now


def publish(document: dict):
    chapter_import(document=document)
    chapter = Chapter.objects.get(code=document["code"])
    verify_now(chapter)
    return chapter_publish(chapter=chapter)


def test_the_first_release_shows_everything_as_added(books):
    diff = release_changes(release=publish(sketch()))
    assert diff.startswith("--- nothing released\n+++ release 1\n")
    assert "+title: A Sketch\n" in diff


def test_a_later_release_shows_only_what_the_author_changed(books):
    publish(sketch())
    second = publish(sketch(title="A Sketch, Revised", state="published"))
    diff = release_changes(release=second)
    assert "-title: A Sketch\n+title: A Sketch, Revised\n" in diff
    assert "_html" not in diff and "derived" not in diff
    assert sum(line.startswith(("+", "-")) for line in diff.splitlines()) == 4


def test_the_admin_release_page_shows_the_changes(books, client, erin):
    release = publish(sketch())
    client.force_login(erin)
    page = client.get(reverse("admin:curriculum_release_change", args=[release.pk]))
    assert page.status_code == 200
    assert "+title: A Sketch" in page.content.decode()
