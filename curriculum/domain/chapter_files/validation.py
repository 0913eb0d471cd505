"""Validation of chapter and book documents: every error, each with its path, never a traceback.

A document is checked whole before anything is written; what comes back is the cleaned form
the importer writes. The chapter-level checks are here; its parts' in `part_checks`, its
problems' in `problem_checks`, each reporting to the `checker`.
"""

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from django.conf import settings
from django.db.models import Model

from curriculum.models import Book, Chapter, Figure, Notation, Problem, Proposition, StrandItem
from curriculum.models.course import (
    CODE_RE,
    NUMERAL_RE,
    code_number_mismatch,
    number_from_code,
    state_after_edit,
)

from ..chapter_parts import document_parts, parts_refusal
from ..documents import exported_form
from ..ladder import LEVELS, MATHEMATICS, STRAND_CODES
from ..limits import nul_paths
from ..markup import TooManyFormulas, math_prepared
from ..snapshots import page_markup, rendered_size
from .checker import MAX_WHOLE_NUMBER, SLUG_RE, Checker, all_texts, kind_of, numeral_text
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

CHAPTER_FIELDS = (
    "number",
    "title",
    "author",
    "thesis",
    "summary",
    "maturity",
    "spine",
    "state",
    "before_you_start",
    "problem_statement",
)
CHAPTER_KEYS = (
    "code",
    "book",
    *CHAPTER_FIELDS,
    "strands",
    "figures",
    "apparatus",
    "notation",
    "propositions",
    "problems",
)
REQUIRED_KEYS = ("code", "book", "title", "maturity")
BOOK_KEYS = ("numeral", "title", "slug", "description")
BOOK_FILE_KEYS = ("books",)


@contextmanager
def chapter_checked(
    document: Any, *, known_books: set[str], known_entries: set[str], released: bool = False
) -> Iterator[dict]:
    """Check a chapter document and give it cleaned, or raise ChapterFileError with every error.

    Its formulas stay typeset inside the block, so writing it there (the editing services'
    full_clean checks some texts again) starts no second KaTeX process.
    """
    c = Checker()
    doc = c.mapping(document, "", CHAPTER_KEYS, REQUIRED_KEYS)
    if not doc or not _no_nul(c, doc):
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
    clean: dict[str, Any] = {}
    code = doc.get("code")
    if not isinstance(code, str) or not re.match(CODE_RE, code):
        c.error("code", f"expected a code such as II.4 or 0.LA.01, got {kind_of(code)}")
    clean["code"] = code
    book = numeral_text(doc.get("book"))
    if not isinstance(book, str) or not re.match(NUMERAL_RE, book):
        c.error("book", f'expected a book numeral such as II or "0", got {kind_of(book)}')
    elif book not in known_books:
        c.error("book", f"Book {book} does not exist; import its book file first or with it")
    elif isinstance(code, str) and not code.startswith(f"{book}."):
        c.error("code", f"a chapter of Book {book} has a code starting {book}.")
    clean["book"] = book
    derived = number_from_code(code) if isinstance(code, str) and re.match(CODE_RE, code) else 1
    given = {"number": doc["number"]} if doc.get("number") is not None else {}  # null: absent
    clean["number"] = c.integer(given, "number", "", default=derived or 1, minimum=1)
    _number_matches_code(c, code, book, doc.get("number"))
    clean["title"] = c.text(doc, "title", "", required=True)
    for key in ("author",):
        clean[key] = c.text(doc, key, "")
    for key in ("thesis", "summary", "before_you_start", "problem_statement"):
        clean[key] = c.text(doc, key, "", markdown=True)
    maturity = doc.get("maturity")
    if not isinstance(maturity, str) or maturity not in LEVELS:
        c.error("maturity", f"expected one of {', '.join(LEVELS)}, got {kind_of(maturity)}")
    clean["maturity"] = maturity
    spine = doc.get("spine", MATHEMATICS)
    if spine not in STRAND_CODES:
        c.error("spine", f"expected one of {', '.join(STRAND_CODES)}, got {kind_of(spine)}")
    clean["spine"] = spine
    state = doc.get("state", Chapter.State.DRAFT)
    allowed_states = ["draft", "in_progress"] + (["published"] if released else [])
    if state not in allowed_states:
        hint = (
            " (published is reached only by publishing: import as in_progress, then run"
            " publish_chapter or press Publish in admin)"
            if state == "published"
            else ""
        )
        c.error("state", f"expected one of {', '.join(allowed_states)}, got {kind_of(state)}{hint}")
    clean["state"] = state_after_edit(state, released=released) if isinstance(state, str) else state
    clean["strands"] = strands_checked(c, doc, maturity)
    clean["figures"] = figures_checked(c, doc)
    clean["apparatus"] = apparatus_checked(c, doc, known_entries, code)
    clean["notation"] = notation_checked(c, doc)
    clean["propositions"] = propositions_checked(c, doc)
    clean["problems"] = problems_checked(c, doc)
    _lengths(c, clean)
    if not c.errors:
        c.errors += extent_errors(exported_form(clean), where="top level")
    if not c.errors:
        _rendered_size(c, clean)
    if c.errors:
        raise ChapterFileError(c.errors)
    return clean


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
        answers=[p["solution"]["answer"] for p in clean["problems"] if p["solution"]],
        markup=page_markup(clean),
    )
    limit = settings.LIMIT_CHAPTER_HTML_BYTES
    if size > limit:
        c.error(
            "top level",
            f"renders to {size:,} bytes of HTML; at most {limit:,} (LIMIT_CHAPTER_HTML_BYTES): "
            "split the chapter or shorten its longest texts",
        )


def _lengths(c: Checker, clean: dict) -> None:
    """Text that would not fit its column is an error here, not a database error later."""
    fields: list[tuple[str, dict, type[Model], str]] = [
        ("code", clean, Chapter, "code"),
        ("title", clean, Chapter, "title"),
        ("author", clean, Chapter, "author"),
    ]
    for kind, strand in clean["strands"].items():
        for i, item in enumerate(strand.get("items", [])):
            fields.append((f"strands.{kind}.items[{i}].title", item, StrandItem, "title"))
    for i, figure in enumerate(clean["figures"]):
        fields.append((f"figures[{i}].label", figure, Figure, "label"))
    for i, row in enumerate(clean["notation"]):
        fields.append((f"notation[{i}].symbol", row, Notation, "symbol"))
    for i, prop in enumerate(clean["propositions"]):
        fields.append((f"propositions[{i}].title", prop, Proposition, "title"))
    for i, prob in enumerate(clean["problems"]):
        fields += [
            (f"problems[{i}].key", prob, Problem, "key"),
            (f"problems[{i}].variant", prob, Problem, "variant"),
        ]
    for path, holder, model, name in fields:
        c.fits(holder.get(path.rsplit(".", 1)[-1]), path, model, name)


def _number_matches_code(c: Checker, code: Any, book: Any, number: Any) -> None:
    in_range = type(number) is int and 1 <= number <= MAX_WHOLE_NUMBER
    if isinstance(code, str) and in_range and (mismatch := code_number_mismatch(code, number)):
        c.error("number", mismatch)


def validate_book(document: Any, path: str = "") -> dict:
    c = Checker()
    book = c.mapping(document, path, BOOK_KEYS, ("numeral", "title", "slug"))
    if not _no_nul(c, book, path):
        raise ChapterFileError(c.errors)
    numeral = numeral_text(book.get("numeral"))
    if not isinstance(numeral, str) or not re.match(NUMERAL_RE, numeral):
        c.error(
            f"{path}.numeral" if path else "numeral",
            f'expected a roman numeral or "0", got {kind_of(numeral)}',
        )
    slug = book.get("slug")
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        c.error(f"{path}.slug" if path else "slug", f"expected a slug, got {kind_of(slug)}")
    clean = {
        "numeral": numeral,
        "title": c.text(book, "title", path, required=True),
        "slug": slug,
        "description": c.text(book, "description", path, markdown=True),
    }
    for name in ("numeral", "title", "slug"):
        c.fits(clean[name], f"{path}.{name}" if path else name, Book, name)
    if c.errors:
        raise ChapterFileError(c.errors)
    return clean


def validate_books(document: Any) -> list[dict]:
    """A book file: a `books:` list, or a single book."""
    listed = isinstance(document, dict) and "books" in document
    raw_books = [document]
    if listed:
        c = Checker()
        c.mapping(document, "", BOOK_FILE_KEYS)
        raw_books = c.sequence(document, "books", "")
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
