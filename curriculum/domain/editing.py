"""Every mutation of the course, one service each: admin, API, files and commands call these.

Each checks its permission here (a user of None is the command line, run by whoever runs the
server), takes the chapter's row lock first (the gate re-checks under the same lock), cleans
in full before saving, and moves the chapter's version. Withdrawing is an Editor's act, as
publishing is, so no other writer may reach it by another path (a state field, a file).
"""

import hashlib
import json
from typing import Any

from django.db import transaction

from curriculum.models import Book, Chapter, Problem, Solution

from .gate import PUBLISH_PERMISSION, PublishForbidden
from .locks import book_lock, chapter_lock
from .roles import permission_require
from .rows import rows_upsert
from .verification import chapter_touch, fingerprint_of, verdict_request, verdicts_request
from .working_copy import SourceChanged

WITHDRAW_FOR_EDITORS = (
    "withdrawing or re-showing a released chapter is for Editors, as publishing is"
)


def book_save(*, book: Book, user: Any = None) -> Book:
    """Save a book under its row lock, which publishing takes too: the rule that its numeral is
    fixed once a chapter of it has a release (Book.clean) is checked against every release
    there will be, not only those committed before a publish still under way."""
    permission_require(user=user, permission=_permission("book", book))
    with transaction.atomic():
        if book.pk:
            book_lock(book_id=book.pk)
        book.full_clean()
        book.save()
    return book


def chapter_save(*, chapter: Chapter, user: Any = None) -> Chapter:
    """Save the chapter row (its parts are the caller's, inside the same transaction)."""
    permission_require(user=user, permission=_permission("chapter", chapter))
    with transaction.atomic():
        stored = chapter_lock(chapter_id=chapter.pk) if chapter.pk else None
        chapter.full_clean()
        if stored is not None and _shown_changes(stored, chapter) and stored.releases.exists():
            _require_editor(user)
        chapter.save()
    return chapter


def chapter_withdraw(*, chapter: Chapter, user: Any = None) -> Chapter:
    """Back to draft: readers no longer see the chapter or its releases, which are all kept."""
    _require_editor(user)
    chapter.state = Chapter.State.DRAFT
    return chapter_save(chapter=chapter, user=user)


def _shown_changes(stored: Chapter, chapter: Chapter) -> bool:
    """Whether readers stop or start seeing the chapter: draft is hidden, all else shown."""
    return (stored.state == Chapter.State.DRAFT) != (chapter.state == Chapter.State.DRAFT)


def _require_editor(user: Any) -> None:
    if user is not None and not user.has_perm(PUBLISH_PERMISSION):
        raise PublishForbidden(WITHDRAW_FOR_EDITORS)


def problem_save(*, problem: Problem, solution: Solution | None = None, user: Any = None) -> bool:
    """Save a problem, and its solution when given; either way its verdict is asked for again
    after commit (an unchanged one keeps its decided verdict). Returns whether a check was sent.
    """
    permission_require(user=user, permission=_permission("problem", problem))
    if solution is not None:
        permission_require(user=user, permission=_permission("solution", solution))
    with transaction.atomic():
        chapter_lock(chapter_id=problem.chapter_id)
        problem.full_clean()
        problem.save()
        if solution is not None:
            solution.problem = problem
            solution.full_clean()
            solution.save()
        else:
            solution = Solution.objects.filter(problem=problem).first()
        sent = solution is not None and verdict_request(solution=solution)
        chapter_touch(chapter_id=problem.chapter_id)
    return sent


def solution_delete(*, problem: Problem, user: Any = None) -> None:
    """The problem stays, unsolved: it no longer counts, and the gate says so."""
    permission_require(user=user, permission="curriculum.delete_solution")
    with transaction.atomic():
        chapter_lock(chapter_id=problem.chapter_id)
        Solution.objects.filter(problem=problem).delete()
        chapter_touch(chapter_id=problem.chapter_id)


def problem_delete(*, problem: Problem, user: Any = None) -> None:
    permission_require(user=user, permission="curriculum.delete_problem")
    with transaction.atomic():
        chapter_lock(chapter_id=problem.chapter_id)
        problem.delete()
        chapter_touch(chapter_id=problem.chapter_id)


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
    "position",
]
"""What a chapter file sets on each problem (the key matches it, the chapter owns it)."""


def problems_replace(*, chapter: Chapter, problems: list[dict], user: Any = None) -> int:
    """A chapter's problems as a checked file gives them, matched by key so that an unchanged
    problem keeps its verdict; in bulk, so thousands cost a few statements. The file validator
    has held every problem to the rules its full_clean would. Returns the checks sent."""
    kept = {p["key"] for p in problems}
    needed = ["add_problem", "change_problem", "add_solution", "change_solution"]
    needed += ["delete_problem"] if _gone(chapter, kept) else []
    for codename in needed:
        permission_require(user=user, permission=f"curriculum.{codename}")
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
        solution_ids = rows_upsert(
            Solution,
            [{"problem_id": pk} | p["solution"] for pk, p in solved],
            unique=["problem"],
            update=["steps", "answer", "published"],
        )
        sent = verdicts_request(
            asked=[
                (
                    solution_ids[(pk,)],
                    chapter.pk,
                    fingerprint_of(**_checked(p), answer=p["solution"]["answer"]),
                )
                for pk, p in solved
            ]
        )
        chapter_touch(chapter_id=chapter.pk)
    return len(sent)


def problem_version(problem: Problem) -> str:
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
    if stored is None or problem_version(stored) != opened:
        raise SourceChanged("the problem changed since that version was read")


def _gone(chapter: Chapter, kept: set[str]) -> list[int]:
    """The chapter's problems whose keys the file no longer holds (read by key, not sent as a
    list of every key the file keeps)."""
    return [pk for pk, key in chapter.problems.values_list("pk", "key") if key not in kept]


def _checked(clean: dict) -> dict[str, Any]:
    """What of a clean problem its verdict's fingerprint covers."""
    fields = _problem_fields(clean)
    return {name: fields[name] for name in ("operation", "inputs", "ask", "rtol", "atol", "digits")}


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
    }


def _permission(model: str, instance: Any) -> str:
    return f"curriculum.{'change' if instance.pk else 'add'}_{model}"
