"""A chapter holds at most LIMIT_CHAPTER_PARTS parts (strand items, figures, apparatus links,
notation, propositions and problems together), whoever writes it."""

import json
from unittest import mock

import pytest
import yaml

from curriculum.domain import markup
from curriculum.domain.chapter_files import ChapterFileError, file_import
from curriculum.domain.tokens import token_issue
from curriculum.models import Chapter, StrandItem
from tests.conftest import sketch

PARTS = "(strand items, figures, apparatus links, notation, propositions and problems together)"


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
        mock.patch.object(markup, "_katex", wraps=markup._katex) as katex,
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
        f"top level: the chapter would hold 11 parts {PARTS}; at most 10 (LIMIT_CHAPTER_PARTS): "
        "split the chapter"
    ]
