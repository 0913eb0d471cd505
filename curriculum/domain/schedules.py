"""Scheduled publishing, as Wagtail's "go live at": an Editor sets a time and release notes;
at that time the beat (`tasks.publish_due_chapters`) runs the same gate (`ChapterPublish`) as
that Editor. A refusal is kept with the gate's reasons and shown on the chapter's page, until
the Editor schedules again or cancels; a publish ends the schedule (and the review request).
A run that makes no release (nothing readers see changed) with notes to record is kept too, as
UNRELEASED, and so is a schedule another publish's release ends first (`schedule_notices`).

A schedule goes with its Editor's account (never run as the system), and one whose Editor has
lost the role is refused as a publish by them would be.
"""

import datetime
from dataclasses import dataclass
from typing import ClassVar

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from curriculum.models import Chapter, PublishSchedule

from .gate import ChapterPublish, PublishRefused, notes_reasons
from .locks import chapter_lock
from .publications import Publication
from .reviews import ReviewAction
from .roles import PUBLISH_PERMISSION, Forbidden
from .schedule_notices import VIA, unreleased_kept

SCHEDULE_FOR_EDITORS = "only Editors schedule a publish"
SIGNED_IN = "a schedule runs as the Editor who sets it: set it signed in"


@dataclass(kw_only=True)
class SchedulePublish(ReviewAction):
    """Publish the chapter at `publish_at` (replacing any schedule it has)."""

    publish_at: datetime.datetime
    notes: str = ""
    needs: ClassVar[tuple[str, ...]] = (PUBLISH_PERMISSION,)
    denied: ClassVar[str | None] = SCHEDULE_FOR_EDITORS

    def reasons(self) -> list[str]:
        reasons = [] if getattr(self.user, "pk", None) else [SIGNED_IN]
        now = timezone.now()
        if self.publish_at <= now:
            reasons.append(f"publish at: must be later than now ({now:%Y-%m-%d %H:%M} UTC)")
        latest = now + datetime.timedelta(days=settings.SCHEDULE_PUBLISH_MAX_DAYS)
        if self.publish_at > latest:
            reasons.append(
                f"publish at: at most {settings.SCHEDULE_PUBLISH_MAX_DAYS} days ahead "
                f"(SCHEDULE_PUBLISH_MAX_DAYS), by {latest:%Y-%m-%d %H:%M} UTC"
            )
        return reasons + notes_reasons(self.notes)

    def run(self) -> PublishSchedule:
        schedule, _ = PublishSchedule.objects.update_or_create(
            chapter_id=self.chapter.pk,
            defaults={
                "publish_at": self.publish_at,
                "scheduled_by": self.user,
                "notes": self.notes.strip(),
                "status": PublishSchedule.Status.WAITING,
                "reasons": [],
                "tried_at": None,
            },
        )
        return schedule


@dataclass(kw_only=True)
class ScheduleCancel(ReviewAction):
    needs: ClassVar[tuple[str, ...]] = (PUBLISH_PERMISSION,)
    denied: ClassVar[str | None] = SCHEDULE_FOR_EDITORS

    def run(self) -> int:
        return PublishSchedule.objects.filter(chapter_id=self.chapter.pk).delete()[0]


@dataclass(frozen=True)
class ScheduledRun:
    code: str
    publication: Publication | None  # None: refused, for `reasons`
    reasons: tuple[str, ...] = ()


def due_publishes_run(*, now: datetime.datetime | None = None) -> list[ScheduledRun]:
    """Run every waiting schedule whose time has come, the earliest first, each in its own
    transaction under its chapter's lock (taken before the schedule's row, as a publish takes
    them), so two beats at once publish a chapter once."""
    now = now or timezone.now()
    due = PublishSchedule.objects.filter(
        status=PublishSchedule.Status.WAITING, publish_at__lte=now
    ).values_list("chapter_id", flat=True)
    return [run for chapter_id in list(due) if (run := _publish_due(chapter_id, now))]


def _publish_due(chapter_id: int, now: datetime.datetime) -> ScheduledRun | None:
    with transaction.atomic():
        chapter = chapter_lock(chapter_id=chapter_id)
        schedule = (
            PublishSchedule.objects.select_for_update()
            .filter(chapter_id=chapter_id, status=PublishSchedule.Status.WAITING)
            .filter(publish_at__lte=now)
            .select_related("scheduled_by")
            .first()
        )
        if schedule is None:  # published, cancelled or run meanwhile
            return None
        action = ChapterPublish(
            chapter=chapter, user=schedule.scheduled_by, notes=schedule.notes, via=VIA
        )
        try:
            publication = action.execute()
        except (PublishRefused, Forbidden) as refusal:
            reasons = getattr(refusal, "reasons", None) or [str(refusal)]
            schedule.status = PublishSchedule.Status.REFUSED
            schedule.reasons = reasons
            schedule.tried_at = now
            schedule.save(update_fields=["status", "reasons", "tried_at"])
            return ScheduledRun(code=chapter.code, publication=None, reasons=tuple(reasons))
        if publication.notes_unrecorded:  # the publish ended the schedule: kept to say so
            unreleased_kept(schedule, publication.message, now, made_again=True)
        return ScheduledRun(code=chapter.code, publication=publication)


def chapter_schedule(chapter: Chapter) -> PublishSchedule | None:
    return PublishSchedule.objects.filter(chapter_id=chapter.pk).first()
