"""A chapter's revisions in admin: the list, a compare of any two field by field, and revert.

Revert asks first, showing what it would change in the working copy; it is refused, nothing
written, when the chapter changed since that page was opened (as a chapter page's save is) or
the user may not edit the chapter (the import's permissions: `revision_revert`).
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from curriculum.domain.chapter_files import ChapterFileError
from curriculum.domain.chapter_history import chapter_history
from curriculum.domain.revision_changes import document_changes
from curriculum.domain.revision_revert import chapter_revert, revert_document, revert_import
from curriculum.domain.roles import Forbidden
from curriculum.domain.working_copy import SourceChanged, chapter_source, source_tag
from curriculum.models import Chapter, ChapterRevision

from .conflicts import OPENED_CHANGED


class ChapterRevisions(admin.ModelAdmin):
    """Mixed into ChapterAdmin: its revisions pages."""

    def get_urls(self):
        listed = self.admin_site.admin_view(self.revisions_view)
        revert = self.admin_site.admin_view(self.revert_view)
        return [
            path("<int:pk>/revisions/", listed, name="curriculum_chapter_revisions"),
            path(
                "<int:pk>/revisions/<int:number>/revert/",
                revert,
                name="curriculum_chapter_revert",
            ),
            *super().get_urls(),
        ]

    def _revised_chapter(self, request, pk: int) -> Chapter:
        chapter = get_object_or_404(Chapter.objects.select_related("book"), pk=pk)
        if not self.has_view_or_change_permission(request, chapter):
            raise PermissionDenied
        return chapter

    def _context(self, request, chapter: Chapter, title: str) -> dict:
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": chapter,
            "title": title,
        }

    def revisions_view(self, request, pk):
        """The kept revisions, newest first; with ?a=N&b=M, what changed from N to M."""
        chapter = self._revised_chapter(request, pk)
        revisions = chapter_history(chapter=chapter)
        context = self._context(request, chapter, f"Revisions of {chapter.code}")
        context["revisions"] = revisions
        numbers = [r.number for r in revisions]
        a, b = _number(request.GET.get("a")), _number(request.GET.get("b"))
        if a is not None and b is not None:
            if a not in numbers or b not in numbers:
                messages.error(request, "Choose two revisions from the list.")
                return HttpResponseRedirect(request.path)
            older, newer = (_revision(chapter, n) for n in (a, b))
            context.update(a=a, b=b, changes=document_changes(older.document, newer.document))
        else:
            context.update(
                a=numbers[1] if len(numbers) > 1 else None, b=numbers[0] if numbers else None
            )
        return TemplateResponse(request, "admin/curriculum/chapter/revisions.html", context)

    def revert_view(self, request, pk, number):
        """GET: what reverting to revision `number` changes now; POST: revert."""
        chapter = self._revised_chapter(request, pk)
        revision = _revision(chapter, number)
        if request.method == "POST":
            return HttpResponseRedirect(self._revert(request, chapter, revision))
        current = chapter_source(code=chapter.code)
        context = self._context(request, chapter, f"Revert {chapter.code} to revision {number}?")
        context.update(
            revision=revision,
            changes=document_changes(current, revert_document(revision=revision, chapter=chapter)),
            refusals=revert_import(revision=revision, user=request.user).check(),
            opened=source_tag(code=chapter.code, document=current),
        )
        return TemplateResponse(request, "admin/curriculum/chapter/revision_revert.html", context)

    def _revert(self, request, chapter: Chapter, revision: ChapterRevision) -> str:
        """Revert; where to go next (the chapter, or this page again when refused)."""
        again = reverse("admin:curriculum_chapter_revert", args=[chapter.pk, revision.number])
        try:
            result = chapter_revert(
                revision=revision, user=request.user, opened=request.POST.get("opened", "")
            )
        except SourceChanged:
            self.message_user(request, OPENED_CHANGED, messages.ERROR)
            return again
        except Forbidden as refusal:
            self.message_user(request, f"Not reverted: {refusal}", messages.ERROR)
            return again
        except ChapterFileError as refusal:
            for error in refusal.errors:
                self.message_user(request, f"Not reverted: {error}", messages.ERROR)
            return again
        checks = f"; {result.enqueued} answers are checked again" if result.enqueued else ""
        self.message_user(
            request, f"Reverted {chapter.code} to revision {revision.number}{checks}."
        )
        return reverse("admin:curriculum_chapter_change", args=[chapter.pk])


def _number(text: str | None) -> int | None:
    return int(text) if text and text.isascii() and text.isdigit() and len(text) < 10 else None


def _revision(chapter: Chapter, number: int) -> ChapterRevision:
    return get_object_or_404(ChapterRevision, chapter=chapter, number=number)
