"""The publication gate: the one place that decides whether a chapter may be released.

Like Wagtail's publish action, it is an object with `check()` then `execute()`, so admin,
the command line and the API behave identically. `check()` lists every reason, never just
the first. `execute()` re-checks under a row lock on the chapter, and every writer that can
break the rule (deleting or editing problems and solutions) takes the same lock first, so
two staff at once cannot produce a release that breaks it; it then locks the chapter's book,
which a rename locks too, so a book's numeral never changes under a release being made.

A publisher may name the version of the working copy they reviewed (admin's confirmation page,
the API's If-Match, `publish_chapter --reviewed`): a publish over anything newer is refused, so
an Editor never releases an edit they did not see.
"""

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from curriculum.models import Chapter, Release
from curriculum.models.course import code_book_mismatch

from .answers import tolerance_text
from .counting import chapter_counts
from .documents import chapter_document
from .locks import book_lock, chapter_lock
from .roles import Forbidden
from .selectors import chapters_with_parts
from .snapshots import chapter_snapshot
from .verification import verdict_state
from .working_copy import source_version, version_named

PUBLISH_PERMISSION = "curriculum.publish_chapter"
NOT_AN_EDITOR = "you may edit chapters but not publish them (Editors publish)"
CHANGED_SINCE_REVIEW = "the chapter changed since you reviewed it: review it again, then publish"


# What a reader meets first: a release without them is a page of empty sections.
PROSE_REQUIRED = ("thesis", "summary", "problem_statement")


class PublishRefused(Exception):
    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__("; ".join(reasons))


class PublishOutdated(PublishRefused):
    """The working copy is newer than the version the publisher reviewed (HTTP 412); the
    reasons still list every rule the chapter breaks besides."""


class PublishForbidden(Forbidden):
    pass


def publish_reasons(chapter: Chapter) -> list[str]:
    """Every rule the chapter breaks now; empty when it may be released."""
    counts = chapter_counts(chapter)
    level = counts.level
    reasons = [
        f"{field.replace('_', ' ')}: empty (required at every maturity)"
        for field in PROSE_REQUIRED
        if not (getattr(chapter, field) or "").strip()
    ]
    if mismatch := code_book_mismatch(chapter.code, chapter.book.numeral):
        reasons.append(f"code {chapter.code}: {mismatch}")  # its book was renamed
    if counts.worked < level.worked:
        reasons.append(
            f"worked problems: {counts.worked} of {level.worked} required at {level.code} "
            "are published and verified"
        )
    if counts.variants < level.variants:
        reasons.append(
            f"variants: the verified worked problems cover {counts.variants} distinct "
            f"variant{'s' * (counts.variants != 1)}, "
            f"{level.code} requires {level.variants}"
        )
    if counts.exercises < level.exercises:
        reasons.append(
            f"exercises: {counts.exercises} of {level.exercises} required at {level.code} "
            "are published and verified"
        )
    for strand in counts.strands:
        if not strand.met:
            reasons.append(
                f"strand {strand.kind}: {strand.done} of {strand.target} done "
                f"({strand.description})"
            )
    for problem in chapter.problems.all():
        solution = getattr(problem, "solution", None)
        if solution is None:
            reasons.append(f"problem {problem.key}: has no solution")
        elif not solution.published:
            reasons.append(f"problem {problem.key}: its solution is not published")
        else:
            state = verdict_state(solution)
            if state != "verified":
                reasons.append(
                    f"problem {problem.key}: its answer is not verified ({state}"
                    f"{_detail(solution) if state in ('mismatch', 'error') else ''})"
                )
    return reasons


def _detail(solution) -> str:
    verdict = solution.verdict
    if verdict.status == "mismatch" and verdict.max_abs_error is not None:
        problem = solution.problem
        return (
            f": max abs error {verdict.max_abs_error:.3g}, beyond the tolerance "
            f"{tolerance_text(problem)}"
        )
    return f": {verdict.message}" if verdict.message else ""


@dataclass
class ChapterPublish:
    chapter: Chapter
    user: Any = None  # a User; None for the command line with no --user
    # the working copy's versions (`source_version`, "*" for any) the publisher reviewed;
    # None when they name none
    reviewed: frozenset[str] | None = None

    def may_publish(self) -> bool:
        """No user is the command line, run by whoever runs the server."""
        return self.user is None or self.user.has_perm(PUBLISH_PERMISSION)

    def check(self) -> list[str]:
        reasons = [] if self.may_publish() else [NOT_AN_EDITOR]
        loaded = chapters_with_parts().get(pk=self.chapter.pk)
        return reasons + self.outdated(loaded) + publish_reasons(loaded)

    def outdated(self, loaded: Chapter) -> list[str]:
        """The refusal when the working copy is not a version the publisher reviewed."""
        if self.reviewed is None:
            return []
        version = source_version(code=loaded.code, document=chapter_document(loaded))
        return [] if version_named(version, self.reviewed) else [CHANGED_SINCE_REVIEW]

    def execute(self) -> Release:
        if not self.may_publish():
            raise PublishForbidden(NOT_AN_EDITOR)
        with transaction.atomic():
            locked = chapter_lock(chapter_id=self.chapter.pk)
            book_lock(book_id=locked.book_id)  # a rename of the book waits, or is seen here
            loaded = chapters_with_parts().get(pk=self.chapter.pk)
            outdated = self.outdated(loaded)
            reasons = outdated + publish_reasons(loaded)
            if outdated:
                raise PublishOutdated(reasons)
            if reasons:
                raise PublishRefused(reasons)
            # updated_at moves too: chapters leaning on this one show its released title
            Chapter.objects.filter(pk=loaded.pk).update(
                state=Chapter.State.PUBLISHED, updated_at=timezone.now()
            )
            loaded.state = Chapter.State.PUBLISHED
            last = loaded.releases.aggregate(n=Max("number"))["n"] or 0
            return Release.objects.create(
                chapter=loaded,
                number=last + 1,
                snapshot=chapter_snapshot(loaded),
                created_by=self.user if getattr(self.user, "pk", None) else None,
            )


def chapter_publish(*, chapter: Chapter, user=None) -> Release:
    return ChapterPublish(chapter=chapter, user=user).execute()
