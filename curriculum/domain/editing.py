"""Every edit of the course, one action each (`domain.actions`): admin, API, files and commands
call these.

Each checks its permission (a user of None is the system) under the chapter's row lock, which
the gate re-checks under too, cleans in full before saving, and moves the chapter's version.
Withdrawing is an Editor's act, as publishing is, so no other writer may reach it by another
path (a state field, a file).
"""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from django.db import transaction

from curriculum.models import Book, Chapter, Problem, Solution
from curriculum.models.course import state_after_edit

from .actions import Action
from .gate import PublishForbidden
from .locks import book_lock, chapter_lock, chapters_lock
from .problem_keys import next_problem
from .revisions import chapters_moved
from .roles import PUBLISH_PERMISSION, Forbidden, Withheld, refusals
from .rows import rows_upsert
from .shelf_uses import glossary_moved, library_refusals, shown_terms
from .verification import (
    PROBLEM_FINGERPRINTED,
    fingerprint_of,
    verdict_request,
    verdicts_request,
)
from .webhooks import chapter_visibility_told
from .working_copy import SourceChanged

PROBLEMS_REPLACE = [
    f"curriculum.{action}_{model}"
    for action in ("add", "change")
    for model in ("problem", "solution")
]
PROBLEM_DROP = "curriculum.delete_problem"
WITHDRAW_FOR_EDITORS = (
    "withdrawing or re-showing a released chapter is for Editors, as publishing is"
)


@dataclass(kw_only=True)
class BookSave(Action):
    """Under the book's row lock, which publishing takes too: the rule that its numeral is
    fixed once a chapter of it has a release (Book.clean) is checked against every release
    there will be, not only those committed before a publish still under way; and that its
    library keeps every work its chapters cite (shelf_uses), against the chapters as stored."""

    book: Book

    def permissions(self) -> list[str]:
        return [_permission("book", self.book)]

    def lock(self) -> None:
        if self.book.pk:
            book_lock(book_id=self.book.pk)

    def run(self) -> Book:
        self.book.full_clean()
        if refusals := library_refusals(self.book, self.book.bibliography):
            raise ValidationError({"bibliography": refusals})
        self.book.save()
        chapters_moved(self.book.chapters.values_list("pk", flat=True))
        return self.book


@dataclass(kw_only=True)
class ChapterSave(Action):
    """The chapter row (its parts are the caller's, inside the same transaction); a released
    chapter is hidden or shown again only by an Editor."""

    chapter: Chapter

    def permissions(self) -> list[str]:
        return [_permission("chapter", self.chapter)]

    def lock(self) -> None:
        if self.chapter.pk:
            chapter_lock(chapter_id=self.chapter.pk)

    def check(self) -> list[str]:
        reasons = super().check()
        if self._shows_or_hides_a_release():
            for refused in refusals(user=self.user, permissions=[PUBLISH_PERMISSION]):
                if isinstance(refused, Withheld):  # by the token, not the role
                    reasons.append(Withheld(refused.scope, "state"))
                else:
                    reasons.append(WITHDRAW_FOR_EDITORS)
        return list(dict.fromkeys(reasons))

    def _shows_or_hides_a_release(self) -> bool:
        stored = Chapter.objects.filter(pk=self.chapter.pk).first() if self.chapter.pk else None
        if stored is None or not _shown_changes(stored, self.chapter):
            return False
        return stored.releases.exists()

    def refuse(self, reasons: list[str]) -> Exception:
        if WITHDRAW_FOR_EDITORS in reasons:
            return PublishForbidden(WITHDRAW_FOR_EDITORS, path="state")
        return super().refuse(reasons)

    def run(self) -> Chapter:
        chapter = self.chapter
        stored = Chapter.objects.filter(pk=chapter.pk).first() if chapter.pk else None
        if stored is not None:  # moved only by chapters_moved: never the caller's copy read
            chapter.revision = stored.revision  # before the lock (a write meanwhile moved it)
        terms_before = shown_terms(chapter.pk)
        chapter.full_clean()
        chapter.save()
        moved = stored is not None and _shown_changes(stored, chapter)
        hidden = moved and chapter.state == Chapter.State.DRAFT
        chapters_moved({chapter.pk}, withdrawn=[chapter.pk] if hidden else [])
        glossary_moved(chapter, terms_before)  # withdrawn or shown again: its terms with it
        if moved:
            chapter_visibility_told(chapter=chapter, shown=not hidden)
        return chapter


@dataclass(kw_only=True)
class ChapterWithdraw(ChapterSave):
    """Back to draft: readers no longer see the chapter or its releases, which are all kept.
    Only the state changes: the row is read again under the chapter's lock, so an edit
    committed since the caller read it (a list's Withdraw racing a PUT) is kept."""

    denied: ClassVar[str | None] = WITHDRAW_FOR_EDITORS

    def __post_init__(self) -> None:
        self.chapter.state = Chapter.State.DRAFT

    def permissions(self) -> list[str]:
        return [*super().permissions(), PUBLISH_PERMISSION]

    def run(self) -> Chapter:
        self.chapter.refresh_from_db()  # under the lock (`lock`, before `run`)
        self.chapter.state = Chapter.State.DRAFT
        return super().run()


@dataclass(kw_only=True)
class ChapterDelete(Action):
    """An Editor's act (roles.py), for a chapter never released: a release is kept for good,
    and readers' links to it with it (withdraw a released chapter instead)."""

    chapter: Chapter
    needs: ClassVar[tuple[str, ...]] = ("curriculum.delete_chapter",)
    denied: ClassVar[str | None] = "only Editors delete chapters"

    def lock(self) -> None:
        chapter_lock(chapter_id=self.chapter.pk)

    def check(self) -> list[str]:
        reasons = super().check()
        if self.chapter.releases.exists():
            reasons.append(f"{self.chapter.code} has releases, kept for good: withdraw it instead")
        return reasons

    def run(self) -> None:
        # the pages naming it or leaning on it link it no more: moved, they are rendered again,
        # and their search entries rebuilt (the link's text, its title, is gone from them)
        chapters_moved({self.chapter.pk}, withdrawn=[self.chapter.pk])
        self.chapter.delete()


def _shown_changes(stored: Chapter, chapter: Chapter) -> bool:
    """Whether readers stop or start seeing the chapter: draft is hidden, all else shown."""
    state = state_after_edit(chapter.state, released=True)
    return (stored.state == Chapter.State.DRAFT) != (state == Chapter.State.DRAFT)


@dataclass(kw_only=True)
class ProblemSave(Action):
    """A problem, and its solution when given; either way its verdict is asked for again after
    commit (an unchanged one keeps its decided verdict). A problem without a key gets the next
    free one. Returns whether a check was sent."""

    problem: Problem
    solution: Solution | None = None
    chapters: frozenset[int] = field(init=False, default=frozenset())  # to, and any it leaves

    def permissions(self) -> list[str]:
        solution = [_permission("solution", self.solution)] if self.solution is not None else []
        return [_permission("problem", self.problem), *solution]

    def lock(self) -> None:
        """A problem moved to another chapter leaves its own: both are locked and both move
        (readers of the one it left were served it until that chapter's next write)."""
        stored = Problem.objects.filter(pk=self.problem.pk).values_list("chapter_id", flat=True)
        self.chapters = frozenset({self.problem.chapter_id, *stored})
        chapters_lock(chapter_ids=self.chapters)

    def run(self) -> bool:
        problem, solution = self.problem, self.solution
        if not problem.key:
            problem.key, problem.position = next_problem(chapter_id=problem.chapter_id)
        problem.full_clean()
        problem.save()
        if solution is not None:
            solution.problem = problem
            solution.full_clean()
            solution.save()
        else:
            solution = Solution.objects.filter(problem=problem).first()
        sent = solution is not None and verdict_request(solution=solution)
        chapters_moved(self.chapters)
        return sent


@dataclass(kw_only=True)
class SolutionDelete(Action):
    """The problem stays, unsolved: it no longer counts, and the gate says so."""

    problem: Problem
    needs: ClassVar[tuple[str, ...]] = ("curriculum.delete_solution",)

    def lock(self) -> None:
        chapter_lock(chapter_id=self.problem.chapter_id)

    def run(self) -> None:
        Solution.objects.filter(problem=self.problem).delete()
        chapters_moved({self.problem.chapter_id})


@dataclass(kw_only=True)
class ProblemDelete(SolutionDelete):
    needs: ClassVar[tuple[str, ...]] = (PROBLEM_DROP,)

    def run(self) -> None:
        self.problem.delete()
        chapters_moved({self.problem.chapter_id})


PROBLEM_FIELDS = [
    "kind",
    "variant",
    "statement",
    "operation",
    "inputs",
    "ask",
    "rtol",
    "atol",
    "digits",
    "hints",
    "feedback",
    "position",
]
"""What a chapter file sets on each problem (the key matches it, the chapter owns it)."""


def problems_replace(*, chapter: Chapter, problems: list[dict], user: Any = None) -> int:
    """A chapter's problems as a checked file gives them, matched by key so that an unchanged
    problem keeps its verdict; in bulk, so thousands cost a few statements. The file validator
    has held every problem to the rules its full_clean would. Returns the checks sent. Part of
    ChapterImport, which checks every other permission it needs."""
    kept = {p["key"] for p in problems}
    if _gone(chapter, kept) and (refused := refusals(user=user, permissions=[PROBLEM_DROP])):
        raise Forbidden(refused[0], path="problems")
    with transaction.atomic():
        chapter_lock(chapter_id=chapter.pk)
        Problem.objects.filter(pk__in=_gone(chapter, kept)).delete()
        found = rows_upsert(
            Problem,
            [
                {"chapter_id": chapter.pk, "key": p["key"], "position": position}
                | _problem_fields(p)
                for position, p in enumerate(problems)
            ],
            unique=["chapter", "key"],
            update=PROBLEM_FIELDS,
        )
        problem_ids = [found[(chapter.pk, p["key"])] for p in problems]
        pairs = list(zip(problem_ids, problems, strict=True))
        unsolved = [pk for pk, p in pairs if not p["solution"]]
        Solution.objects.filter(problem_id__in=unsolved).delete()
        solved = [(pk, p) for pk, p in pairs if p["solution"] is not None]
        rows_upsert(
            Solution,
            [
                {"problem_id": pk, "fingerprint": fingerprint_of(_fingerprinted(p))} | p["solution"]
                for pk, p in solved
            ],
            unique=["problem"],
            update=["steps", "answer", "published", "fingerprint"],
        )
        sent = verdicts_request(chapter_ids={chapter.pk})
        chapters_moved({chapter.pk})
    return len(sent)


def problem_tag(problem: Problem) -> str:
    """A problem's content with its solution's, as a short hash: a form opened on one version
    is refused over another, so an edit made meanwhile (the API, another tab) is not lost."""
    solution = (
        Solution.objects.filter(problem_id=problem.pk)
        .values("steps", "answer", "published")
        .first()
    )
    fields = {name: getattr(problem, name) for name in ("key", "chapter_id", *PROBLEM_FIELDS)}
    text = json.dumps([fields, solution], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def problem_unchanged_require(*, problem_id: int, opened: str) -> None:
    """Lock the problem's chapter for the rest of the caller's transaction, then refuse
    (SourceChanged) unless the stored problem and its solution are still the version the writer
    opened: the caller's instance holds its own edits, so the rows are read again under the lock."""
    chapter_id = Problem.objects.filter(pk=problem_id).values_list("chapter_id", flat=True).first()
    stored = None
    if chapter_id is not None:
        chapter_lock(chapter_id=chapter_id)
        stored = Problem.objects.filter(pk=problem_id, chapter_id=chapter_id).first()
    if stored is None or problem_tag(stored) != opened:
        raise SourceChanged("the problem changed since that version was read")


def _gone(chapter: Chapter, kept: set[str]) -> list[int]:
    """The chapter's problems whose keys the file no longer holds (read by key, not sent as a
    list of every key the file keeps)."""
    return [pk for pk, key in chapter.problems.values_list("pk", "key") if key not in kept]


def _fingerprinted(clean: dict) -> dict[str, Any]:
    """What of a clean problem and its solution the fingerprint covers."""
    fields = _problem_fields(clean) | {"answer": clean["solution"]["answer"]}
    return {name: fields[name] for name in (*PROBLEM_FINGERPRINTED, "answer")}


def _problem_fields(clean: dict) -> dict[str, Any]:
    tolerance = clean["tolerance"]
    return {
        "kind": clean["kind"],
        "variant": clean["variant"],
        "statement": clean["statement"],
        "operation": clean["operation"],
        "inputs": clean["inputs"],
        "ask": clean["ask"],
        "rtol": tolerance["rtol"],
        "atol": tolerance["atol"],
        "digits": tolerance["digits"],
        "hints": clean["hints"],
        "feedback": clean["feedback"],
    }


def _permission(model: str, instance: Any) -> str:
    return f"curriculum.{'change' if instance.pk else 'add'}_{model}"
