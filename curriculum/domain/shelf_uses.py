"""A book's library and glossary change only while no chapter is left citing or using what the
change takes away: a library that drops a work a chapter cites, or a chapter that stops defining
(or renames, or unpublishes) a term another chapter uses, is refused naming each chapter and path
that still needs it. The book's working copies are read, drafts too (they would be publishable
no longer); a release keeps the References and links it was made with. A change to what the
glossary shows moves the revision of every chapter of the book (revisions.py), so no cached page
links a term to an anchor the glossary page no longer has.
"""

from collections.abc import Iterable

from curriculum.models import Book, Chapter, StrandItem

from .bibliography import library, library_errors
from .documents import chapter_document
from .references import references_in
from .revisions import chapters_moved
from .selectors import chapters_with_parts
from .terms import term_slug, terms_listed
from .texts import chapter_texts, practice_texts


def _uses(numeral: str, shelf: str, keys: set[str], *, besides: str = "") -> dict[str, list[str]]:
    """Each of `keys` that a working copy of the book (but `besides`) cites or uses, with the
    places ("II.10 strands.basics.items[0].body"); only read when something is taken away."""
    found: dict[str, list[str]] = {}
    chapters = chapters_with_parts().filter(book__numeral=numeral).exclude(code=besides)
    for chapter in chapters.order_by("number", "code"):
        document = chapter_document(chapter)
        texts = [(path, text) for path, text, _, _ in chapter_texts(document)]
        for path, text in [*texts, *practice_texts(document)] if keys else ():
            for match in references_in(text):
                if match["shelf"] == shelf and match["key"] in keys:
                    found.setdefault(match["key"], []).append(f"{chapter.code} {path}")
    return found


def _places(places: list[str]) -> str:
    return ", ".join(dict.fromkeys(places))


def library_refusals(book: Book, text: str) -> list[str]:
    """Why `text` cannot replace the book's stored library: the works it drops that a chapter
    still cites, each with the chapters and paths citing it."""
    if book.pk is None or library_errors(text):
        return []  # a library that cannot be stored is refused for what is wrong with it
    stored = Book.objects.filter(pk=book.pk).values_list("numeral", "bibliography").first()
    if stored is None:
        return []
    dropped = set(library(stored[1])) - set(library(text))
    cited = _uses(stored[0], "cite", dropped)
    return [
        f"{key}: cited by {_places(places)}; keep it, or remove those citations first"
        for key, places in sorted(cited.items())
    ]


def shown_terms(chapter_id: int | None) -> dict[str, str]:
    """The terms the chapter, as stored, defines where readers see them, by slug (read before
    a write, for glossary_moved after it); none for a chapter not stored yet."""
    if chapter_id is None:
        return {}
    items = StrandItem.objects.filter(chapter_id=chapter_id, published=True).exclude(
        chapter__state=Chapter.State.DRAFT
    )
    return {
        term_slug(term): term
        for defines in items.values_list("defines", flat=True)
        for term in terms_listed(defines)
    }


def terms_dropped(chapter_id: int | None, kept: Iterable[str]) -> list[str]:
    """Why the stored chapter, about to define only the terms `kept` in its published items,
    cannot: a term it shows now that another chapter of its book uses. Withdrawing the chapter
    is not refused here (an Editor's act; the gate then names the uses)."""
    defined = shown_terms(chapter_id)
    dropped = set(defined) - {term_slug(term) for term in kept}
    if not dropped or chapter_id is None:
        return []
    stored = Chapter.objects.values_list("book__numeral", "code").get(pk=chapter_id)
    used = _uses(stored[0], "term", dropped, besides=stored[1])
    return [
        f"the term {defined[slug]} is used by {_places(places)}: keep defining it in a "
        "published item, or remove those uses first"
        for slug, places in sorted(used.items())
    ]


def document_terms_dropped(document: dict, existing: Chapter | None) -> list[str]:
    """terms_dropped for a chapter document about to replace `existing` (an import, a PUT)."""
    kept = [
        term
        for strand in (document.get("strands") or {}).values()
        for item in strand.get("items") or []
        if item.get("published")
        for term in item.get("defines") or []
    ]
    return terms_dropped(existing.pk if existing else None, kept)


def glossary_moved(chapter: Chapter, before: dict[str, str]) -> None:
    """After a chapter's write: when what it shows of the glossary changed (`before`, from
    `shown_terms` read before the write), every chapter of its book is rendered again."""
    if shown_terms(chapter.pk) != before:
        chapters_moved(Chapter.objects.filter(book_id=chapter.book_id).values_list("pk", flat=True))
