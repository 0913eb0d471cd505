"""Admin saves every chapter the importer accepts, within the server's timeout: a chapter at
the importer's limits fits one form (DATA_UPLOAD_MAX_* are derived from those limits), a save
typesets all its formulas in one KaTeX run as an import does, and a form past the limits is told
which one it passed."""

import re
import time
from unittest import mock
from urllib.parse import urlencode

import pytest
import yaml
from django.conf import settings
from django.urls import reverse

from curriculum.domain import markup
from curriculum.domain.chapter_files import chapter_import, file_import
from curriculum.domain.gate import ChapterPublish
from curriculum.models import Chapter, Problem, StrandItem
from tests.conftest import sketch, verify_now
from tests.curriculum.admin.test_books_chapters import resubmitted, shown_errors
from tests.curriculum.admin.test_problems import add_url, new_problem

GUNICORN_TIMEOUT = 60  # scripts/serve.sh's default: past it gunicorn kills the request (a 500)
SQUARE = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="4" height="4"/></svg>'
)
FORM = "application/x-www-form-urlencoded"  # what a browser sends the admin's forms as


@pytest.fixture
def author(client, alice):
    client.force_login(alice)
    return client


def change_url(chapter):
    return reverse("admin:curriculum_chapter_change", args=[chapter.pk])


def items(count: int) -> list[dict]:
    return [{"title": f"Item {i}", "body": "Means.", "published": True} for i in range(count)]


def chapter_with(basics: list[dict], **overrides) -> Chapter:
    document = sketch(**overrides)
    document["strands"]["basics"]["items"] = basics
    chapter_import(document=document)
    return Chapter.objects.get(code="II.7")


def page_fields(page) -> list[str]:
    """The name of every field of the page's form (not the logout button's), as the HTML has it."""
    form = page.content.decode().split('id="chapter_form"', 1)[1].split("</form>", 1)[0]
    return re.findall(r'<(?:input|textarea|select)\b[^>]*\bname="([^"]+)"', form)


def browser_form(page) -> dict:
    """What a browser posts back from the page: the fields it shows, the empty rows that "Add
    another" copies included."""
    names = page_fields(page)
    return {name: "" for name in names if "__prefix__" in name} | {
        name: value for name, value in resubmitted(page).items() if name in names
    }


def test_a_chapter_with_as_many_parts_as_a_file_may_hold_saves_from_its_page(books, author):
    parts = settings.LIMIT_CHAPTER_PARTS  # the sketch's three problems and the rest items
    chapter = chapter_with(items(parts - 3))
    data = browser_form(author.get(change_url(chapter))) | {"thesis": "Saved from a full page."}
    saved = author.post(change_url(chapter), data)
    assert saved.status_code == 302, shown_errors(saved)
    chapter.refresh_from_db()
    assert chapter.thesis == "Saved from a full page."
    assert chapter.strand_items.count() + chapter.problems.count() == parts


def test_the_field_limit_fits_a_chapter_of_its_widest_parts(books, author, erin):
    """DATA_UPLOAD_MAX_NUMBER_FIELDS is LIMIT_CHAPTER_PARTS of the widest row plus the page's
    own fields; releases are listed, not posted back, so they never count."""
    chapter = chapter_with(
        items(1),
        figures=[{"label": "1", "caption": "A square.", "alt": "A square.", "svg": SQUARE}],
        apparatus=["0.LA.01"],
        notation=[{"symbol": "d", "meaning": "Model width"}],
        propositions=[
            {
                "number": 1,
                "title": "One",
                "statement": "It holds.",
                "proof": "Clearly.",
                "proof_published": True,
            }
        ],
    )
    verify_now(chapter)
    ChapterPublish(chapter=chapter, user=erin).execute()
    names = page_fields(author.get(change_url(chapter)))
    rows: dict[str, int] = {}
    for name in names:
        if row := re.match(r"[a-z_]+-\d+-", name):
            rows[row.group()] = rows.get(row.group(), 0) + 1
    assert not [row for row in rows if row.startswith("releases-")]
    assert {row.split("-")[0] for row in rows} == {
        "strand_items",
        "figures",
        "apparatus_links",
        "notation",
        "propositions",
        "problems",
    }
    own = len(names) - sum(rows.values())
    widest = max(rows.values())
    assert widest * settings.LIMIT_CHAPTER_PARTS + own <= settings.DATA_UPLOAD_MAX_NUMBER_FIELDS


def test_a_browser_sends_a_files_text_in_at_most_six_bytes_a_byte_and_the_form_takes_it(
    books, author
):
    """DATA_UPLOAD_MAX_MEMORY_SIZE is 6 bytes for each of LIMIT_CHAPTER_FILE_BYTES, plus the
    fields' names: a line end costs a literal block's blank line one byte and a browser six (CRLF,
    percent-encoded), the most any byte of a file costs. A quarter of the file limit shows it
    (the whole would hold this test process, and every child it forks after, at some 550 MB)."""
    lines = settings.LIMIT_CHAPTER_FILE_BYTES // 4
    document = sketch()
    document["strands"]["basics"]["items"] = [{"title": "Long", "body": "BODY"}]
    body = "|-\n        a\n" + "\n" * (lines - 1) + "        b\n"
    text = yaml.safe_dump(document, sort_keys=False).replace("body: BODY\n", f"body: {body}")
    file_import(text=text)
    chapter = Chapter.objects.get(code="II.7")
    assert chapter.strand_items.get().body.count("\n") == lines
    data = browser_form(author.get(change_url(chapter))) | {"thesis": "Saved as sent."}
    sent = urlencode({k: str(v).replace("\n", "\r\n") for k, v in data.items()})
    assert 5.9 * len(text.encode()) < len(sent) < 6 * len(text.encode()) + 64 * len(data)
    assert len(sent) > 2.5 * 2**20  # Django's default DATA_UPLOAD_MAX_MEMORY_SIZE refused it
    fields = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    at_the_limit = 6 * settings.LIMIT_CHAPTER_FILE_BYTES + 64 * fields
    assert at_the_limit <= settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    saved = author.post(change_url(chapter), sent, content_type=FORM)
    assert saved.status_code == 302, shown_errors(saved)
    chapter.refresh_from_db()
    assert chapter.thesis == "Saved as sent."


def test_a_save_of_120_new_formulas_starts_katex_once_and_ends_well_within_the_timeout(
    books, author
):
    chapter = chapter_with(items(120))
    data = browser_form(author.get(change_url(chapter)))
    fresh = time.time_ns()  # formulas no cache has seen
    for i in range(120):
        data[f"strand_items-{i}-body"] = f"Item ${i} \\cdot x_{{{fresh}}}$ means."
    with mock.patch.object(markup.katex, "_katex", wraps=markup.katex._katex) as katex:
        started = time.perf_counter()
        saved = author.post(change_url(chapter), data)
        took = time.perf_counter() - started
    assert saved.status_code == 302, shown_errors(saved)
    assert katex.call_count == 1
    assert len(katex.call_args.args[0]) == 120
    assert took < GUNICORN_TIMEOUT / 3, f"the save took {took:.1f} s"
    assert StrandItem.objects.filter(chapter=chapter, body__contains=str(fresh)).count() == 120


def test_a_problem_save_typesets_its_statement_and_steps_in_one_katex_run(seeded, author):
    chapter = Chapter.objects.get(code="II.4")
    fresh = time.time_ns()
    data = new_problem(
        author,
        chapter,
        statement=f"With $h = {fresh}$ heads, compute it.",
        **{"solution-0-steps": f"Each head $x_{{{fresh}}}$ attends in its slice."},
    )
    with mock.patch.object(markup.katex, "_katex", wraps=markup.katex._katex) as katex:
        saved = author.post(add_url(chapter), data)
    assert saved.status_code == 302, shown_errors(saved)
    assert katex.call_count == 1
    assert Problem.objects.filter(chapter=chapter, statement__contains=str(fresh)).exists()


def test_a_form_with_more_fields_than_the_limit_is_told_why_not_given_a_bare_400(books, author):
    chapter = chapter_with(items(1))
    data = {f"field-{i}": "" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    refused = author.post(change_url(chapter), data)
    assert refused.status_code == 400
    text = refused.content.decode()
    assert f"more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields" in text
    assert "DATA_UPLOAD_MAX_NUMBER_FIELDS" in text and "LIMIT_CHAPTER_PARTS" in text
    assert "Nothing was saved" in text


def test_a_form_larger_than_the_limit_is_told_why_not_given_a_bare_400(books, author):
    chapter = chapter_with(items(1))
    sent = "thesis=" + "a" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    refused = author.post(change_url(chapter), sent, content_type=FORM)
    assert refused.status_code == 413  # Content Too Large, as a reader's past theirs
    text = refused.content.decode()
    assert f"more than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes" in text
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE" in text and "LIMIT_CHAPTER_FILE_BYTES" in text
    chapter.refresh_from_db()
    assert chapter.thesis == "A claim."
