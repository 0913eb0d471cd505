"""Review, as Wagtail's workflows have it: an Author submits a chapter with a note, Editors
find it in their queue (oldest first) and publish it with release notes (`gate.ChapterPublish`)
or return it with comments the Author reads on the chapter's page.

Each is an action (`domain.actions`) under the chapter's row lock, as every edit is.
"""

from dataclasses import dataclass, field
from typing import ClassVar

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from curriculum.models import Chapter, Review

from .actions import Action
from .gate import notes_reasons
from .locks import chapter_lock
from .roles import PUBLISH_PERMISSION, Forbidden
from .selectors import chapters_with_parts

RETURN_FOR_EDITORS = "only Editors return a chapter to its author"
NOT_SUBMITTED = "it is not waiting for review"
NO_COMMENTS = "comments: say what the author should change (required)"


class ReviewRefused(ValueError):
    """The request cannot be made as sent (not a matter of role): every reason, with its path."""

    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__("; ".join(reasons))


@dataclass(kw_only=True)
class ReviewAction(Action):
    chapter: Chapter
    forbidden: list[str] = field(init=False, default_factory=list)

    def lock(self) -> None:
        chapter_lock(chapter_id=self.chapter.pk)

    def check(self) -> list[str]:
        self.forbidden = super().check()
        return self.forbidden + self.reasons()

    def reasons(self) -> list[str]:
        return []

    def refuse(self, reasons: list[str]) -> Exception:
        return Forbidden("; ".join(self.forbidden)) if self.forbidden else ReviewRefused(reasons)

    def stored(self) -> Review | None:
        return Review.objects.filter(chapter_id=self.chapter.pk).first()


@dataclass(kw_only=True)
class ReviewSubmit(ReviewAction):
    """Ask an Editor to review the chapter; sent again, the note is replaced and the chapter
    keeps its place in the queue."""

    note: str = ""
    needs: ClassVar[tuple[str, ...]] = ("curriculum.change_chapter",)

    def reasons(self) -> list[str]:
        return notes_reasons(self.note, name="note")

    def run(self) -> Review:
        review = self.stored()
        now = timezone.now()
        if review is None or review.status != Review.Status.SUBMITTED:
            review = review or Review(chapter_id=self.chapter.pk)
            review.submitted_at = now
        review.status = Review.Status.SUBMITTED
        review.note = self.note.strip()
        review.submitted_by = self.user.get_username() if self.user else "system"
        review.save()
        return review


@dataclass(kw_only=True)
class ReviewReturn(ReviewAction):
    """Back to the author with the Editor's comments; nothing is published."""

    comments: str = ""
    needs: ClassVar[tuple[str, ...]] = (PUBLISH_PERMISSION,)
    denied: ClassVar[str | None] = RETURN_FOR_EDITORS

    def reasons(self) -> list[str]:
        review = self.stored()
        reasons = []
        if review is None or review.status != Review.Status.SUBMITTED:
            reasons.append(f"{self.chapter.code}: {NOT_SUBMITTED}")
        if not self.comments.strip():
            reasons.append(NO_COMMENTS)
        return reasons + notes_reasons(self.comments, name="comments")

    def run(self) -> Review:
        review = Review.objects.get(chapter_id=self.chapter.pk)
        review.status = Review.Status.RETURNED
        review.comments = self.comments.strip()
        review.returned_by = self.user.get_username() if self.user else "system"
        review.returned_at = timezone.now()
        review.save()
        return review


def review_queue() -> QuerySet[Review]:
    """What Editors have to review: submitted chapters, the longest waiting first."""
    chapters = Prefetch("chapter", chapters_with_parts())  # as the gate reads them
    return Review.objects.filter(status=Review.Status.SUBMITTED).prefetch_related(chapters)
