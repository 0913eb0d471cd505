"""The publication gate: the one place that decides whether a chapter may be released.

Like Wagtail's publish action, it is an action (`domain.actions`): `check()` then `execute()`, so
admin, the command line and the API behave identically. `check()` lists every reason, never just
the first. `execute()` re-checks under a row lock on the chapter, and every writer that can
break the rule (deleting or editing problems and solutions) takes the same lock first, so
two staff at once cannot produce a release that breaks it; it then locks the chapter's book,
which a rename locks too, so a book's numeral never changes under a release being made.

A chapter unchanged since its latest release (nothing readers see differs) makes no release:
the publish says so, and a withdrawn one is shown again as that release. Each release records
who made it (`publications`): the user, or the system and what ran it (`via`), and the
Editor's release notes readers are shown with it. Publishing ends the chapter's review request
and any schedule (`reviews`, `schedules`). A new release asks the worker for its PDF and its
book's (`printing`).

A publisher may name the version of the working copy they reviewed (admin's confirmation page,
the API's If-Match, `publish_chapter --reviewed`): a publish over anything newer is refused, so
an Editor never releases an edit they did not see.
"""

import copy
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.conf import settings

from curriculum.models import Chapter, Release, Review
from curriculum.models.course import code_book_mismatch
from curriculum.models.fields import lf

from .actions import Action, Reason
from .claims.reasons import claim_reasons
from .counting import chapter_counts
from .documents import chapter_document
from .drafts import is_draft
from .judging import checked_words
from .locks import book_lock, chapter_lock
from .printing import pdfs_ask_for_release
from .publications import Publication, release_maker, release_unchanged
from .references import chapters_for, reference_errors, release_reference_errors
from .revisions import chapters_moved
from .roles import PUBLISH_PERMISSION, Forbidden
from .schedule_notices import schedule_ended
from .selectors import chapters_with_parts
from .snapshots import chapter_snapshot
from .webhooks import chapter_published, chapter_visibility_told
from .working_copy import NOT_A_SOURCE_TAG, names_no_source, source_tag, tag_named

NOT_AN_EDITOR = "only Editors publish chapters"
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
    """Every rule the chapter breaks now, each with the part of the file it names (`Reason`);
    empty when it may be released."""
    counts = chapter_counts(chapter)
    level = counts.level
    document = chapter_document(chapter)
    reasons: list[str] = [
        Reason(f"{field.replace('_', ' ')}: empty (required at every maturity)", field)
        for field in PROSE_REQUIRED
        if not (getattr(chapter, field) or "").strip()
    ]
    if mismatch := code_book_mismatch(chapter.code, chapter.book.numeral):
        reasons.append(Reason(f"code {chapter.code}: {mismatch}", "code"))  # its book renamed
    if counts.worked < level.worked:
        reasons.append(
            Reason(
                f"worked problems: {counts.worked} of {level.worked} required at {level.code} "
                "are published and verified",
                "problems",
            )
        )
    if counts.variants < level.variants:
        reasons.append(
            Reason(
                f"variants: the verified worked problems cover {counts.variants} distinct "
                f"variant{'s' * (counts.variants != 1)}, "
                f"{level.code} requires {level.variants}",
                "problems",
            )
        )
    if counts.exercises < level.exercises:
        reasons.append(
            Reason(
                f"exercises: {counts.exercises} of {level.exercises} required at {level.code} "
                "are published and verified",
                "problems",
            )
        )
    for strand in counts.strands:
        if not strand.met:
            reasons.append(
                Reason(
                    f"strand {strand.kind}: {strand.done} of {strand.target} done "
                    f"({strand.description})",
                    f"strands.{strand.kind}",
                )
            )
    reasons += _solution_reasons(chapter)
    index = chapters_for(document)
    references = [
        Reason(f"{path}: {why}", path)
        for path, why in reference_errors(document, index)
        + release_reference_errors(document, index)
    ]
    return reasons + references + claim_reasons(document)


def _solution_reasons(chapter: Chapter) -> list[str]:
    """Each problem without a published, verified solution, at its place in the file (the
    file lists them in this order: `documents.chapter_document`)."""
    reasons: list[str] = []
    for index, problem in enumerate(chapter.problems.all()):
        solution = getattr(problem, "solution", None)
        path = f"problems[{index}].solution"
        if solution is None:
            reasons.append(Reason(f"problem {problem.key}: has no solution", path))
        elif is_draft(problem):
            reasons.append(Reason(f"problem {problem.key}: has no answer yet (a draft)", path))
        elif not solution.published:
            reasons.append(Reason(f"problem {problem.key}: its solution is not published", path))
        else:
            state = problem.verdict_state  # type: ignore[attr-defined]
            if state != "verified":
                reasons.append(
                    Reason(
                        f"problem {problem.key}: its answer is not verified ({state}"
                        f"{_detail(solution) if state in ('mismatch', 'error') else ''})",
                        path,
                    )
                )
    return reasons


def notes_reasons(notes: str, *, name: str = "release notes") -> list[str]:
    """A text an Editor or Author writes in review (notes, a note, comments) is bounded, and
    holds no NUL, which no text column stores (a form's NUL had been a 500)."""
    limit = settings.LIMIT_REVIEW_TEXT_CHARS
    reasons = [f"{name}: {len(notes)} characters, at most {limit}"] if len(notes) > limit else []
    if "\x00" in notes:
        reasons.append(f"{name}: contains a NUL character")
    return reasons


def _detail(solution) -> str:
    verdict = solution.verdict
    if verdict.status == "mismatch" and verdict.max_abs_error is not None:
        checked = checked_words(solution.problem)  # the floor said, as the verdict applied it
        return f": max abs error {verdict.max_abs_error:.3g}, checked {checked}"
    return f": {verdict.message}" if verdict.message else ""


@dataclass(kw_only=True)
class ChapterPublish(Action):
    chapter: Chapter
    # the working copy's versions (`source_tag`, "*" for any) the publisher reviewed;
    # None when they name none
    reviewed: frozenset[str] | None = None
    via: str = ""  # what ran it, recorded when no user did ("seed", "publish_chapter")
    notes: str = ""  # the release notes readers are shown with the release it makes
    needs: ClassVar[tuple[str, ...]] = (PUBLISH_PERMISSION,)
    denied: ClassVar[str | None] = NOT_AN_EDITOR
    loaded: Chapter = field(init=False)  # as check() read it, under the lock in execute()

    def check(self) -> list[str]:
        self.loaded = chapters_with_parts().get(pk=self.chapter.pk)
        return (
            super().check()
            + self.outdated(self.loaded)
            + notes_reasons(self.notes)
            + publish_reasons(self.loaded)
        )

    def outdated(self, loaded: Chapter) -> list[str]:
        """The refusal when the working copy is not a version the publisher reviewed."""
        if self.reviewed is None:
            return []
        if names_no_source(self.reviewed):
            return [NOT_A_SOURCE_TAG]
        tag = source_tag(code=loaded.code, document=chapter_document(loaded))
        return [] if tag_named(tag, self.reviewed) else [CHANGED_SINCE_REVIEW]

    def lock(self) -> None:
        locked = chapter_lock(chapter_id=self.chapter.pk)
        book_lock(book_id=locked.book_id)  # a rename of the book waits, or is seen here

    def refuse(self, reasons: list[str]) -> Exception:
        if NOT_AN_EDITOR in reasons:
            return PublishForbidden(NOT_AN_EDITOR)
        if CHANGED_SINCE_REVIEW in reasons or NOT_A_SOURCE_TAG in reasons:
            return PublishOutdated(reasons)
        return PublishRefused(reasons)

    def run(self) -> Publication:
        loaded = self.loaded
        shown_again = loaded.state != Chapter.State.PUBLISHED
        snapshot, latest = release_now(loaded)
        made = not release_unchanged(snapshot=snapshot, latest=latest)
        notes = lf(self.notes).strip()  # every caller's: admin's browser and the API send CRLF
        loaded.state = Chapter.State.PUBLISHED
        Review.objects.filter(chapter_id=loaded.pk).delete()  # published: its review is done
        if made or shown_again:
            Chapter.objects.filter(pk=loaded.pk).update(state=Chapter.State.PUBLISHED)
            chapters_moved({loaded.pk})  # with those leaning on it: they show its released title
        if latest is not None and not made:
            schedule_ended(chapter_id=loaded.pk, release=None, via=self.via)
            if shown_again:
                chapter_visibility_told(chapter=loaded, shown=True)
            return Publication(
                release=latest, made=False, shown_again=shown_again, notes_unrecorded=bool(notes)
            )
        release = Release.objects.create(
            chapter=loaded,
            number=(latest.number if latest else 0) + 1,
            snapshot=snapshot,
            created_by=self.user if getattr(self.user, "pk", None) else None,
            made_by=release_maker(user=self.user, via=self.via),
            notes=notes,
        )
        schedule_ended(chapter_id=loaded.pk, release=release, via=self.via)
        chapter_published(code=loaded.code, release=release.number)
        pdfs_ask_for_release(release)  # the worker prints them once this commits
        return Publication(release=release, made=True)


def release_now(loaded: Chapter) -> tuple[dict[str, Any], Release | None]:
    """The snapshot a publish would release now, and the chapter's latest release;
    `loaded` from `chapters_with_parts`."""
    published = copy.copy(loaded)
    published.state = Chapter.State.PUBLISHED  # as the release shows it
    return chapter_snapshot(published), loaded.releases.order_by("-number").first()


def unchanged_release(loaded: Chapter) -> Release | None:
    """The latest release when publishing now would make none (nothing readers see changed)."""
    snapshot, latest = release_now(loaded)
    return latest if release_unchanged(snapshot=snapshot, latest=latest) else None


def chapter_publish(*, chapter: Chapter, user=None, via: str = "") -> Release:
    """The chapter's latest release once published (the one made, or the unchanged latest)."""
    return ChapterPublish(chapter=chapter, user=user, via=via).execute().release
