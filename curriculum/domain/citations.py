"""Citations: a text cites a work of its book's library by key (`@cite:vaswani2017`); readers
see a number in brackets, "[1]", linking to the chapter's References, which list every work the
chapter cites, numbered in the order the chapter first cites them, formatted from the library
(bibliography.py). A key the library does not hold is an error with its path (references.py
reports it everywhere a dangling reference is reported). A snapshot carries its References, so a
release keeps the works as they were formatted when it was made."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from curriculum.models import Book

from .bibliography import Work, library


@dataclass
class Cited:
    """The book's library, and the keys a chapter cites that it holds, by number."""

    numeral: str = ""
    works: dict[str, Work] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)


def cited_in(document: Mapping[str, Any], keys: Iterable[str]) -> Cited:
    """`keys`: every key the document's texts cite, in order (one query for the library)."""
    numeral = document.get("book") or ""
    wanted = list(keys)
    text: str | None = None
    if wanted and numeral:
        text = Book.objects.filter(numeral=numeral).values_list("bibliography", flat=True).first()
    works = library(text or "")
    numbers: dict[str, int] = {}
    for key in wanted:
        if key in works:
            numbers.setdefault(key, len(numbers) + 1)
    return Cited(numeral, works, numbers)


def cite_problem(key: str, cited: Cited) -> str | None:
    if key in cited.works:
        return None
    return f"@cite:{key}: Book {cited.numeral}'s bibliography has no work {key}"


def cite_target(key: str, cited: Cited) -> tuple[str, str, str]:
    """(what a citation reads, "[1]"; where it links, the chapter's References; its title)."""
    return f"[{cited.numbers[key]}]", f"#ref-{key}", cited.works[key].short


def references_list(cited: Cited) -> list[dict[str, Any]]:
    """The chapter's References, as a snapshot (and the API) carries them."""
    return [
        {"number": number, "key": key, "html": cited.works[key].html}
        for key, number in sorted(cited.numbers.items(), key=lambda pair: pair[1])
    ]
