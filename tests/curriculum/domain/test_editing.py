"""Every writer goes through one service per mutation: permissions, identity of released
chapters, LF text, and the admin's next key and verdict filter agree with the domain."""

import pytest
from django.urls import reverse

from curriculum.domain.chapter_files import ChapterFileError, chapter_import
from curriculum.domain.editing import ChapterSave, ChapterWithdraw, ProblemSave
from curriculum.domain.gate import PublishForbidden, chapter_publish
from curriculum.domain.releases import release_changes
from curriculum.domain.roles import Forbidden
from curriculum.domain.verification import fingerprint_store
from curriculum.models import Book, Chapter, Problem, Release, Solution
from tests.conftest import sketch, verify_now
from tests.curriculum.admin.test_books_chapters import change_url, resubmitted, shown_errors


@pytest.fixture
def released(books):
    chapter_import(document=sketch("II.7"))
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    chapter_publish(chapter=chapter)
    return Chapter.objects.get(code="II.7")


def test_an_author_cannot_rename_a_released_chapter_in_admin(released, client, alice):
    client.force_login(alice)
    data = resubmitted(client.get(change_url(released)))
    data.update(code="II.70", number="70")
    page = client.post(change_url(released), data)
    assert page.status_code == 200
    assert "code cannot change once the chapter has a release (it is II.7)" in shown_errors(page)
    assert client.get("/chapters/II.7/").status_code == 200
    assert not Chapter.objects.filter(code="II.70").exists()


def test_nobody_renames_a_released_chapter_through_the_service(released):
    released.code, released.number = "II.8", 8
    with pytest.raises(Exception, match="cannot change once the chapter has a release"):
        ChapterSave(chapter=released).execute()
    assert Chapter.objects.get(pk=released.pk).code == "II.7"


def test_a_released_book_0_entry_keeps_its_number_from_files(books):
    entry = Chapter.objects.get(code="0.LA.01")
    chapter_publish(chapter=entry)
    from curriculum.domain.chapter_files import chapter_export, load_yaml

    document = load_yaml(chapter_export(code="0.LA.01"))
    document["number"] = entry.number + 5
    with pytest.raises(ChapterFileError) as refused:
        chapter_import(document=document)
    assert any("the number cannot change" in error for error in refused.value.errors)
    assert Chapter.objects.get(code="0.LA.01").number == entry.number


def test_a_book_numeral_is_fixed_once_a_chapter_has_a_release(released):
    book = Book.objects.get(numeral="II")
    book.numeral = "XII"
    with pytest.raises(Exception, match="the numeral cannot change"):
        book.full_clean()


def test_released_history_cannot_be_deleted(released):
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError):
        released.delete()


def test_an_author_cannot_withdraw_in_any_writer(released, alice, client):
    with pytest.raises(PublishForbidden):
        ChapterWithdraw(chapter=released, user=alice).execute()
    with pytest.raises(PublishForbidden):
        chapter_import(document=sketch("II.7", state="draft"), user=alice)
    client.force_login(alice)
    url = reverse("admin:curriculum_chapter_changelist")
    client.post(url, {"action": "withdraw", "_selected_action": [released.pk]})
    assert Chapter.objects.get(pk=released.pk).state == "published"


def test_an_editor_withdraws_from_the_admin_list(released, erin, client):
    client.force_login(erin)
    url = reverse("admin:curriculum_chapter_changelist")
    client.post(url, {"action": "withdraw", "_selected_action": [released.pk]})
    assert Chapter.objects.get(pk=released.pk).state == "draft"
    client.logout()
    assert client.get("/chapters/II.7/").status_code == 404
    assert Release.objects.filter(chapter=released).count() == 1


def test_a_withdraw_keeps_an_edit_committed_since_its_chapter_was_read(released, erin):
    """The admin list reads its chapters before Withdraw takes the lock: a PUT that committed
    meanwhile keeps its text (a hostile test's PUT, answered 200, was undone by the list's
    Withdraw writing back the whole row it had read)."""
    listed = Chapter.objects.get(code="II.7")  # as the list read it
    chapter_import(document=sketch("II.7", thesis="Written meanwhile.", state="published"))
    ChapterWithdraw(chapter=listed, user=erin).execute()
    stored = Chapter.objects.get(code="II.7")
    assert (stored.state, stored.thesis) == ("draft", "Written meanwhile.")


def test_a_role_without_the_permission_is_refused_by_the_service(released, alice):
    alice.groups.clear()
    problem = Problem.objects.get(chapter=released, key="p1")
    with pytest.raises(Forbidden, match="change_problem"):
        ProblemSave(problem=problem, user=alice).execute()


def test_a_crlf_thesis_edit_from_admin_is_a_one_line_release_diff(released, client, erin):
    client.force_login(erin)
    data = resubmitted(client.get(change_url(released)))
    data["thesis"] = "A sharper claim.\r\nOn two lines."
    data["problem_statement"] = data["problem_statement"].replace("\n", "\r\n") + "\r\n"
    page = client.post(change_url(released), data)
    assert page.status_code == 302, shown_errors(page)
    chapter = Chapter.objects.get(pk=released.pk)
    assert "\r" not in chapter.thesis + chapter.problem_statement
    diff = release_changes(release=chapter_publish(chapter=chapter))
    changed = [
        line for line in diff.splitlines()[2:] if line[:1] in "+-" and not line.startswith("@@")
    ]
    assert changed == [
        "-thesis: A claim.",
        "+thesis: |-",
        "+  A sharper claim.",
        "+  On two lines.",
    ]


def test_the_next_key_comes_from_the_keys_that_exist(released, client, alice):
    Problem.objects.get(chapter=released, key="p2").delete()
    client.force_login(alice)
    page = client.get(f"{reverse('admin:curriculum_problem_add')}?chapter={released.pk}")
    assert page.context["adminform"].form.initial["key"] == "p4"


def test_the_verdict_filter_lists_a_stale_verdict_as_stale(released, client, alice):
    problem = Problem.objects.get(chapter=released, key="p1")
    Problem.objects.filter(pk=problem.pk).update(rtol=1e-4)  # content moved, verdict did not
    fingerprint_store(Solution.objects.select_related("problem").get(problem=problem))
    client.force_login(alice)
    url = reverse("admin:curriculum_problem_changelist")
    verified = client.get(url, {"verdict": "verified", "chapter__id__exact": released.pk})
    stale = client.get(url, {"verdict": "stale", "chapter__id__exact": released.pk})
    assert [p.key for p in verified.context["cl"].result_list] == ["p2", "p3"]
    assert [p.key for p in stale.context["cl"].result_list] == ["p1"]
