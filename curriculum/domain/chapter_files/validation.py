"""Validation of chapter and book documents: every error, each with its path, never a traceback.

A document is checked whole before anything is written; what comes back is the cleaned form
the importer writes. The chapter-level checks are here; its parts' in `part_checks`, its
problems' in `problem_checks`, each reporting to the `checker`.
"""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from django.conf import settings

from curriculum.models.course import (
    code_book_mismatch,
    code_number_mismatch,
    number_from_code,
    state_after_edit,
    state_refusal,
)

from ..bibliography import library_errors
from ..chapter_parts import document_parts, parts_refusal
from ..claims.found import found_in
from ..descriptions import description_errors
from ..documents import exported_form
from ..limits import nul_paths
from ..markup import TooManyFormulas, math_prepared
from ..references import reference_errors
from ..snapshots import page_markup, rendered_size
from .checker import Checker, all_texts
from .errors import ChapterFileError
from .extent import extent_errors
from .part_checks import (
    apparatus_checked,
    figures_checked,
    notation_checked,
    propositions_checked,
    strands_checked,
)
from .problem_checks import problems_checked
from .schema import BookDocument, BookFile, ChapterDocument

PARTS = {"strands": dict, "figures": list, "notation": list, "propositions": list, "problems": list}
"""Checked one by one after the chapter's own keys, so that one bad part hides no other's
errors; the chapter's own keys are its row's columns and the apparatus."""
HINT = "import as in_progress, then run publish_chapter or press Publish in admin"
CHAPTER_FIELDS = tuple(ChapterDocument.model_fields)[2:12]  # the row's: number..problem_statement
HEAD = [name for name in ChapterDocument.model_fields if name not in PARTS]


@contextmanager
def chapter_checked(
    document: Any, *, known_books: set[str], known_entries: set[str], released: bool = False
) -> Iterator[dict]:
    """Check a chapter document and give it cleaned, or raise ChapterFileError with every error.

    Its formulas stay typeset inside the block, so writing it there (the editing services'
    full_clean checks some texts again) starts no second KaTeX process.
    """
    c = Checker()
    if not isinstance(document, dict):
        c.structure(ChapterDocument, document)
        raise ChapterFileError(c.errors)
    doc = document
    if not _no_nul(c, doc):
        raise ChapterFileError(c.errors)
    if refusal := parts_refusal(parts=document_parts(doc)):  # before any part costs a check
        raise ChapterFileError([f"top level: the chapter {refusal}"])
    with ExitStack() as typeset:
        try:
            typeset.enter_context(math_prepared(all_texts(doc)))
        except TooManyFormulas as error:
            raise ChapterFileError([f"top level: the chapter {error}"]) from error
        yield _chapter_checked(c, doc, known_books, known_entries, released)


def _chapter_checked(
    c: Checker, doc: dict, known_books: set[str], known_entries: set[str], released: bool
) -> dict:
    parts: dict[str, Any] = {k: doc[k] for k, kind in PARTS.items() if isinstance(doc.get(k), kind)}
    left_out: dict[str, Any] = {key: None if PARTS[key] is dict else [] for key in parts}
    head = c.structure(ChapterDocument, doc | left_out, partial=True)
    clean: dict[str, Any] = {name: getattr(head, name) for name in HEAD}
    code, book, state = clean["code"], clean["book"], clean["state"]
    if book is not None and book not in known_books:
        c.error("book", f"Book {book} does not exist; import its book file first or with it")
    elif book is not None and code is not None and (mismatch := code_book_mismatch(code, book)):
        c.error("code", mismatch)
    given = clean["number"]
    if code is not None and given is not None and (mismatch := code_number_mismatch(code, given)):
        c.error("number", mismatch)
    clean["number"] = clean["number"] or (number_from_code(code) if code else None) or 1
    for key in ("thesis", "summary", "before_you_start", "problem_statement"):
        c.markdown(clean[key], key)
    if clean["title"] is not None:
        c.filled(clean["title"], "title")
    if refusal := state_refusal(state, released=released):
        c.error(
            "state",
            f"expected one of draft, in_progress, got text ('published') ({refusal}: {HINT})",
        )
    clean["state"] = state_after_edit(state, released=released) if state else state
    clean["strands"] = strands_checked(c, parts.get("strands"), clean["maturity"])
    clean["figures"] = figures_checked(c, parts.get("figures") or [])
    clean["apparatus"] = apparatus_checked(c, clean["apparatus"] or [], known_entries, code)
    clean["notation"] = notation_checked(c, parts.get("notation") or [])
    clean["propositions"] = propositions_checked(c, parts.get("propositions") or [])
    clean["problems"] = problems_checked(c, parts.get("problems") or [])
    if not c.errors:
        _references_and_claims(c, clean)
    if not c.errors:
        c.errors += extent_errors(exported_form(clean), where="top level")
    if not c.errors:
        _rendered_size(c, clean)
    if c.errors:
        raise ChapterFileError(c.errors)
    return {name: clean[name] for name in ChapterDocument.model_fields}


def _references_and_claims(c: Checker, clean: dict) -> None:
    """References must name what readers can see; claims are bounded in number, each being
    engine work for the verifier."""
    for path, why in reference_errors(clean):
        c.error(path, why)
    if (count := len(found_in(clean))) > settings.LIMIT_CHAPTER_CLAIMS:
        c.error(
            "top level",
            f"states {count:,} claims and properties; at most {settings.LIMIT_CHAPTER_CLAIMS:,} "
            "(LIMIT_CHAPTER_CLAIMS)",
        )


def _no_nul(c: Checker, document: Any, within: str = "") -> bool:
    """NUL in text would reach the database and KaTeX: refused before anything else is read."""
    found = nul_paths(document)
    for path in found:
        where = f"{within}.{path}" if within else path
        c.error(where, "contains a NUL character (\\0), which text may not hold")
    return not found


def _rendered_size(c: Checker, clean: dict) -> None:
    """Refused whole when its page would be over the cap: the size readers would download."""
    figures = [(figure["svg"], figure["alt"]) for figure in clean["figures"]]
    svgs = {svg for svg, _ in figures}
    size = rendered_size(
        texts=[t for t in all_texts(clean) if t not in svgs],
        figures=figures,
        answers=[  # a draft's solution, with no answer yet, is shown nowhere
            p["solution"]["answer"]
            for p in clean["problems"]
            if p["solution"] and p["solution"]["answer"] is not None
        ],
        markup=page_markup(clean),
    )
    limit = settings.LIMIT_CHAPTER_HTML_BYTES
    if size > limit:
        c.error(
            "top level",
            f"renders to {size:,} bytes of HTML; at most {limit:,} (LIMIT_CHAPTER_HTML_BYTES): "
            "split the chapter or shorten its longest texts",
        )


def validate_book(document: Any, path: str = "") -> dict:
    c = Checker()
    if isinstance(document, dict) and not _no_nul(c, document, path):
        raise ChapterFileError(c.errors)
    book = c.structure(BookDocument, document, path)
    if book is not None:
        c.filled(book.title, f"{path}.title" if path else "title")
        for why in description_errors(book.description):
            c.error(f"{path}.description" if path else "description", why)
        for why in library_errors(book.bibliography):
            c.error(f"{path}.bibliography" if path else "bibliography", why)
    if c.errors:
        raise ChapterFileError(c.errors)
    return book.model_dump()


def validate_books(document: Any) -> list[dict]:
    """A book file: a `books:` list, or a single book."""
    listed = isinstance(document, dict) and "books" in document
    raw_books = [document]
    if listed:
        raw_books = document["books"] if isinstance(document["books"], list) else []
        c = Checker()
        c.structure(BookFile, {**document, "books": []} if raw_books else document)
        if c.errors:
            raise ChapterFileError(c.errors)
    books, errors = [], []
    for i, raw in enumerate(raw_books):
        try:
            books.append(validate_book(raw, f"books[{i}]" if listed else ""))
        except ChapterFileError as error:
            errors.extend(error.errors)
    if errors:
        raise ChapterFileError(errors)
    return books
