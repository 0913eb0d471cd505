"""A book's description is Markdown, typeset where readers meet the book (it had been shown as
its source), and holds no claim: nothing checks one there, so none is shown as checked."""

import re

import pytest
import yaml
from django.core.exceptions import ValidationError

from curriculum.domain.chapter_files import ChapterFileError, file_import
from curriculum.domain.descriptions import CLAIMS_REFUSED
from curriculum.models import Book

pytestmark = pytest.mark.django_db

CLAIM = "Half each: {{ 0.5 = softmax(scores=[0, 0]).out[0] }}."


def book_file(description: str) -> str:
    book = {"numeral": "II", "title": "Attention", "slug": "attention", "description": description}
    return yaml.safe_dump({"books": [book]})


def shown(client, path: str) -> str:
    """Book II's description on a page, as served (the home page shows Book 0's first)."""
    page = client.get(path).content.decode()
    page = page[page.index("Attention") :] if path == "/" else page
    found = re.search(r'<div class="book-description">(.*?)</div>', page, re.DOTALL)
    assert found, page
    return found[1]


def test_a_description_is_typeset_on_the_home_page_and_the_books(client, books):
    file_import(text=book_file(r"How a position *gathers* what others hold: $QK^\top$."))
    for path in ("/", "/books/II/"):
        description = shown(client, path)
        assert "<em>gathers</em>" in description and "<math" in description
        assert "*gathers*" not in description and "$" not in description
    [book] = [b for b in client.get("/api/v1/books").json()["items"] if b["numeral"] == "II"]
    assert book["description"].startswith("How a position *gathers*")
    assert book["description_html"] == shown(client, "/books/II/")


@pytest.mark.parametrize(
    ("written", "why"),
    [
        (CLAIM, CLAIMS_REFUSED),
        ("Read <script>alert(1)</script> first.", "raw HTML `<script>` is not shown"),
        (r"Broken $\frac{$ formula.", r"formula $\frac{$ does not parse"),
    ],
)
def test_a_description_that_would_not_show_as_written_is_refused_and_nothing_written(
    books, written, why
):
    before = Book.objects.values_list("description", flat=True).get(numeral="II")
    with pytest.raises(ChapterFileError) as refused:
        file_import(text=book_file(written))
    assert any(e.startswith(f"books[0].description: {why}") for e in refused.value.errors), (
        refused.value.errors
    )
    assert Book.objects.values_list("description", flat=True).get(numeral="II") == before


def test_admin_refuses_a_claim_in_a_description_on_its_field(books):
    """Admin's form cleans the book, the field's validator with it (and `BookSave` again)."""
    book = Book.objects.get(numeral="II")
    book.description = CLAIM
    with pytest.raises(ValidationError) as refused:
        book.full_clean()
    assert refused.value.message_dict["description"] == [CLAIMS_REFUSED]


def test_a_description_stored_before_the_rule_is_shown_as_written_never_marked_checked(
    client, books
):
    Book.objects.filter(numeral="II").update(description=f"{CLAIM} <b>bold</b>")
    for path in ("/", "/books/II/"):
        description = shown(client, path)
        assert description == (
            "<p>Half each: {{ 0.5 = softmax(scores=[0, 0]).out[0] }}. &lt;b&gt;bold&lt;/b&gt;</p>"
        )


def test_a_description_past_its_limits_is_refused_naming_the_limit(books, settings):
    """The home page shows every book's description: each is bounded in length, before KaTeX
    runs on it, and as typeset."""
    settings.LIMIT_DESCRIPTION_CHARS = 40
    with pytest.raises(ChapterFileError) as refused:
        file_import(text=book_file("x" * 41))
    assert refused.value.errors == [
        "books[0].description: is 41 characters long; at most 40 (LIMIT_DESCRIPTION_CHARS)"
    ]
    settings.LIMIT_DESCRIPTION_CHARS, settings.LIMIT_DESCRIPTION_HTML_BYTES = 5000, 2000
    with pytest.raises(ChapterFileError) as refused:
        file_import(text=book_file(" ".join([r"$\sum_i x_i$"] * 8)))
    [error] = refused.value.errors
    assert error.startswith("books[0].description: typesets to ")
    assert error.endswith(
        "at most 2,000 (LIMIT_DESCRIPTION_HTML_BYTES): shorten it, or give "
        "its formulas to a chapter"
    )
    file_import(text=book_file(r"Within both: $\sum_i x_i$."))
    assert "<math" in Book.objects.get(numeral="II").description_html
