"""Notation across a book: a symbol one chapter defines differently from another is a warning.

A reader who meets d_k in II.3 and again in II.4 takes it to mean the same thing; two
definitions that disagree should be seen by their author. The chapter is still written (two
chapters may mean the symbol differently on purpose), so this warns and never refuses. Meanings
agree when they are equal after spacing, case, trailing punctuation and `$` are set aside.
"""

from collections.abc import Iterable

from curriculum.models import Book, Chapter, Notation

TRAILING = ".,;:!?"


def _symbol(symbol: str) -> str:
    return " ".join(symbol.replace("$", "").split())


def _meaning(meaning: str) -> str:
    return " ".join(meaning.replace("$", "").split()).rstrip(TRAILING + " ").casefold()


def notation_conflicts(
    book: Book | str, chapter_code: str, entries: Iterable[tuple[str, str]]
) -> list[str]:
    """Each (symbol, meaning) of chapter `chapter_code` that another chapter of `book` (a Book
    or its numeral) defines differently, as a warning naming both definitions: one query."""
    same_book = (
        {"chapter__book__numeral": book} if isinstance(book, str) else {"chapter__book": book}
    )
    # symbol -> meaning, normalised -> (the chapters that give it, as the first wrote it)
    others: dict[str, dict[str, tuple[list[str], str]]] = {}
    rows = (
        Notation.objects.filter(**same_book)
        .exclude(chapter__code=chapter_code)
        .order_by("chapter__number", "chapter__code", "position", "id")
        .values_list("chapter__code", "symbol", "meaning")
    )
    for code, symbol, meaning in rows:
        codes, _ = others.setdefault(_symbol(symbol), {}).setdefault(
            _meaning(meaning), ([], meaning)
        )
        codes += [code] if code not in codes else []
    return [
        f"notation[{i}]: {symbol.strip()} is defined differently in {', '.join(codes)} "
        f'("{theirs.strip()}") and here ("{meaning.strip()}")'
        for i, (symbol, meaning) in enumerate(entries)
        for normal, (codes, theirs) in others.get(_symbol(symbol), {}).items()
        if normal != _meaning(meaning)
    ]


def chapter_notation_conflicts(chapter: Chapter) -> list[str]:
    """The same warnings for a saved chapter, from its notation rows as stored."""
    entries = chapter.notation.order_by("position", "id").values_list("symbol", "meaning")
    return notation_conflicts(chapter.book, chapter.code, list(entries))
