"""A signed-in reader's progress: which problems they solved, on which instance, when.

Progress is counted against the chapter as the reader is shown it (`reading`: the latest
release, else the working copy): a chapter's `m` is the problems its page lists now, and an
attempt at a problem no longer listed stays in the reader's data (`readers.reader_export`) but
counts for nothing here. A problem is solved by its first right attempt, on any instance and
any release (problem keys outlive releases). Which problems a chapter shows is kept in the
shared cache under the chapter's tag, and a book's (or the course's) under the course's tag,
so a page never loads a snapshot that did not change, and only a chapter the reader has
tried is loaded at all; a reader's attempts are read per request, two queries for any number
of chapters.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.models import Count, F, Max, Window
from django.db.models.functions import RowNumber

from curriculum.models import Attempt

from .markup import RENDER_FORMAT
from .practice import practisable
from .problem_labels import problem_labels
from .reading import books_contents, chapter_for_reader, chapter_freshness
from .snapshots import SNAPSHOT_FORMAT

SHOWN_CACHE_SECONDS = 7 * 24 * 3600
SHOWN_FORMAT = "2"  # what a kept entry holds: moves when Shown or what is practisable does


@dataclass(frozen=True)
class Shown:
    """A problem as the chapter page lists it, numbered as the page numbers it."""

    key: str
    label: str  # "Worked problem 1", "Exercise 2"
    practisable: bool


@dataclass(frozen=True)
class ChapterShown:
    code: str
    title: str
    problems: tuple[Shown, ...]


@dataclass(frozen=True)
class Solved:
    instance: int
    release: int | None
    at: datetime


@dataclass(frozen=True)
class ProblemProgress:
    problem: Shown
    attempts: int
    solved: Solved | None  # the first right attempt


@dataclass(frozen=True)
class ChapterProgress:
    code: str
    title: str
    problems: tuple[ProblemProgress, ...]

    @property
    def solved(self) -> int:
        return sum(1 for p in self.problems if p.solved)

    @property
    def total(self) -> int:
        return len(self.problems)

    @property
    def attempted(self) -> bool:
        return any(p.attempts for p in self.problems)


@dataclass(frozen=True)
class BookProgress:
    numeral: str
    title: str
    chapters: tuple[ChapterProgress, ...]

    @property
    def solved(self) -> int:
        return sum(c.solved for c in self.chapters)

    @property
    def total(self) -> int:
        return sum(c.total for c in self.chapters)


def shown_problems(snapshot: dict[str, Any]) -> tuple[Shown, ...]:
    """The snapshot's problems in page order, named as the page names them."""
    labels = problem_labels(snapshot["problems"])
    return tuple(
        Shown(key=p["key"], label=labels[p["key"]], practisable=practisable(p))
        for p in snapshot["problems"]
    )


def chapter_shown(*, code: str, staff: bool = False) -> ChapterShown:
    """What the reader's page of `code` lists, kept under the chapter's tag (NotVisible as
    `reading` raises it)."""
    freshness = chapter_freshness(code=code, staff=staff)
    stamp = freshness.last_modified.isoformat()
    key = f"progress:shown:{SHOWN_FORMAT}:{SNAPSHOT_FORMAT}:{RENDER_FORMAT}:{freshness.tag}:{stamp}"
    shown = cache.get(key)
    if shown is None:
        view = chapter_for_reader(code=code, staff=staff)
        shown = ChapterShown(code, view.snapshot["title"], shown_problems(view.snapshot))
        cache.set(key, shown, timeout=SHOWN_CACHE_SECONDS)
    return shown


def _attempts(reader: User, codes: list[str]) -> tuple[dict, dict]:
    """Per (chapter, problem): the number of attempts, and the first right one."""
    mine = Attempt.objects.filter(reader=reader, chapter_code__in=codes)
    counts = {
        (row["chapter_code"], row["problem_key"]): row["n"]
        for row in mine.order_by().values("chapter_code", "problem_key").annotate(n=Count("id"))
    }
    first = (
        mine.filter(right=True)
        .annotate(
            nth=Window(
                RowNumber(),
                partition_by=[F("chapter_code"), F("problem_key")],
                order_by=[F("at").asc(), F("id").asc()],
            )
        )
        .filter(nth=1)
        .values("chapter_code", "problem_key", "instance", "release", "at")
    )
    solved = {
        (row["chapter_code"], row["problem_key"]): Solved(
            row["instance"], row["release"], row["at"]
        )
        for row in first
    }
    return counts, solved


def _progress(chapters: list[ChapterShown], counts: dict, solved: dict) -> list[ChapterProgress]:
    return [
        ChapterProgress(
            chapter.code,
            chapter.title,
            tuple(
                ProblemProgress(
                    problem,
                    counts.get((chapter.code, problem.key), 0),
                    solved.get((chapter.code, problem.key)),
                )
                for problem in chapter.problems
            ),
        )
        for chapter in chapters
    ]


def chapter_progress(*, reader: User, code: str, staff: bool = False) -> ChapterProgress | None:
    """The reader's progress in `code`, None when they have tried none of its problems (its
    page then loads nothing more)."""
    counts, solved = _attempts(reader, [code])
    if not counts:
        return None
    return _progress([chapter_shown(code=code, staff=staff)], counts, solved)[0]


def books_progress(
    *, reader: User, staff: bool = False, numeral: str | None = None
) -> list[BookProgress]:
    """Every book the reader may see (or the one named), each chapter the reader has tried
    counted against what its page lists; a chapter not tried lists nothing, so a page costs
    the contents' queries and two for the attempts, however large the course."""
    books = books_contents(staff=staff, numeral=numeral)
    codes = [code for _, chapters in books for code, _ in chapters]
    counts, solved = _attempts(reader, codes)
    tried = {code for code, _ in counts}

    def shown(chapter: tuple[str, str]) -> ChapterShown:
        code, title = chapter
        if code in tried:
            return chapter_shown(code=code, staff=staff)
        return ChapterShown(code, title, ())

    return [
        BookProgress(
            book.numeral, book.title, tuple(_progress([shown(c) for c in chapters], counts, solved))
        )
        for book, chapters in books
    ]


def progress_tag(*, reader: User, code: str) -> str:
    """Moves whenever the reader's progress in the chapter may have: attempts are only ever
    added (and go with their account), so their number and the last one's id name it."""
    row = Attempt.objects.filter(reader=reader, chapter_code=code).aggregate(
        n=Count("id"), last=Max("id")
    )
    mark = f"{reader.pk}:{row['n']}:{row['last']}"
    return hashlib.sha256(mark.encode()).hexdigest()[:12]
