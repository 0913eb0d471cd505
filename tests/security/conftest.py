"""A hostile author's chapter, and the pages every test checks still answer afterwards."""

import pytest
from django.test import Client

from curriculum.domain.chapter_files import chapter_import
from curriculum.models import Chapter
from tests.conftest import sketch

SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{}</svg>'


def deep_svg(depth: int) -> str:
    return SVG.format("<g>" * depth + '<rect width="1" height="1"/>' + "</g>" * depth)


@pytest.fixture(autouse=True)
def generous_rate(settings):
    settings.API_ANON_RATE = "100000/min"


@pytest.fixture
def root(db, django_user_model):
    return django_user_model.objects.create_superuser("root", password="root-pass-9")


@pytest.fixture
def chapter(books) -> Chapter:
    """II.7: an in-progress chapter with one plain figure, as an honest author made it."""
    document = sketch("II.7")
    document["figures"] = [
        {
            "label": "1",
            "caption": "A square.",
            "alt": "a square",
            "svg": SVG.format('<rect width="4" height="4"/>'),
        }
    ]
    chapter_import(document=document)
    return Chapter.objects.get(code="II.7")


def every_page_answers(chapter: Chapter, root) -> dict[str, int]:
    """Status of each page that shows the chapter: public, JSON, staff preview, admin change."""
    anonymous, staff = Client(), Client()
    staff.force_login(root)
    code = chapter.code
    return {
        "page": anonymous.get(f"/chapters/{code}/").status_code,
        "json": anonymous.get(f"/api/v1/chapters/{code}").status_code,
        "book": anonymous.get(f"/books/{chapter.book.numeral}/").status_code,
        "home": anonymous.get("/").status_code,
        "preview": staff.get(f"/chapters/{code}/?preview=1").status_code,
        "admin": staff.get(f"/admin/curriculum/chapter/{chapter.pk}/change/").status_code,
    }


ALL_200 = dict.fromkeys(["page", "json", "book", "home", "preview", "admin"], 200)


@pytest.fixture
def alice_token(alice) -> dict:
    from curriculum.domain.tokens import token_issue

    return {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=alice, name='laptop')[1]}"}
