"""Every mutation of the course, one service each: admin, API, files and commands call these.

Each checks its permission here (a user of None is the command line, run by whoever runs the
server), takes the chapter's row lock first (the gate re-checks under the same lock), cleans
in full before saving, and moves the chapter's version. Withdrawing is an Editor's act, as
publishing is, so no other writer may reach it by another path (a state field, a file).
"""

from typing import Any

from django.db import transaction

from curriculum.models import Chapter, Problem, Solution

from .gate import PUBLISH_PERMISSION, PublishForbidden
from .locks import chapter_lock
from .roles import permission_require
from .verification import chapter_touch, verdict_request

WITHDRAW_FOR_EDITORS = (
    "withdrawing or re-showing a released chapter is for Editors, as publishing is"
)


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


def _permission(model: str, instance: Any) -> str:
    return f"curriculum.{'change' if instance.pk else 'add'}_{model}"
