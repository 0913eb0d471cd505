"""An admin save and another write of the same working copy at once (an If-Match PUT, an edit of
a problem; PostgreSQL, real threads): each names the version it read, checked again under the
chapter lock as it writes, so whichever commits second is refused and writes nothing of its own."""

import json
import threading
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from curriculum.domain.chapter_files import importing
from curriculum.domain.editing import ProblemSave
from curriculum.domain.tokens import token_issue
from curriculum.domain.working_copy import SourceChanged
from curriculum.models import Chapter, Problem, StrandItem, validators
from tests.conftest import sketch
from tests.curriculum.admin.test_books_chapters import change_url, resubmitted, shown_errors
from tests.curriculum.domain.test_gate_concurrency import in_thread

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks"),
    pytest.mark.django_db(transaction=True),
]

ITEMS = 6


class Pause:
    """Holds the first call whose text carries `marker` until the test lets it go; a refused
    save answered again (or any other call) passes straight through."""

    def __init__(self, function, marker: str):
        self.function, self.marker = function, marker
        self.reached, self.go = threading.Event(), threading.Event()

    def __call__(self, text, *args, **kwargs):
        if self.marker in text and not self.reached.is_set():
            self.reached.set()
            assert self.go.wait(30), "the test never let the paused writer go"
        return self.function(text, *args, **kwargs)


@pytest.fixture
def chapter(books_committed):
    document = sketch()
    document["strands"]["basics"]["items"] = [
        {"title": f"Word {i}", "body": f"Means $x_{i}$.", "published": True} for i in range(ITEMS)
    ]
    importing.chapter_import(document=document)
    return Chapter.objects.get(code="II.7")


@pytest.fixture
def api(erin):
    return api_writer(erin, "II.7")


def api_writer(user, code: str):
    """The user's token, on a client of its own (the admin's runs in another thread): read the
    chapter's source with its ETag, and PUT a document If-Match an ETag."""
    client = Client()
    token = {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=user, name='race')[1]}"}

    def source():
        read = client.get(
            f"/api/v1/chapters/{code}/source", HTTP_ACCEPT="application/json", **token
        )
        return read.json(), read["ETag"]

    def put(document, etag):
        return client.put(
            f"/api/v1/chapters/{code}",
            json.dumps(document),
            content_type="application/json",
            HTTP_IF_MATCH=etag,
            **token,
        )

    return source, put


@pytest.fixture
def page(chapter, erin):
    """The chapter page as Erin opened it, every strand item edited (as an author adding
    formulas to each does), ready to send."""
    client = Client()
    client.force_login(erin)
    data = resubmitted(client.get(change_url(chapter))) | {"thesis": "Thesis from the page."}
    for i in range(ITEMS):
        data[f"strand_items-{i}-body"] = f"Now means $y_{i}$."
    return client, data


def strand_titles(chapter) -> list[str]:
    return list(StrandItem.objects.filter(chapter=chapter).values_list("title", flat=True))


def test_an_admin_save_whose_validation_an_if_match_put_overtook_is_refused_and_writes_nothing(
    chapter, api, page, monkeypatch
):
    """The PUT commits while the admin's save is still validating its inline rows: the admin
    save, checked again under the lock, is refused with its reason; the API's thesis stays and
    no stale strand item comes back beside the API's."""
    source, put = api
    document, etag = source()
    client, data = page
    data[f"strand_items-{ITEMS - 1}-body"] = "Paused here $z$."
    pause = Pause(validators.markup_errors, "Paused here")
    monkeypatch.setattr(validators, "markup_errors", pause)  # what checks each text's formulas

    finished, outcome = in_thread(lambda: client.post(change_url(chapter), data))
    assert pause.reached.wait(30), "the admin save never reached its validation"
    written = put(document | {"thesis": "Thesis from the API."}, etag)
    assert written.status_code == 200, written.content
    pause.go.set()
    assert finished.wait(60)

    refused = outcome[0]
    assert not isinstance(refused, Exception), refused
    assert refused.status_code == 200  # the page again, not a redirect to the list
    assert "Someone changed this since you opened it" in shown_errors(refused)
    chapter.refresh_from_db()
    assert chapter.thesis == "Thesis from the API."
    assert strand_titles(chapter) == [f"Word {i}" for i in range(ITEMS)]
    assert not StrandItem.objects.filter(chapter=chapter, body__startswith="Now means").exists()


def held(checked, reached: threading.Event, go: threading.Event):
    """The importer's validation, paused once its document is checked (before any lock)."""

    @contextmanager
    def paused(*args, **kwargs):
        with checked(*args, **kwargs) as clean:
            reached.set()
            assert go.wait(30), "the test never let the paused PUT go"
            yield clean

    return paused


def test_an_if_match_put_whose_validation_an_admin_save_overtook_gets_412_and_writes_nothing(
    chapter, api, page, monkeypatch
):
    source, put = api
    document, etag = source()
    client, data = page
    reached, go = threading.Event(), threading.Event()
    monkeypatch.setattr(importing, "chapter_checked", held(importing.chapter_checked, reached, go))
    finished, outcome = in_thread(lambda: put(document | {"thesis": "Thesis from the API."}, etag))
    assert reached.wait(30), "the PUT never reached its validation"
    saved = client.post(change_url(chapter), data)
    assert saved.status_code == 302, shown_errors(saved)
    go.set()
    assert finished.wait(60)

    assert outcome[0].status_code == 412, outcome[0].content
    chapter.refresh_from_db()
    assert chapter.thesis == "Thesis from the page."
    assert strand_titles(chapter) == [f"Word {i}" for i in range(ITEMS)]
    assert StrandItem.objects.filter(chapter=chapter, body__startswith="Now means").count() == ITEMS


def test_a_problem_page_save_whose_validation_another_edit_overtook_is_refused(
    chapter, erin, monkeypatch
):
    """The same on a problem's own page: the statement changed elsewhere while the page's save
    was being validated stays as that writer left it."""
    problem = Problem.objects.get(chapter=chapter, key="p1")
    url = reverse("admin:curriculum_problem_change", args=[problem.pk])
    client = Client()
    client.force_login(erin)
    data = resubmitted(client.get(url)) | {"statement": "Paused here: the softmax of $s$."}
    pause = Pause(validators.markup_errors, "Paused here")
    monkeypatch.setattr(validators, "markup_errors", pause)

    finished, outcome = in_thread(lambda: client.post(url, data))
    assert pause.reached.wait(30), "the problem page's save never reached its validation"
    problem.statement = "Changed elsewhere: the softmax of $s$."
    ProblemSave(problem=problem).execute()
    pause.go.set()
    assert finished.wait(60)

    assert outcome[0].status_code == 200, outcome[0]
    assert "Someone changed this since you opened it" in shown_errors(outcome[0])
    problem.refresh_from_db()
    assert problem.statement == "Changed elsewhere: the softmax of $s$."


def test_a_save_refused_under_the_lock_each_time_it_is_answered_opens_the_page_afresh(
    chapter, page, monkeypatch
):
    """Should other writers slip in before the form's check twice running, the author gets the
    page as it now is and a message, never an error page."""
    import curriculum.admin.books_chapters

    def changed_again(**kwargs):
        raise SourceChanged("the working copy changed since that version was read")

    monkeypatch.setattr(curriculum.admin.books_chapters, "working_copy_require", changed_again)
    client, data = page
    answered = client.post(change_url(chapter), data, follow=True)
    assert answered.status_code == 200
    assert "Someone changed this while you were saving it; nothing was saved." in (
        answered.content.decode()
    )
    chapter.refresh_from_db()
    assert chapter.thesis == "A claim."
