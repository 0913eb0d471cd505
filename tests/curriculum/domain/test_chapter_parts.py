"""A chapter holds at most LIMIT_CHAPTER_PARTS parts (strand items, figures, apparatus links,
notation, propositions and problems together), whoever writes it: a file, the API, admin's
chapter page or its problem page; so every chapter fits admin's one form."""

import json
from unittest import mock

import pytest
import yaml
from django.urls import reverse

from curriculum.domain import markup
from curriculum.domain.chapter_files import ChapterFileError, chapter_import, file_import
from curriculum.domain.tokens import token_issue
from curriculum.models import Chapter, Problem, StrandItem
from tests.conftest import sketch
from tests.curriculum.admin.test_books_chapters import resubmitted, shown_errors
from tests.curriculum.admin.test_problems import add_url, new_problem

PARTS = "(strand items, figures, apparatus links, notation, propositions and problems together)"


@pytest.fixture
def author(client, alice):
    client.force_login(alice)
    return client


def change_url(chapter):
    return reverse("admin:curriculum_chapter_change", args=[chapter.pk])


def with_items(count: int) -> dict:
    """The sketch (three problems) with `count` basics items, each with a formula."""
    document = sketch()
    document["strands"]["basics"]["items"] = [
        {"title": f"Item {i}", "body": f"What $y_{{{i}}}$ means.", "published": True}
        for i in range(count)
    ]
    return document


def test_a_file_with_more_parts_than_the_limit_is_refused_before_its_parts_are_checked(
    books, settings
):
    settings.LIMIT_CHAPTER_PARTS = 10
    with (
        mock.patch.object(markup.katex, "_katex", wraps=markup.katex._katex) as katex,
        pytest.raises(ChapterFileError) as refused,
    ):
        file_import(text=yaml.safe_dump(with_items(8), sort_keys=False))
    assert refused.value.errors == [
        f"top level: the chapter would hold 11 parts {PARTS}; at most 10 (LIMIT_CHAPTER_PARTS): "
        "split the chapter"
    ]
    assert katex.call_count == 0
    assert not Chapter.objects.filter(code="II.7").exists()


def test_a_file_at_the_limit_imports(books, settings):
    settings.LIMIT_CHAPTER_PARTS = 10
    file_import(text=yaml.safe_dump(with_items(7), sort_keys=False))
    assert StrandItem.objects.filter(chapter__code="II.7").count() == 7


def test_the_api_refuses_a_chapter_past_the_limit_with_422(books, client, alice, settings):
    settings.LIMIT_CHAPTER_PARTS = 10
    token = token_issue(user=alice, name="alice laptop")[1]
    refused = client.put(
        "/api/v1/chapters/II.7",
        json.dumps(with_items(8)),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert refused.status_code == 422
    assert refused.json()["errors"] == [
        {
            "pointer": "",
            "code": "limit",
            "detail": f"the chapter would hold 11 parts {PARTS}; at most 10 "
            "(LIMIT_CHAPTER_PARTS): split the chapter",
        }
    ]


def added_items(data: dict, count: int, first: int) -> dict:
    """The chapter page's strand items with `count` more, as "Add another" fills them in."""
    for i in range(first, first + count):
        data |= {
            f"strand_items-{i}-strand": "basics",
            f"strand_items-{i}-title": f"New {i}",
            f"strand_items-{i}-body": "",
            f"strand_items-{i}-position": "9",
        }
    data["strand_items-TOTAL_FORMS"] = str(first + count)
    return data


def test_the_chapter_page_cannot_grow_a_chapter_past_the_limit(books, author, settings):
    chapter_import(document=with_items(1))  # four parts
    settings.LIMIT_CHAPTER_PARTS = 5
    chapter = Chapter.objects.get(code="II.7")
    page = author.get(change_url(chapter))
    refused = author.post(change_url(chapter), added_items(resubmitted(page), 2, first=1))
    assert refused.status_code == 200
    assert (
        f"The chapter would hold 6 parts {PARTS}; at most 5 (LIMIT_CHAPTER_PARTS): split the "
        "chapter"
    ) in shown_errors(refused)
    assert chapter.strand_items.count() == 1
    saved = author.post(change_url(chapter), added_items(resubmitted(page), 1, first=1))
    assert saved.status_code == 302, shown_errors(saved)
    assert chapter.strand_items.count() == 2


def test_the_chapter_page_still_saves_a_chapter_stored_past_the_limit_that_it_does_not_grow(
    books, author, settings
):
    """Stored before the limit was lowered: it is edited, and shrunk, as before."""
    chapter_import(document=with_items(2))  # five parts
    settings.LIMIT_CHAPTER_PARTS = 3
    chapter = Chapter.objects.get(code="II.7")
    data = resubmitted(author.get(change_url(chapter))) | {
        "thesis": "Edited.",
        "strand_items-0-DELETE": "on",
    }
    saved = author.post(change_url(chapter), data)
    assert saved.status_code == 302, shown_errors(saved)
    chapter.refresh_from_db()
    assert chapter.thesis == "Edited." and chapter.strand_items.count() == 1


def test_a_problem_cannot_be_added_to_a_chapter_at_the_limit(books, author, settings):
    chapter_import(document=with_items(1))  # four parts
    chapter = Chapter.objects.get(code="II.7")
    settings.LIMIT_CHAPTER_PARTS = 4
    data = new_problem(author, chapter, key="p9")
    refused = author.post(add_url(chapter), data)
    assert refused.status_code == 200
    assert (
        f"II.7 would hold 5 parts {PARTS}; at most 4 (LIMIT_CHAPTER_PARTS): split the chapter"
    ) in shown_errors(refused)
    assert not Problem.objects.filter(chapter=chapter, key="p9").exists()
    settings.LIMIT_CHAPTER_PARTS = 5
    saved = author.post(add_url(chapter), data)
    assert saved.status_code == 302, shown_errors(saved)
    assert Problem.objects.filter(chapter=chapter, key="p9").exists()
