"""A book's bibliography and glossary pages: every work of its library, with the chapters that
cite it, and every term its chapters define, with its definition and the chapters that use it.
Both are read from what readers are shown of each chapter (its latest release, else its working
copy), so a page never lists what a reader cannot follow."""

from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from curriculum.models import Book

from .bibliography import library
from .reading import NotVisible, books_for_reader, chapter_for_reader
from .references import references_in
from .terms import term_slug
from .texts import chapter_texts, practice_texts


@dataclass
class Place:
    code: str
    title: str
    url: str


@dataclass
class Entry:
    anchor: str  # the id the page gives it
    name: str  # a work's key; a term
    html: str  # the formatted work; the defining item's body
    defined_in: Place | None = None
    used_in: list[Place] = field(default_factory=list)


def _chapters(numeral: str, staff: bool) -> tuple[Book, list[dict[str, Any]]]:
    """The book and the snapshot readers are shown of each of its chapters; Book.DoesNotExist
    for a book there is not."""
    books = books_for_reader(staff=staff, numeral=numeral)
    if not books:
        raise Book.DoesNotExist(numeral)
    book, overviews = books[0]
    snapshots = []
    for overview in overviews:
        try:
            snapshots.append(chapter_for_reader(code=overview.code, staff=staff).snapshot)
        except NotVisible:
            continue
    return book, snapshots


def _place(snapshot: dict[str, Any], anchor: str = "") -> Place:
    url = reverse("site:chapter", args=[snapshot["code"]]) + anchor
    return Place(snapshot["code"], snapshot["title"], url)


def _named(snapshot: dict[str, Any], shelf: str) -> set[str]:
    texts = [text for _, text, _, _ in chapter_texts(snapshot)]
    texts += [text for _, text in practice_texts(snapshot)]
    return {
        found["key"] for text in texts for found in references_in(text) if found["shelf"] == shelf
    }


def bibliography_page(*, numeral: str, staff: bool) -> tuple[Book, list[Entry]]:
    """Every work of the book's library in its order, each with the chapters that cite it."""
    book, snapshots = _chapters(numeral, staff)
    entries = {
        key: Entry(f"ref-{key}", key, work.html) for key, work in library(book.bibliography).items()
    }
    for snapshot in snapshots:
        for reference in snapshot.get("references") or []:
            if (entry := entries.get(reference["key"])) is not None:
                entry.used_in.append(_place(snapshot, f"#ref-{reference['key']}"))
    return book, list(entries.values())


def glossary_page(*, numeral: str, staff: bool) -> tuple[Book, list[Entry]]:
    """Every term the book's chapters define where readers see it, in alphabetical order,
    with its definition (the item that defines it) and the chapters that use it."""
    book, snapshots = _chapters(numeral, staff)
    entries: dict[str, Entry] = {}
    for snapshot in snapshots:
        for kind, strand in snapshot["strands"].items():
            for i, item in enumerate(strand.get("items") or []):
                for term in item.get("defines") or []:
                    slug = term_slug(term)
                    place = _place(snapshot, f"#{kind}-{i + 1}")
                    place.title = f"{snapshot['title']}: {item['title']}"
                    entries.setdefault(
                        slug, Entry(f"term-{slug}", term, item.get("body_html", ""), place)
                    )
    for snapshot in snapshots:
        for slug in sorted(_named(snapshot, "term")):
            if slug in entries:
                entries[slug].used_in.append(_place(snapshot))
    return book, sorted(entries.values(), key=lambda entry: entry.name.casefold())
