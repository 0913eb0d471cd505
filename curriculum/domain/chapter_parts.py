"""How many parts a chapter holds, and how many it may (LIMIT_CHAPTER_PARTS).

Admin's chapter page edits every part as a row of one form, so a chapter with more than that
page can post (DATA_UPLOAD_MAX_NUMBER_FIELDS, derived from the limit) or save within the
server's timeout could be written by a file but never saved by its author: files, the API and
admin all refuse a chapter past the limit.
"""

from typing import Any

from django.conf import settings

from curriculum.models import Chapter

PART_LISTS = ("strand_items", "figures", "apparatus_links", "notation", "propositions", "problems")
"""Each kind of part by its name from the chapter, which is also its list's prefix in admin."""
FILE_LISTS = ("figures", "apparatus", "notation", "propositions", "problems")
"""The same lists in a chapter file, besides the strands' items."""


def parts_refusal(*, parts: int) -> str | None:
    """Why a chapter of this many parts is refused, or None; the caller names the chapter."""
    limit = settings.LIMIT_CHAPTER_PARTS
    if parts <= limit:
        return None
    return (
        f"would hold {parts:,} parts (strand items, figures, apparatus links, notation, "
        f"propositions and problems together); at most {limit:,} (LIMIT_CHAPTER_PARTS): split "
        "the chapter"
    )


def chapter_parts(*, chapter: Chapter) -> int:
    """The parts stored (from the prefetched lists where a page fetched them so)."""
    if chapter.pk is None:
        return 0
    return sum(getattr(chapter, name).count() for name in PART_LISTS)


def document_parts(document: dict[str, Any]) -> int:
    """The parts a chapter document lists, counted as written, before any is checked: its bytes
    alone would let a file hold some 150,000 one-line items."""
    strands = document.get("strands")
    found = list(strands.values()) if isinstance(strands, dict) else []
    lists = [strand.get("items") for strand in found if isinstance(strand, dict)]
    lists += [document.get(name) for name in FILE_LISTS]
    return sum(len(each) for each in lists if isinstance(each, list))
