"""What a publish does to the chapter's scheduled publish: it ends it, and where the schedule's
release notes go with no release, the chapter's page says so, quoting them (`UNRELEASED`), until
a release is made or the Editor schedules again or cancels. Notes go with no release when the
schedule runs and nothing readers see changed, or when another publish makes the release first.
"""

import datetime

from django.utils import timezone

from curriculum.models import PublishSchedule, Release

VIA = "schedule"
"""How a release made by a schedule is recorded (`publications.release_maker`)."""


def schedule_ended(*, chapter_id: int, release: Release | None, via: str) -> None:
    """A publish's end of the chapter's schedule. `release`: the one it made, or None. A
    schedule waiting with notes, ended by another publish's release, is kept to say so."""
    schedules = PublishSchedule.objects.filter(chapter_id=chapter_id)
    if release is None:  # no release: a notice of notes no release held stays
        schedules.exclude(status=PublishSchedule.Status.UNRELEASED).delete()
        return
    waiting = (
        schedules.filter(status=PublishSchedule.Status.WAITING)
        .exclude(notes="")
        .exclude(notes=release.notes)  # published early with these very notes: nothing lost
        .first()
    )
    if waiting is not None and via != VIA:
        now = timezone.now()
        said = (
            f"{release.made_by} published release {release.number} at {now:%Y-%m-%d %H:%M} "
            "UTC, before this publish's time, which ended it; that release carries its own "
            "notes, not these."
        )
        unreleased_kept(waiting, said, now)
        return
    schedules.delete()


def unreleased_kept(
    schedule: PublishSchedule, said: str, now: datetime.datetime, *, made_again: bool = False
) -> None:
    """Keep `schedule` as the notice that its notes went with no release, and why. A schedule
    the publish deleted already (`made_again`) is stored again under its own id."""
    schedule.status = PublishSchedule.Status.UNRELEASED
    schedule.reasons = [said]
    schedule.tried_at = now
    schedule.save(force_insert=made_again)


def notes_unreleased(schedule: PublishSchedule | None) -> str | None:
    """The notes a schedule could not record, which the next publish may carry; else None."""
    if schedule is not None and schedule.status == PublishSchedule.Status.UNRELEASED:
        return schedule.notes
    return None
