"""Two writers of one chapter: its admin page and an If-Match API PUT, in both orders (PostgreSQL,
real threads where they overlap). Whichever commits second is refused with the right reason,
"Someone changed this since you opened it" on the page (never an inline row's "Figure with this
Chapter and Label already exists", which testers were shown after a PUT rewrote the rows) or
412 from the API, and nothing of the first writer's edit is lost."""

import threading

import pytest
from django.db import connection
from django.test import Client

from curriculum.admin.conflicts import OPENED_CHANGED
from curriculum.domain.chapter_files import chapter_import, chapter_source, importing
from curriculum.domain.gate import ChapterPublish
from curriculum.models import Chapter, Figure, validators
from tests.conftest import verify_now
from tests.curriculum.admin.test_books_chapters import change_url, resubmitted, shown_errors
from tests.curriculum.admin.test_saves_capacity import browser_form
from tests.curriculum.domain.test_gate_concurrency import in_thread
from tests.curriculum.domain.test_working_copy import Pause, api_writer, held

pytestmark = pytest.mark.django_db(transaction=True)
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks")

FIGURE = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle r="4"/></svg>'


@pytest.fixture
def api(erin):
    return api_writer(erin, "II.3")


@pytest.fixture
def chapter(seeded_committed):
    """II.3 with a figure besides its apparatus link, notation and propositions: every kind of
    row a PUT deletes and writes anew."""
    document = chapter_source(code="II.3")
    document["figures"] = [
        {"label": "1", "caption": "A circle.", "alt": "A circle.", "svg": FIGURE}
    ]
    chapter_import(document=document)
    return Chapter.objects.get(code="II.3")


def page_of(chapter, erin) -> tuple[Client, dict]:
    """Erin's chapter page as opened, with her edit of the title and of the figure's caption."""
    client = Client()
    client.force_login(erin)
    data = resubmitted(client.get(change_url(chapter)))
    data |= {"title": "Title from the page", "figures-0-caption": "Caption from the page."}
    return client, data


def only_the_conflict_is_shown(page) -> None:
    assert page.status_code == 200  # the page again, the author's text kept in it
    errors = shown_errors(page)
    assert OPENED_CHANGED in errors.replace("&#x27;", "'")
    for misleading in ("already exists", "Select a valid choice", "This field is required"):
        assert misleading not in errors, errors
    assert "Title from the page" in page.content.decode()


def api_edit_kept(chapter) -> None:
    chapter.refresh_from_db()
    assert chapter.summary == "Summary from the API." and chapter.title != "Title from the page"
    assert list(Figure.objects.filter(chapter=chapter).values_list("caption", flat=True)) == [
        "A circle."
    ]


def page_edit_kept(chapter) -> None:
    chapter.refresh_from_db()
    assert chapter.title == "Title from the page" and chapter.summary != "Summary from the API."
    assert Figure.objects.get(chapter=chapter).caption == "Caption from the page."


def test_a_page_saved_after_a_put_is_refused_with_the_conflict_alone(chapter, api, erin):
    source, put = api
    document, etag = source()
    client, data = page_of(chapter, erin)
    assert put(document | {"summary": "Summary from the API."}, etag).status_code == 200

    only_the_conflict_is_shown(client.post(change_url(chapter), data))
    api_edit_kept(chapter)


def test_a_put_after_a_page_saved_gets_412(chapter, api, erin):
    source, put = api
    document, etag = source()
    client, data = page_of(chapter, erin)
    saved = client.post(change_url(chapter), data)
    assert saved.status_code == 302, shown_errors(saved)

    refused = put(document | {"summary": "Summary from the API."}, etag)
    assert refused.status_code == 412, refused.content
    page_edit_kept(chapter)


def test_a_row_the_page_listed_that_a_put_replaced_is_the_conflict_too(chapter, api, erin):
    """A PUT that leaves the document as it was still writes every row anew: the page's rows
    are gone, which is the same news (not "Figure ... already exists")."""
    source, put = api
    document, etag = source()
    client, data = page_of(chapter, erin)
    assert put(document, etag).status_code == 200

    only_the_conflict_is_shown(client.post(change_url(chapter), data))
    assert Figure.objects.get(chapter=chapter).caption == "A circle."


@on_postgresql
def test_a_page_save_overtaken_by_a_put_while_validating_is_refused(
    chapter, api, erin, monkeypatch
):
    source, put = api
    document, etag = source()
    client, data = page_of(chapter, erin)
    data["figures-0-caption"] = "Paused here $z$."
    pause = Pause(validators.markup_errors, "Paused here")
    monkeypatch.setattr(validators, "markup_errors", pause)

    finished, outcome = in_thread(lambda: client.post(change_url(chapter), data))
    assert pause.reached.wait(30), "the page's save never reached its validation"
    assert put(document | {"summary": "Summary from the API."}, etag).status_code == 200
    pause.go.set()
    assert finished.wait(60)

    assert not isinstance(outcome[0], Exception), outcome[0]
    only_the_conflict_is_shown(outcome[0])
    api_edit_kept(chapter)


@on_postgresql
def test_a_put_overtaken_by_a_page_save_while_validating_gets_412(chapter, api, erin, monkeypatch):
    source, put = api
    document, etag = source()
    client, data = page_of(chapter, erin)
    reached, go = threading.Event(), threading.Event()
    monkeypatch.setattr(importing, "chapter_checked", held(importing.chapter_checked, reached, go))

    finished, outcome = in_thread(
        lambda: put(document | {"summary": "Summary from the API."}, etag)
    )
    assert reached.wait(30), "the PUT never reached its validation"
    saved = client.post(change_url(chapter), data)
    assert saved.status_code == 302, shown_errors(saved)
    go.set()
    assert finished.wait(60)

    assert outcome[0].status_code == 412, outcome[0].content
    page_edit_kept(chapter)


@pytest.mark.parametrize(
    "change, said",
    [
        ({"thesis": "<b>bold</b>"}, "raw HTML"),
        ({"title": "T" * 300}, "at most 200 characters"),
    ],
)
def test_a_refused_field_is_said_alone_when_nobody_else_wrote(chapter, erin, change, said):
    """With no other writer, a field the form refuses is the only error: the page never says
    someone changed the chapter, which would send the author away from their edit. The page
    as a browser posts it: its releases are listed, never posted back (a tester was told of a
    change on every refused field of a released chapter)."""
    verify_now(chapter)
    ChapterPublish(chapter=chapter, user=erin).execute()
    client = Client()
    client.force_login(erin)
    data = browser_form(client.get(change_url(chapter))) | change

    page = client.post(change_url(chapter), data)

    assert page.status_code == 200
    errors = shown_errors(page).replace("&#x27;", "'")
    assert said in errors
    assert OPENED_CHANGED not in errors
