"""Import (one transaction per file, all or nothing) and export of chapter and book files."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from curriculum.models import (
    ApparatusLink,
    Book,
    Chapter,
    Figure,
    Notation,
    Problem,
    Proposition,
    Solution,
    StrandItem,
)
from curriculum.models.course import APPARATUS_PREFIX, is_apparatus_code

from ..answers import answer_lint
from ..documents import chapter_document
from ..gate import PUBLISH_PERMISSION, PublishForbidden
from ..ladder import MATHEMATICS, STRAND_CODES
from ..locks import chapter_lock
from ..selectors import chapter_with_parts
from ..verification import verdicts_request
from .errors import ChapterFileError
from .validation import CHAPTER_FIELDS, kind_of, validate_books, validate_chapter
from .yaml_form import dump_yaml, load_yaml


@dataclass(frozen=True)
class ImportResult:
    kind: str  # "chapter" or "books"
    label: str
    created: bool
    enqueued: int = 0
    warnings: tuple[str, ...] = ()  # written anyway: content-format.md, Tolerance


def is_book_document(document: Any) -> bool:
    return isinstance(document, dict) and ("books" in document or "numeral" in document)


def books_import(*, document: Any, dry_run: bool = False) -> ImportResult:
    books = validate_books(document)
    with transaction.atomic():
        created = False
        for book in books:
            _, made = Book.objects.update_or_create(numeral=book["numeral"], defaults=book)
            created = created or made
        transaction.set_rollback(dry_run)
    return ImportResult("books", ", ".join(f"Book {b['numeral']}" for b in books), created)


def chapter_import(
    *, document: Any, dry_run: bool = False, expected_code: str | None = None, user: Any = None
) -> ImportResult:
    """Create or update the working copy of one chapter from a document; all or nothing.

    With a `user` (the API), withdrawing a released chapter (state draft) is an editor's
    decision, as publishing is.
    """
    code = document.get("code") if isinstance(document, dict) else None
    if expected_code is not None and isinstance(document, dict) and code != expected_code:
        named = "names no code" if code is None else f"is for {kind_of(code)}"
        raise ChapterFileError([f"code: the document {named}; this address is for {expected_code}"])
    existing = Chapter.objects.filter(code=code).first() if isinstance(code, str) else None
    released = bool(existing and existing.releases.exists())
    clean = validate_chapter(
        document,
        known_books=set(Book.objects.values_list("numeral", flat=True)),
        known_entries=set(
            Chapter.objects.filter(code__startswith=APPARATUS_PREFIX).values_list("code", flat=True)
        ),
        released=released,
    )
    withdrawing = existing is not None and clean["state"] == "draft" and existing.state != "draft"
    if withdrawing and released and user is not None and not user.has_perm(PUBLISH_PERMISSION):
        raise PublishForbidden("withdrawing a published chapter is for Editors, as publishing is")
    with transaction.atomic():
        chapter = _write_chapter(clean, existing)
        enqueued = _write_problems(chapter, clean["problems"])
        transaction.set_rollback(dry_run)
    return ImportResult("chapter", clean["code"], existing is None, enqueued, _lint(clean))


def _lint(clean: dict) -> tuple[str, ...]:
    return tuple(
        f"problems[{i}].solution.answer: {warning}"
        for i, problem in enumerate(clean["problems"])
        if problem["solution"] is not None
        for warning in answer_lint(answer=problem["solution"]["answer"], **problem["tolerance"])
    )


def _write_chapter(clean: dict, existing: Chapter | None) -> Chapter:
    if existing is not None:
        chapter_lock(chapter_id=existing.pk)
    fields = {key: clean[key] for key in CHAPTER_FIELDS}
    fields.update(
        {
            f"{kind}_target": clean["strands"][kind]["target"]
            for kind in STRAND_CODES
            if kind != MATHEMATICS
        }
    )
    fields["book"] = Book.objects.get(numeral=clean["book"])
    chapter, _ = Chapter.objects.update_or_create(code=clean["code"], defaults=fields)
    chapter.strand_items.all().delete()
    StrandItem.objects.bulk_create(
        StrandItem(chapter=chapter, strand=kind, position=i, **item)
        for kind in STRAND_CODES
        if kind != MATHEMATICS
        for i, item in enumerate(clean["strands"][kind]["items"])
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
        Proposition(chapter=chapter, **p) for p in clean["propositions"]
    )
    return chapter


PROBLEM_FIELDS = [
    "kind", "variant", "statement", "operation", "inputs", "ask", "rtol", "atol", "digits",
    "position",
]


def _write_problems(chapter: Chapter, problems: list[dict]) -> int:
    """Problems are matched by key, so an unchanged problem keeps its verdict. Bulk writes: a
    chapter of thousands of problems costs a few statements, not a few per problem."""
    chapter.problems.exclude(key__in=[p["key"] for p in problems]).delete()
    rows = [
        Problem(
            chapter=chapter,
            key=clean["key"],
            kind=clean["kind"],
            variant=clean["variant"],
            statement=clean["statement"],
            operation=clean["operation"],
            inputs=clean["inputs"],
            ask=clean["ask"],
            rtol=clean["tolerance"]["rtol"],
            atol=clean["tolerance"]["atol"],
            digits=clean["tolerance"]["digits"],
            position=position,
        )
        for position, clean in enumerate(problems)
    ]
    Problem.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["chapter", "key"], update_fields=PROBLEM_FIELDS
    )
    unsolved = [row for row, clean in zip(rows, problems, strict=True) if not clean["solution"]]
    Solution.objects.filter(problem__in=unsolved).delete()
    solutions = [
        Solution(problem=row, **clean["solution"])
        for row, clean in zip(rows, problems, strict=True)
        if clean["solution"] is not None
    ]
    Solution.objects.bulk_create(
        solutions,
        update_conflicts=True,
        unique_fields=["problem"],
        update_fields=["steps", "answer", "published"],
    )
    return len(verdicts_request(solutions=solutions))


def import_order(paths: list[Path]) -> list[Path]:
    """Books first, then Book 0 entries, then chapters, so references resolve in one command."""

    def rank(path: Path) -> int:
        try:
            document = load_yaml(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ChapterFileError):
            return 3
        if is_book_document(document):
            return 0
        code = document.get("code") if isinstance(document, dict) else None
        return 1 if isinstance(code, str) and is_apparatus_code(code) else 2

    return sorted(paths, key=rank)


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


def chapter_source(*, code: str) -> dict[str, Any]:
    """The chapter document as a file holds it (JSON-ready); raises Chapter.DoesNotExist."""
    return chapter_document(chapter_with_parts(code=code))


def chapter_export(*, code: str) -> str:
    return dump_yaml(chapter_source(code=code))
