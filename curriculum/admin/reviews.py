"""Review in admin: Authors submit a chapter (its page's "Submit for review…"), Editors work
through the Review queue and, on the chapter's Publish page, publish it with release notes,
schedule its publish, or return it with comments. Every button calls a domain action
(`domain.reviews`, `domain.schedules`, `domain.gate`); a refused one shows its page again with
what was typed kept and every reason."""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from curriculum.domain.chapter_files import source_tag
from curriculum.domain.gate import (
    CHANGED_SINCE_REVIEW,
    ChapterPublish,
    PublishOutdated,
    PublishRefused,
    publish_reasons,
    unchanged_release,
)
from curriculum.domain.reviews import ReviewRefused, ReviewReturn, ReviewSubmit, review_queue
from curriculum.domain.roles import PUBLISH_PERMISSION, Forbidden
from curriculum.domain.schedule_notices import notes_unreleased
from curriculum.domain.schedules import ScheduleCancel, SchedulePublish, chapter_schedule
from curriculum.models import Chapter, Review

from .saves import ReadOnly


class ScheduleForm(forms.Form):
    publish_at = forms.DateTimeField(
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        error_messages={
            "required": "publish at: give a date and time (UTC)",
            "invalid": "publish at: a date and time, as 2030-01-31T09:00 (UTC)",
        },
    )


def _review(chapter: Chapter) -> Review | None:
    return Review.objects.filter(chapter_id=chapter.pk).first()


class ChapterReviews:
    """The chapter pages of review: mixed into ChapterAdmin (a ModelAdmin)."""

    def has_publish_permission(self, request) -> bool:
        return request.user.has_perm(PUBLISH_PERMISSION)

    def review_urls(self) -> list:
        view = self.admin_site.admin_view  # type: ignore[attr-defined]
        return [
            path("<int:pk>/publish/", view(self.publish_view), name="curriculum_chapter_publish"),
            path("<int:pk>/submit/", view(self.submit_view), name="curriculum_chapter_submit"),
        ]

    def review_status(self, chapter: Chapter) -> dict:
        """What the chapter's page says of its review and schedule."""
        return {"review": _review(chapter), "schedule": chapter_schedule(chapter)}

    def _reviewed_chapter(self, request, pk) -> Chapter:
        chapter = get_object_or_404(self.get_queryset(request), pk=pk)  # type: ignore[attr-defined]
        if not self.has_change_permission(request, chapter):  # type: ignore[attr-defined]
            raise PermissionDenied
        return chapter

    def _back(self, chapter: Chapter) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:curriculum_chapter_change", args=[chapter.pk]))

    def _page(self, request, chapter, template: str, title: str, **context) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]
            "opts": self.opts,  # type: ignore[attr-defined]
            "original": chapter,
            "title": title,
            "limit": settings.LIMIT_REVIEW_TEXT_CHARS,
            **context,
        }
        return TemplateResponse(request, f"admin/curriculum/chapter/{template}", context)

    def submit_view(self, request, pk):
        """An Author asks an Editor to review the chapter, with a note."""
        chapter = self._reviewed_chapter(request, pk)
        note = request.POST.get("note", "") if request.method == "POST" else ""
        if request.method == "POST":
            try:
                ReviewSubmit(chapter=chapter, user=request.user, note=note).execute()
            except ReviewRefused as refusal:
                return self._submit_page(request, chapter, note, refusal.reasons)
            except Forbidden as refusal:
                self.message_user(request, str(refusal), messages.ERROR)  # type: ignore[attr-defined]
                return self._back(chapter)
            self.message_user(  # type: ignore[attr-defined]
                request, f"{chapter.code} is in the Editors' review queue.", messages.SUCCESS
            )
            return self._back(chapter)
        stored = _review(chapter)
        kept = stored.note if stored and stored.status == Review.Status.SUBMITTED else ""
        return self._submit_page(request, chapter, kept, [])

    def _submit_page(self, request, chapter, note: str, errors: list[str]):
        return self._page(
            request,
            chapter,
            "submit_review.html",
            f"Submit {chapter.code} for review",
            note=note,
            errors=errors,
            reasons=publish_reasons(chapter),
            review=_review(chapter),
        )

    def publish_view(self, request, pk):
        """Editors only. GET says what a publish will do, with every reason the gate gives;
        POST publishes (with release notes), schedules, cancels a schedule, or returns the
        chapter to its author, by the button pressed."""
        chapter = self._reviewed_chapter(request, pk)
        if not self.has_publish_permission(request):
            raise PermissionDenied
        if request.method != "POST":
            return self._publish_page(request, chapter)
        for button, act in (
            ("_return", self._return),
            ("_schedule", self._schedule),
            ("_unschedule", self._unschedule),
        ):
            if button in request.POST:
                return act(request, chapter)
        return self._publish(request, chapter)

    def _publish_page(self, request, chapter, errors=(), kept=None, status=200):
        action = ChapterPublish(chapter=chapter, user=request.user)
        reasons = action.check()
        status = self.review_status(chapter)
        unreleased = notes_unreleased(status["schedule"])
        if kept is None and unreleased is not None:
            kept = dict.fromkeys(("notes", "schedule_notes"), unreleased)  # offered again
        kept = kept or {}
        return self._page(
            request,
            chapter,
            "publish_confirm.html",
            f"Publish {chapter.code}?",
            reasons=reasons,
            unchanged=None if reasons else unchanged_release(action.loaded),
            next_release=(getattr(chapter, "latest", None) or 0) + 1,  # ChapterAdmin's count
            reviewed=source_tag(code=chapter.code),  # what Publish will release
            errors=list(errors),
            kept=kept,
            **status,
        )

    def _publish(self, request, chapter):
        reviewed = request.POST.get("reviewed")
        notes = request.POST.get("notes", "")
        action = ChapterPublish(
            chapter=chapter,
            user=request.user,
            reviewed=None if reviewed is None else frozenset({reviewed}),
            notes=notes,
        )
        try:
            publication = action.execute()
        except Forbidden as refusal:
            self.message_user(request, str(refusal), messages.ERROR)  # type: ignore[attr-defined]
            return self._back(chapter)
        except PublishOutdated:  # the confirmation again, as the chapter is now
            errors = [f"Not published: {CHANGED_SINCE_REVIEW}."]
            return self._publish_page(request, chapter, errors, {"notes": notes})
        except PublishRefused as refusal:
            n = len(refusal.reasons)
            errors = [f"Publish refused. {n} reason{'s' * (n != 1)}:", *refusal.reasons]
            return self._publish_page(request, chapter, errors, {"notes": notes})
        level = messages.SUCCESS if publication.made else messages.INFO
        self.message_user(request, publication.message, level)  # type: ignore[attr-defined]
        return self._back(chapter)

    def _return(self, request, chapter):
        comments = request.POST.get("comments", "")
        try:
            ReviewReturn(chapter=chapter, user=request.user, comments=comments).execute()
        except ReviewRefused as refusal:
            errors = ["Not returned.", *refusal.reasons]
            return self._publish_page(request, chapter, errors, {"comments": comments})
        self.message_user(  # type: ignore[attr-defined]
            request, f"{chapter.code} was returned to its author with your comments."
        )
        return HttpResponseRedirect(reverse("admin:curriculum_review_changelist"))

    def _schedule(self, request, chapter):
        notes = request.POST.get("schedule_notes", "")
        kept = {"schedule_notes": notes, "publish_at": request.POST.get("publish_at", "")}
        form = ScheduleForm(request.POST)
        if not form.is_valid():
            errors = ["Not scheduled.", *form.errors["publish_at"]]
            return self._publish_page(request, chapter, errors, kept)
        at = form.cleaned_data["publish_at"]
        try:
            SchedulePublish(
                chapter=chapter, user=request.user, publish_at=at, notes=notes
            ).execute()
        except ReviewRefused as refusal:
            errors = ["Not scheduled.", *refusal.reasons]
            return self._publish_page(request, chapter, errors, kept)
        self.message_user(  # type: ignore[attr-defined]
            request,
            f"{chapter.code} will be published at {at:%Y-%m-%d %H:%M} UTC, if the gate "
            "allows it then.",
        )
        return self._back(chapter)

    def _unschedule(self, request, chapter):
        schedule = chapter_schedule(chapter)
        ScheduleCancel(chapter=chapter, user=request.user).execute()
        said = (
            "nothing was scheduled"
            if schedule is None
            else "the notes no release held are cleared"
            if notes_unreleased(schedule) is not None
            else "the scheduled publish is cancelled"
        )
        self.message_user(request, f"{chapter.code}: {said}.")  # type: ignore[attr-defined]
        return self._back(chapter)


@admin.register(Review)
class ReviewAdmin(ReadOnly, admin.ModelAdmin):
    """The Editors' queue: chapters submitted for review, the longest waiting first."""

    list_display = ["chapter_code", "title", "note", "submitted_by", "submitted_at", "gate", "open"]
    list_display_links = None
    list_per_page = settings.LIMIT_REVIEW_QUEUE_PAGE
    search_fields = ["chapter__code", "chapter__title"]

    def get_queryset(self, request):
        return review_queue()

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(PUBLISH_PERMISSION)

    has_module_permission = has_view_permission  # type: ignore[assignment]

    @admin.display(description="chapter", ordering="chapter__code")
    def chapter_code(self, review):
        return review.chapter.code

    @admin.display(description="title")
    def title(self, review):
        return review.chapter.title

    @admin.display(description="publish?")
    def gate(self, review):
        reasons = len(publish_reasons(review.chapter))
        return "ready" if not reasons else f"{reasons} to fix"

    @admin.display(description="review")
    def open(self, review):
        url = reverse("admin:curriculum_chapter_publish", args=[review.chapter_id])
        return format_html(
            '<a class="review-link" href="{}">Review {}</a>', url, review.chapter.code
        )
