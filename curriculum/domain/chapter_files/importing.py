"""Import (one transaction per file, all or nothing) and export of chapter and book files."""

import contextlib
import graphlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from curriculum.models import (
    ApparatusLink,
    Book,
    Chapter,
    Figure,
    Notation,
    Proposition,
    StrandItem,
)
from curriculum.models.course import APPARATUS_PREFIX, is_apparatus_code

from ..actions import Action
from ..collection import collection_paused
from ..editing import PROBLEMS_REPLACE, BookSave, ChapterSave, problems_replace
from ..ladder import MATHEMATICS, STRAND_CODES
from ..limits import nul_paths
from ..notation import notation_conflicts
from ..references import chapters_named
from ..rows import rows_insert
from ..shelf_uses import document_terms_dropped, glossary_moved, shown_terms
from ..working_copy import SourceChanged, chapter_source, source_tag, working_copy_require
from .checker import kind_of
from .errors import ChapterFileError
from .extent import extent_errors
from .validation import CHAPTER_FIELDS, chapter_checked, validate_books
from .yaml_form import dump_yaml, load_yaml


@dataclass(frozen=True)
class ImportResult:
    kind: str  # "chapter" or "books"
    label: str
    created: bool
    enqueued: int = 0
    kept: tuple[str, ...] = ()  # what was already in the database and left as it is
    warnings: tuple[str, ...] = ()  # written anyway: content-format.md, Tolerance
    tag: str | None = None  # the version this write made, when asked for (`tagged`)


def is_book_document(document: Any) -> bool:
    return isinstance(document, dict) and ("books" in document or "numeral" in document)


def books_import(
    *, document: Any, dry_run: bool = False, missing_only: bool = False
) -> ImportResult:
    """Create or update the books; `missing_only` leaves the books already stored untouched."""
    books = validate_books(document)
    stored = set(Book.objects.values_list("numeral", flat=True)) if missing_only else set()
    kept = tuple(f"Book {b['numeral']}" for b in books if b["numeral"] in stored)
    books = [b for b in books if b["numeral"] not in stored]
    with transaction.atomic():
        created = False
        # each book is locked as it is saved: in one order, so two book files cannot deadlock
        for fields in sorted(books, key=lambda b: b["numeral"]):
            book = Book.objects.filter(numeral=fields["numeral"]).first() or Book()
            for name, value in fields.items():
                setattr(book, name, value)
            created = created or book.pk is None
            try:
                BookSave(book=book).execute()
            except ValidationError as error:
                raise ChapterFileError(_paths(error)) from error
        transaction.set_rollback(dry_run)
    return ImportResult(
        "books", ", ".join(f"Book {b['numeral']}" for b in books), created, kept=kept
    )


@dataclass(kw_only=True)
class ChapterImport(Action):
    """Create or update the working copy of one chapter from a document; all or nothing.

    Every write goes through the editing actions, with the user's permissions: a released
    chapter keeps its identity, and withdrawing is an Editor's act. With `if_match` (versions
    from `source_tag`, or "*" for any), the write happens only if the working copy exists
    and is at one of them, checked under its lock; with `if_none_match`, only if it is at none
    of them ("*": only if there is none); else SourceChanged.
    """

    document: Any
    dry_run: bool = False
    expected_code: str | None = None
    if_match: frozenset[str] | None = None
    if_none_match: frozenset[str] | None = None
    tagged: bool = False  # the result names the version written (`source_tag`): the API's ETag

    def code(self) -> Any:
        """The document's code, where a row could hold it: a code with a NUL is looked up
        nowhere (the checker refuses it by its path)."""
        code = self.document.get("code") if isinstance(self.document, dict) else None
        return None if nul_paths(code) else code

    def permissions(self) -> list[str]:
        code = self.code()
        exists = isinstance(code, str) and Chapter.objects.filter(code=code).exists()
        return [f"curriculum.{'change' if exists else 'add'}_chapter", *PROBLEMS_REPLACE]

    def execute(self) -> ImportResult:
        """Two writers creating one chapter at once: the one that finds it created meanwhile
        writes again, as a writer who found it would have (over it, with the permission to
        change it, or refused by its If-None-Match), never a 500."""
        try:
            return super().execute()
        except _CreatedMeanwhile:
            return super().execute()

    def run(self) -> ImportResult:
        document, code, expected_code = self.document, self.code(), self.expected_code
        mismatched = isinstance(document, dict) and document.get("code") != expected_code
        if expected_code is not None and mismatched and not nul_paths(document.get("code")):
            named = (
                "names no code"
                if code is None
                else f"is for {code}"
                if isinstance(code, str) and code.isprintable() and len(code) <= 40
                else f"gives its code as {kind_of(code)}"
            )
            raise ChapterFileError(
                [f"code: the document {named}; this address is for {expected_code}"]
            )
        existing = Chapter.objects.filter(code=code).first() if isinstance(code, str) else None
        released = bool(existing and existing.releases.exists())
        with (
            collection_paused(),
            chapter_checked(
                document,
                known_books=set(Book.objects.values_list("numeral", flat=True)),
                known_entries=set(
                    Chapter.objects.filter(code__startswith=APPARATUS_PREFIX).values_list(
                        "code", flat=True
                    )
                ),
                released=released,
            ) as clean,
        ):
            try:
                with _created_elsewhere(code if existing is None else None), transaction.atomic():
                    if self.if_none_match is not None and existing is not None:
                        working_copy_require(
                            chapter_id=existing.pk, tags=self.if_none_match, at=False
                        )
                    if self.if_match is not None:
                        _require_version(existing, self.if_match)
                    if dropped := document_terms_dropped(clean, existing):
                        raise ChapterFileError([f"strands: {why}" for why in dropped])
                    terms_before = shown_terms(existing.pk if existing else None)
                    chapter = _write_chapter(clean, existing or Chapter(), self.user)
                    glossary_moved(chapter, terms_before)
                    enqueued = problems_replace(
                        chapter=chapter, problems=clean["problems"], user=self.user
                    )
                    # under the chapter's lock: after the commit, another writer's may be read
                    tag = source_tag(code=chapter.code) if self.tagged else None
                    transaction.set_rollback(self.dry_run)
            except ValidationError as error:
                raise ChapterFileError(_paths(error)) from error
        return ImportResult(
            "chapter", clean["code"], existing is None, enqueued, warnings=_lint(clean), tag=tag
        )


class _CreatedMeanwhile(Exception):
    pass


@contextmanager
def _created_elsewhere(creating: Any) -> Iterator[None]:
    """A chapter this write creates (`creating`: its code) that another writer's commit created
    first: its insert fails on the unique code, and the write goes again (`execute`)."""
    try:
        yield
    except IntegrityError:
        if creating is not None and Chapter.objects.filter(code=creating).exists():
            raise _CreatedMeanwhile from None
        raise


def chapter_import(**arguments: Any) -> ImportResult:
    return ChapterImport(**arguments).execute()


def _require_version(existing: Chapter | None, if_match: frozenset[str]) -> None:
    if existing is None:
        raise SourceChanged("there is no working copy of this chapter to match")
    # the lock is held to the end: no edit slips in between this check and the write
    working_copy_require(chapter_id=existing.pk, tags=if_match)


def _lint(clean: dict) -> tuple[str, ...]:
    answers = (
        f"problems[{i}].solution.answer: {warning}"
        for i, problem in enumerate(clean["problems"])
        for warning in problem["lint"]
    )
    entries = [(row["symbol"], row["meaning"]) for row in clean["notation"]]
    return (*answers, *notation_conflicts(clean["book"], clean["code"], entries))


def _paths(error: ValidationError) -> list[str]:
    """What a service's full_clean refused, as the file's paths."""
    if not hasattr(error, "error_dict"):
        return [f"(chapter): {message}" for message in error.messages]
    return [
        f"{field}: {message}"
        for field, errors in error.error_dict.items()
        for message in ValidationError(errors).messages
    ]


def _write_chapter(clean: dict, chapter: Chapter, user: Any) -> Chapter:
    fields = {key: clean[key] for key in CHAPTER_FIELDS}
    fields.update(
        {
            f"{kind}_target": clean["strands"][kind]["target"]
            for kind in STRAND_CODES
            if kind != MATHEMATICS
        }
    )
    fields["book"] = Book.objects.get(numeral=clean["book"])
    fields["code"] = clean["code"]
    for name, value in fields.items():
        setattr(chapter, name, value)
    ChapterSave(chapter=chapter, user=user).execute()  # takes the chapter lock, held to the end
    chapter.strand_items.all().delete()
    rows_insert(
        StrandItem,
        [
            {
                "chapter_id": chapter.pk,
                "strand": kind,
                "position": i,
                **item,
                "defines": ", ".join(item.get("defines") or []),
            }
            for kind in STRAND_CODES
            if kind != MATHEMATICS
            for i, item in enumerate(clean["strands"][kind]["items"])
        ],
    )
    chapter.figures.all().delete()
    Figure.objects.bulk_create(
        Figure(chapter=chapter, position=i, **f) for i, f in enumerate(clean["figures"])
    )
    chapter.apparatus_links.all().delete()
    entries = Chapter.objects.in_bulk(clean["apparatus"], field_name="code")
    ApparatusLink.objects.bulk_create(
        ApparatusLink(chapter=chapter, entry=entries[code], position=i)
        for i, code in enumerate(clean["apparatus"])
    )
    chapter.notation.all().delete()
    Notation.objects.bulk_create(
        Notation(chapter=chapter, position=i, **row) for i, row in enumerate(clean["notation"])
    )
    chapter.propositions.all().delete()
    Proposition.objects.bulk_create(
        Proposition(
            chapter=chapter,
            property_check=p["check"],
            **{key: value for key, value in p.items() if key != "check"},
        )
        for p in clean["propositions"]
    )
    return chapter


def import_order(paths: list[Path]) -> list[Path]:
    """Books first, then Book 0 entries, then chapters, each after the files it names, so
    references resolve in one command (`II.10.yaml`, which a shell lists before `II.3.yaml`,
    naming II.3); files that name each other, and unreadable ones, keep the order given."""
    ranks: dict[Path, int] = {}
    codes: dict[str, Path] = {}
    named: dict[Path, set[str]] = {}
    for path in paths:
        try:
            document = load_yaml(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ChapterFileError):
            ranks[path] = 3
            continue
        code = document.get("code") if isinstance(document, dict) else None
        if is_book_document(document) or not isinstance(code, str):
            ranks[path] = 0 if is_book_document(document) else 3
            continue
        ranks[path], codes[code] = (1 if is_apparatus_code(code) else 2), path
        with contextlib.suppress(Exception):  # a malformed file is refused when imported
            named[path] = chapters_named(document)
    graph = {path: {codes[c] for c in named.get(path, ()) if c in codes} for path in paths}
    try:
        after = {path: n for n, path in enumerate(graphlib.TopologicalSorter(graph).static_order())}
    except graphlib.CycleError:
        after = {path: 0 for path in paths}
    return sorted(paths, key=lambda path: (ranks[path], after[path]))


def file_seed(*, text: str) -> ImportResult:
    """Import only what the database lacks: a book or chapter already stored is kept as authors
    left it, whatever the file now says (the files are where a course starts, not its master).
    """
    document = load_yaml(text)
    if is_book_document(document):
        return books_import(document=document, missing_only=True)
    code = document.get("code") if isinstance(document, dict) else None
    if isinstance(code, str) and Chapter.objects.filter(code=code).exists():
        return ImportResult("chapter", code, False, kept=(code,))
    return chapter_import(document=document)


def file_import(*, text: str, dry_run: bool = False) -> ImportResult:
    document = load_yaml(text)
    if is_book_document(document):
        return books_import(document=document, dry_run=dry_run)
    return chapter_import(document=document, dry_run=dry_run)


@contextmanager
def files_import(*, dry_run: bool) -> Iterator[Callable[..., ImportResult]]:
    """Import several files: each in its own transaction, or, for a dry run, all in one that is
    rolled back at the end, so a chapter is checked against the book file given with it."""
    if not dry_run:
        yield file_import
        return
    with transaction.atomic():
        yield file_import
        transaction.set_rollback(True)


def chapter_export(*, code: str) -> str:
    return source_text(document=chapter_source(code=code))


def source_text(*, document: dict[str, Any]) -> str:
    """A stored chapter as its file, refused (ChapterFileError) for one stored before the limits
    that bound a file: it could not be imported again, and writing it out would take minutes."""
    if errors := extent_errors(document, where="chapter"):
        stored_before = "chapter: stored before these limits; read it as JSON or mend it in admin"
        raise ChapterFileError([*errors, stored_before])
    return dump_yaml(document)
