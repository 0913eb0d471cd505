"""Releases in admin: listed on their chapter's page and read on their own, never edited.

Each is listed as it was released (its title then, from its overview) and by who made it (a user
or the system, recorded on it), never by the chapter's title or account as they are now."""

from django.contrib import admin
from django.utils.html import format_html

from curriculum.domain.releases import release_changes
from curriculum.models import Release

from .saves import ChosenFromTheList, ReadOnly


class ReleaseInline(ReadOnly, admin.TabularInline):
    model = Release
    extra = 0
    fields = ["number", "made_by", "created_at"]
    readonly_fields = ["number", "made_by", "created_at"]
    template = "admin/curriculum/chapter/releases.html"  # listed, never posted back
    verbose_name_plural = "releases (what readers are served; the working copy stays editable)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("chapter").defer("snapshot")


def release_link(release: Release) -> str:
    return format_html('<a href="{}">Release {}</a>', release.get_absolute_url(), release.number)


@admin.register(Release)
class ReleaseAdmin(ReadOnly, ChosenFromTheList):
    """Read-only for everyone, superusers included: a release is an immutable snapshot."""

    list_display = ["code", "number", "title", "made_by", "created_at", "read"]
    list_filter = ["chapter__book"]
    list_select_related = ["chapter"]
    fields = ("code", "number", "title", "made_by", "created_at", "read", "changes", "snapshot")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).defer("snapshot")  # loaded only where it is shown

    @admin.display(description="chapter", ordering="chapter__code")
    def code(self, release):
        return release.chapter.code

    @admin.display(description="title as released")
    def title(self, release):
        return release.overview.get("title", "")

    @admin.display(description="read")
    def read(self, release):
        return release_link(release)

    @admin.display(description="changes since the previous release")
    def changes(self, release):
        return format_html('<pre class="release-diff">{}</pre>', release_changes(release=release))
