"""Every writer moves the revision of each chapter whose page or JSON it changes (and so its
ETag), in its own transaction; a Book 0 entry's change moves the chapters that lean on it."""

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from curriculum.domain.chapter_files import chapter_import
from curriculum.domain.editing import (
    BookSave,
    ChapterDelete,
    ChapterSave,
    ChapterWithdraw,
    ProblemDelete,
    ProblemSave,
    SolutionDelete,
)
from curriculum.domain.gate import chapter_publish
from curriculum.domain.reading import NotVisible, chapter_for_reader, chapter_freshness
from curriculum.domain.revisions import chapters_moved, chapters_revised
from curriculum.domain.search_index import search_index_sync
from curriculum.domain.verification import Reverify, verdict_decide
from curriculum.domain.writers import one_write
from curriculum.models import Book, Chapter, ChapterReference, Problem, Solution, StrandItem
from tests.conftest import sketch, verify_now
from tests.curriculum.admin.test_books_chapters import resubmitted


def etag(code: str = "II.7") -> str:
    return chapter_freshness(code=code, staff=True).tag


def retitle_book() -> None:
    book = Book.objects.get(numeral="II")
    book.title = "Attention, revised"
    BookSave(book=book).execute()


def edit_problem() -> None:
    problem = Problem.objects.filter(chapter__code="II.7").first()
    problem.statement = "Another statement."
    ProblemSave(problem=problem).execute()


def decide_a_verdict() -> None:
    verdict_decide(solution_id=Solution.objects.filter(problem__chapter__code="II.7")[0].pk)


WRITERS = {
    "import": lambda: chapter_import(document=sketch(thesis="Another claim.")),
    "chapter fields": lambda: ChapterSave(chapter=Chapter.objects.get(code="II.7")).execute(),
    "book fields": retitle_book,
    "problem": edit_problem,
    "solution deleted": lambda: SolutionDelete(
        problem=Problem.objects.filter(chapter__code="II.7", solution__isnull=False)[0]
    ).execute(),
    "problem deleted": lambda: ProblemDelete(
        problem=Problem.objects.filter(chapter__code="II.7")[0]
    ).execute(),
    "verification asked": lambda: Reverify(code="II.7").execute(),
    "verdict decided": decide_a_verdict,
}


@pytest.mark.parametrize("writer", WRITERS)
def test_each_writer_moves_the_chapter_s_version(books, writer):
    chapter_import(document=sketch(state="in_progress"))
    before = etag()
    WRITERS[writer]()
    assert etag() != before


def test_publishing_and_withdrawing_move_the_version(books, erin):
    chapter_import(document=sketch())
    verify_now(Chapter.objects.get(code="II.7"))
    before = etag()
    chapter_publish(chapter=Chapter.objects.get(code="II.7"), user=erin)
    released = etag()
    assert released != before
    ChapterWithdraw(chapter=Chapter.objects.get(code="II.7"), user=erin).execute()
    with pytest.raises(NotVisible):
        chapter_freshness(code="II.7")


def test_a_book_0_entry_moves_the_chapters_leaning_on_it_but_not_others(books):
    chapter_import(document=sketch("II.7", apparatus=["0.LA.01"]))
    chapter_import(document=sketch("II.8", apparatus=[]))
    leaning, other = etag("II.7"), etag("II.8")
    ChapterSave(chapter=Chapter.objects.get(code="0.LA.01")).execute()
    assert etag("II.7") != leaning and etag("II.8") == other
    leaning = etag("II.7")
    ChapterWithdraw(chapter=Chapter.objects.get(code="0.LA.01")).execute()
    assert etag("II.7") != leaning
    leaning = etag("II.7")
    ChapterSave(
        chapter=Chapter.objects.get(code="0.LA.01")
    ).execute()  # a draft's edit shows nowhere
    assert etag("II.7") == leaning


def test_a_verdict_s_move_of_a_book_0_entry_moves_its_leaners_and_their_index_alike(books):
    """A move that changes no searched text (a verdict asked for or decided) moves the chapters
    leaning on the entry too, each with its index entry: the index stays as current as it was."""
    chapter_import(document=sketch("II.7", apparatus=["0.LA.01"]))
    chapter_import(document=sketch("II.8", apparatus=[]))
    search_index_sync()
    leaning, other = etag("II.7"), etag("II.8")
    chapters_moved({Chapter.objects.get(code="0.LA.01").pk}, searched=False)
    assert etag("II.7") != leaning and etag("II.8") == other
    assert search_index_sync() == 0


def test_an_admin_save_of_an_inline_moves_the_version(client, books, alice):
    chapter_import(document=sketch(state="in_progress"))
    client.force_login(alice)
    chapter = Chapter.objects.get(code="II.7")
    url = reverse("admin:curriculum_chapter_change", args=[chapter.pk])
    data = resubmitted(client.get(url))
    item = StrandItem.objects.filter(chapter=chapter).order_by("pk").first()
    title = next(k for k, v in data.items() if k.endswith("-title") and v == item.title)
    data[title] = "Retitled in the admin"
    before = etag()
    assert client.post(url, data).status_code == 302
    assert StrandItem.objects.get(pk=item.pk).title == "Retitled in the admin"
    assert etag() != before


def test_a_release_stops_linking_a_book_0_entry_withdrawn_since_and_its_tag_moves(
    client, books, erin
):
    """A release's text is fixed, but a link to an entry readers can no longer open is a 404:
    the release drops it (page and JSON), its ETag moves, and it links the entry again once
    the entry is shown again."""
    chapter_import(document=sketch("II.7", apparatus=["0.LA.01"]))
    verify_now(Chapter.objects.get(code="II.7"))
    chapter_publish(chapter=Chapter.objects.get(code="II.7"), user=erin)
    page, api = "/chapters/II.7/", "/api/v1/chapters/II.7"
    releases = ("/chapters/II.7/releases/1/", "/api/v1/chapters/II.7/releases/1")

    def links() -> list[bool]:
        return [
            'href="/chapters/0.LA.01/"' in client.get(page).content.decode(),
            [e["code"] for e in client.get(api).json()["apparatus"]] == ["0.LA.01"],
            *("0.LA.01" in client.get(release).content.decode() for release in releases),
        ]

    assert links() == [True] * 4
    tags = {url: client.get(url)["ETag"] for url in (page, api, releases[1])}
    entry = Chapter.objects.get(code="0.LA.01")
    ChapterWithdraw(chapter=entry, user=erin).execute()
    assert links() == [False] * 4
    for url, tag in tags.items():
        assert client.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 200, url
    entry.refresh_from_db()
    entry.state = Chapter.State.IN_PROGRESS
    ChapterSave(chapter=entry, user=erin).execute()
    assert links() == [True] * 4


@pytest.fixture
def announced():
    """The chapters each `chapters_revised` names, by code, in the order sent."""
    sent: list[list[str]] = []

    def heard(sender, chapter_ids, **kwargs):
        codes = Chapter.objects.filter(pk__in=chapter_ids).values_list("code", flat=True)
        sent.append(sorted(codes))

    chapters_revised.connect(heard)
    yield sent
    chapters_revised.disconnect(heard)


def test_an_import_is_announced_once_however_often_it_moves_its_chapter(
    books, committed, announced
):
    """Its parts, then its problems: the index, the history and the claims hear of it once."""
    committed(lambda: chapter_import(document=sketch()))
    assert announced == [["II.7"]]
    committed(lambda: chapter_import(document=sketch(thesis="Another claim.")))
    assert announced == [["II.7"], ["II.7"]]


def test_a_move_after_a_savepoint_rolled_back_is_still_announced(books, committed, announced):
    chapter_import(document=sketch("II.7"))
    chapter_import(document=sketch("II.8"))
    ii7, ii8 = (Chapter.objects.get(code=code).pk for code in ("II.7", "II.8"))

    def write():
        with one_write():
            with transaction.atomic():  # its announcement is discarded with it
                chapters_moved({ii7})
                transaction.set_rollback(True)
            chapters_moved({ii8})

    committed(write)
    assert announced == [["II.8"]]


def test_a_chapter_naming_another_moves_whenever_the_named_one_does(
    books, erin, django_capture_on_commit_callbacks
):
    """A hostile round saw II.73's page and JSON (304 to the old ETag) keep @II.75's old
    title and its first release's address after II.75 was retitled and released again, and a
    link to a withdrawn entry: a page naming a chapter moves whenever that chapter does."""
    with django_capture_on_commit_callbacks(execute=True):
        chapter_import(document=sketch("II.8", title="Named"))
        chapter_import(document=sketch("II.7", summary="See @II.8 and @II.8/problem:p1."))
        chapter_import(document=sketch("II.9"))
    naming, other = etag("II.7"), etag("II.9")

    named = Chapter.objects.get(code="II.8")
    named.title = "Named again"
    with django_capture_on_commit_callbacks(execute=True):
        ChapterSave(chapter=named).execute()
    assert etag("II.7") != naming and etag("II.9") == other
    assert "II.8 Named again" in chapter_for_reader(code="II.7").snapshot["summary_html"]

    naming = etag("II.7")
    verify_now(named)
    chapter_publish(chapter=Chapter.objects.get(code="II.8"), user=erin)
    assert etag("II.7") != naming
    linked = chapter_for_reader(code="II.7").snapshot["summary_html"]
    assert reverse("site:release", args=["II.8", 1]) in linked

    naming = etag("II.7")
    ChapterWithdraw(chapter=Chapter.objects.get(code="II.8"), user=erin).execute()
    assert etag("II.7") != naming and etag("II.9") == other


def test_which_chapters_a_chapter_names_is_stored_on_migrate_for_an_older_database(
    books, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        chapter_import(document=sketch("II.8"))
        chapter_import(document=sketch("II.7", thesis="As @II.8 shows."))
    stored = set(ChapterReference.objects.values_list("chapter__code", "target__code"))
    assert stored == {("II.7", "II.8")}
    ChapterReference.objects.all().delete()  # a database from before the record
    call_command("migrate", verbosity=0)
    assert set(ChapterReference.objects.values_list("chapter__code", "target__code")) == stored


def test_a_chapter_naming_one_deleted_moves(books, erin, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        chapter_import(document=sketch("II.8"))
        chapter_import(document=sketch("II.7", thesis="As @II.8 shows."))
    naming = etag("II.7")
    ChapterDelete(chapter=Chapter.objects.get(code="II.8"), user=erin).execute()
    assert etag("II.7") != naming
    assert "/chapters/II.8/" not in chapter_for_reader(code="II.7").snapshot["thesis_html"]
