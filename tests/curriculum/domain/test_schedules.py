"""Scheduled publishing: an Editor sets a time; then the gate runs again as that Editor, and a
refusal is kept with its reasons for the author to read; one publish per schedule."""

import datetime

import pytest
from django.utils import timezone

from curriculum.domain.chapter_files import chapter_import, chapter_source
from curriculum.domain.gate import ChapterPublish, chapter_publish
from curriculum.domain.reviews import ReviewRefused
from curriculum.domain.roles import Forbidden
from curriculum.domain.schedules import ScheduleCancel, SchedulePublish, due_publishes_run
from curriculum.models import Chapter, PublishSchedule, Release
from curriculum.tasks import publish_due_chapters
from tests.conftest import sketch, verify_now

HOUR = datetime.timedelta(hours=1)


@pytest.fixture
def ready(books):
    chapter_import(document=sketch())
    chapter = Chapter.objects.get(code="II.7")
    verify_now(chapter)
    return chapter


def schedule(chapter, user, *, notes: str = "Scheduled notes.") -> PublishSchedule:
    return SchedulePublish(
        chapter=chapter, user=user, publish_at=timezone.now() + HOUR, notes=notes
    ).execute()


def test_only_a_signed_in_editor_schedules_and_only_for_later(ready, alice, erin):
    with pytest.raises(Forbidden, match="only Editors schedule"):
        schedule(ready, alice)
    with pytest.raises(ReviewRefused, match="publish at: must be later than now"):
        SchedulePublish(chapter=ready, user=erin, publish_at=timezone.now() - HOUR).execute()
    with pytest.raises(
        ReviewRefused, match=r"at most 366 days ahead \(SCHEDULE_PUBLISH_MAX_DAYS\)"
    ):
        far = timezone.now() + 367 * 24 * HOUR
        SchedulePublish(chapter=ready, user=erin, publish_at=far).execute()
    with pytest.raises(ReviewRefused, match="set it signed in"):
        schedule(ready, None)
    assert not PublishSchedule.objects.exists()


def test_a_due_schedule_publishes_as_its_editor_with_its_notes_once(ready, erin):
    schedule(ready, erin)
    assert due_publishes_run() == []  # not yet
    later = timezone.now() + 2 * HOUR
    [run] = due_publishes_run(now=later)
    assert run.publication is not None and run.publication.made
    release = Release.objects.get(chapter=ready)
    assert (release.made_by, release.notes) == ("erin", "Scheduled notes.")
    assert not PublishSchedule.objects.exists()
    assert due_publishes_run(now=later) == []  # the beat again: nothing more


def test_a_schedule_the_gate_refuses_then_keeps_its_reasons_and_releases_nothing(ready, erin):
    schedule(ready, erin)
    chapter_import(document=chapter_source(code="II.7") | {"thesis": ""})  # broken meanwhile
    [run] = due_publishes_run(now=timezone.now() + 2 * HOUR)
    assert run.publication is None
    stored = PublishSchedule.objects.get(chapter=ready)
    assert stored.status == "refused" and stored.tried_at is not None
    assert "thesis: empty (required at every maturity)" in stored.reasons
    assert not Release.objects.exists()
    assert due_publishes_run(now=timezone.now() + 3 * HOUR) == []  # refused once, not retried


def test_an_editor_who_lost_the_role_is_refused_as_a_publish_by_them_would_be(ready, erin):
    schedule(ready, erin)
    erin.groups.clear()
    [run] = due_publishes_run(now=timezone.now() + 2 * HOUR)
    assert run.reasons == ("only Editors publish chapters",)
    assert not Release.objects.exists()


def test_an_unchanged_chapter_scheduled_makes_no_new_release_and_keeps_its_notes_to_say_so(
    ready, erin
):
    chapter_publish(chapter=ready, user=erin)
    schedule(ready, erin)
    publish_due_chapters_at = timezone.now() + 2 * HOUR
    [run] = due_publishes_run(now=publish_due_chapters_at)
    assert run.publication is not None and not run.publication.made
    assert Release.objects.filter(chapter=ready).count() == 1
    kept = PublishSchedule.objects.get(chapter=ready)
    assert (kept.status, kept.notes, kept.tried_at) == (
        "unreleased",
        "Scheduled notes.",
        publish_due_chapters_at,
    )
    assert kept.reasons == [run.publication.message]
    assert "The release notes were not recorded" in kept.reasons[0]
    assert due_publishes_run(now=publish_due_chapters_at + HOUR) == []  # ran once
    schedule(ready, erin)  # scheduled again: waiting, as any schedule
    assert PublishSchedule.objects.get(chapter=ready).status == "waiting"


def test_an_unchanged_chapter_scheduled_without_notes_leaves_nothing_behind(ready, erin):
    chapter_publish(chapter=ready, user=erin)
    schedule(ready, erin, notes="  ")
    [run] = due_publishes_run(now=timezone.now() + 2 * HOUR)
    assert run.publication is not None and not run.publication.made
    assert not PublishSchedule.objects.exists()


def test_publishing_by_hand_or_cancelling_ends_the_schedule(ready, erin):
    schedule(ready, erin)
    ScheduleCancel(chapter=ready, user=erin).execute()
    assert not PublishSchedule.objects.exists()
    schedule(ready, erin, notes="")
    chapter_publish(chapter=ready, user=erin)
    assert not PublishSchedule.objects.exists()


def test_a_release_made_before_a_schedule_s_time_keeps_its_notes_to_say_so(ready, erin):
    """Another publish's release ended the schedule, and its notes went without a word."""
    schedule(ready, erin)
    release = chapter_publish(chapter=ready, user=erin)
    kept = PublishSchedule.objects.get(chapter=ready)
    assert (kept.status, kept.notes) == ("unreleased", "Scheduled notes.")
    [said] = kept.reasons
    assert said.startswith(f"erin published release {release.number} at ")
    assert said.endswith(
        "before this publish's time, which ended it; that release carries its own notes, not these."
    )
    assert due_publishes_run(now=timezone.now() + 2 * HOUR) == []  # ended: it never runs
    chapter_import(document=chapter_source(code="II.7") | {"thesis": "Changed."})
    verify_now(ready)
    chapter_publish(chapter=ready, user=erin)  # the next release ends the notice
    assert not PublishSchedule.objects.exists()


def test_a_release_made_early_with_the_schedule_s_own_notes_just_ends_it(ready, erin):
    schedule(ready, erin)
    ChapterPublish(chapter=ready, user=erin, notes="Scheduled notes.").execute()
    assert not PublishSchedule.objects.exists()


def test_the_beat_task_reports_what_each_schedule_did(ready, erin):
    PublishSchedule.objects.create(
        chapter=ready, scheduled_by=erin, publish_at=timezone.now() - HOUR, notes=""
    )
    assert publish_due_chapters() == ["II.7: Published II.7 as release 1."]
