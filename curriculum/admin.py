"""Django admin: configuration plus buttons that call the domain services.

No rule lives here: counts, debts and the gate come from `curriculum.domain`.
"""

from django.contrib import admin, messages
from django.db import transaction
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from curriculum.domain.counting import chapter_counts
from curriculum.domain.editing import problem_delete, problem_save
from curriculum.domain.gate import (
    ChapterPublish,
    PublishForbidden,
    PublishRefused,
    chapter_lock,
    publish_reasons,
)
from curriculum.domain.selectors import chapters_with_parts
from curriculum.domain.verification import verdict_request, verdict_state
from curriculum.models import (
    ApparatusLink,
    Book,
    Chapter,
    Figure,
    Notation,
    Problem,
    Proposition,
    Release,
    Solution,
    StrandItem,
)


@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ["numeral", "title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    search_fields = ["title", "numeral"]


class StrandItemInline(admin.StackedInline):
    model = StrandItem
    extra = 0
    fields = [("strand", "published", "position"), "title", "body"]
    classes = ["collapse"]


class FigureInline(admin.StackedInline):
    model = Figure
    extra = 0
    fields = [("label", "position"), "caption", "alt", "svg"]


class ApparatusLinkInline(admin.TabularInline):
    model = ApparatusLink
    fk_name = "chapter"
    extra = 0
    fields = ["entry", "position"]
    verbose_name = "apparatus link"

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "entry":
            kwargs["queryset"] = Chapter.objects.filter(code__startswith="0.")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class NotationInline(admin.TabularInline):
    model = Notation
    extra = 0
    fields = ["symbol", "meaning", "position"]


class PropositionInline(admin.StackedInline):
    model = Proposition
    extra = 0
    fields = [("number", "proof_published"), "title", "statement", "proof"]


class ProblemInline(admin.TabularInline):
    model = Problem
    extra = 0
    fields = ["key", "kind", "variant", "operation", "verdict"]
    readonly_fields = ["key", "operation", "verdict"]
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="verdict")
    def verdict(self, problem):
        return verdict_badge(getattr(problem, "solution", None))


class ReleaseInline(admin.TabularInline):
    model = Release
    extra = 0
    fields = ["number", "created_by", "created_at", "view"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="read")
    def view(self, release):
        url = f"/chapters/{release.chapter.code}/releases/{release.number}/"
        return format_html('<a href="{}">Release {}</a>', url, release.number)


def verdict_badge(solution) -> str:
    if solution is None:
        return format_html('<span class="verdict verdict-none">no solution</span>')
    state = verdict_state(solution)
    verdict = getattr(solution, "verdict", None)
    detail = ""
    if verdict is not None and state in ("verified", "mismatch") and verdict.max_abs_error is not None:
        detail = f" (max abs {verdict.max_abs_error:.2g}, rel {verdict.max_rel_error:.2g})"
    elif verdict is not None and state == "error":
        detail = f": {verdict.message}"
    colour = {"verified": "#1a7f37", "mismatch": "#b42318", "error": "#b42318"}.get(state, "#8a6d00")
    return format_html(
        '<strong style="color:{}">{}</strong>{}{}', colour, state, detail,
        "" if solution.published else " · unpublished",
    )


@admin.register(Chapter)
class ChapterAdmin(admin.ModelAdmin):
    list_display = ["code", "title", "book", "maturity", "state", "owes", "latest_release"]
    list_filter = ["book", "maturity", "state"]
    search_fields = ["code", "title", "author"]
    change_form_template = "admin/curriculum/chapter/change_form.html"
    readonly_fields = ["how_it_is_built", "what_it_owes"]
    fieldsets = [
        (None, {"fields": [("book", "code", "number"), "title", "author", ("maturity", "spine",
                                                                            "state")]}),
        ("How this chapter is built", {"fields": ["how_it_is_built", "what_it_owes"]}),
        ("The claim", {"fields": ["thesis", "summary", "before_you_start", "problem_statement"]}),
        ("Strand targets (mathematics follows the maturity level)",
         {"fields": [("basics_target", "concept_target", "theory_target", "practice_target")]}),
    ]
    inlines = [StrandItemInline, FigureInline, ApparatusLinkInline, NotationInline,
               PropositionInline, ProblemInline, ReleaseInline]

    def get_queryset(self, request):
        return chapters_with_parts().prefetch_related("releases")

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.state == Chapter.State.PUBLISHED:
            fields.append("state")
        return fields

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "state":
            kwargs["choices"] = [c for c in Chapter.State.choices
                                 if c[0] != Chapter.State.PUBLISHED]
        return super().formfield_for_choice_field(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        if change:
            chapter_lock(chapter_id=obj.pk)  # held until the admin's transaction commits
        super().save_model(request, obj, form, change)

    @admin.display(description="owes")
    def owes(self, chapter):
        return chapter_counts(chapter).owes

    @admin.display(description="latest release")
    def latest_release(self, chapter):
        releases = list(chapter.releases.all())
        return f"Release {max(r.number for r in releases)}" if releases else "—"

    @admin.display(description="counts")
    def how_it_is_built(self, chapter):
        if chapter.pk is None:
            return "—"
        counts = chapter_counts(chapters_with_parts().get(pk=chapter.pk))
        rows = format_html_join(
            "", "<li><strong>{}</strong> {}/{} <em>{}</em></li>",
            ((s.kind, s.done, s.target, s.description) for s in counts.strands),
        )
        level = counts.level
        return format_html(
            "<p>{}</p><ul>{}</ul><p>{}/{} problems · {}/{} variants · {}/{} exercises · "
            "owes {} more</p><p>{}</p>",
            level.label, rows, counts.worked, level.worked, counts.variants, level.variants,
            counts.exercises, level.exercises, counts.owes, counts.debt_sentence,
        )

    @admin.display(description="before you publish")
    def what_it_owes(self, chapter):
        if chapter.pk is None:
            return "—"
        reasons = publish_reasons(chapters_with_parts().get(pk=chapter.pk))
        if not reasons:
            return "Every rule holds: Publish will make a release."
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>",
                                                           ((r,) for r in reasons)))

    def get_urls(self):
        publish = self.admin_site.admin_view(self.publish_view)
        return [path("<int:pk>/publish/", publish, name="curriculum_chapter_publish"),
                *super().get_urls()]

    def publish_view(self, request, pk):
        chapter = get_object_or_404(Chapter, pk=pk)
        back = HttpResponseRedirect(reverse("admin:curriculum_chapter_change", args=[pk]))
        if request.method != "POST":
            return back
        try:
            release = ChapterPublish(chapter=chapter, user=request.user).execute()
        except PublishForbidden as refusal:
            self.message_user(request, str(refusal), messages.ERROR)
        except PublishRefused as refusal:
            self.message_user(
                request,
                format_html("Publish refused. {} reasons:<ul>{}</ul>", len(refusal.reasons),
                            format_html_join("", "<li>{}</li>", ((r,) for r in refusal.reasons))),
                messages.ERROR,
            )
        else:
            self.message_user(request, f"Published {chapter.code} as release {release.number}.",
                              messages.SUCCESS)
        return back


class SolutionInline(admin.StackedInline):
    model = Solution
    extra = 1
    max_num = 1
    fields = ["steps", "answer", "published", "verdict"]
    readonly_fields = ["verdict"]

    @admin.display(description="verdict")
    def verdict(self, solution):
        if solution.pk is None:
            return "—"
        badge = verdict_badge(solution)
        value = getattr(getattr(solution, "verdict", None), "engine_value", None)
        return format_html("{}<br>engine value: <code>{}</code>", badge, value) if value else badge


class VerdictFilter(admin.SimpleListFilter):
    title = "verdict"
    parameter_name = "verdict"

    def lookups(self, request, model_admin):
        return [(s, s) for s in ("pending", "verified", "mismatch", "error")] + [
            ("none", "no solution")]

    def queryset(self, request, queryset):
        if self.value() == "none":
            return queryset.filter(solution__isnull=True)
        if self.value():
            return queryset.filter(solution__verdict__status=self.value())
        return queryset


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ["__str__", "kind", "variant", "operation", "verdict"]
    list_filter = [VerdictFilter, "kind", "chapter__book", "chapter"]
    search_fields = ["key", "variant", "chapter__code", "statement"]
    list_select_related = ["chapter", "solution__verdict"]
    fields = [("chapter", "key", "position"), ("kind", "variant"), "statement", "operation",
              "inputs", "ask", ("rtol", "atol")]
    inlines = [SolutionInline]
    actions = ["verify_again"]

    @admin.display(description="verdict")
    def verdict(self, problem):
        return verdict_badge(getattr(problem, "solution", None))

    def save_model(self, request, obj, form, change):
        problem_save(problem=obj)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        solution = Solution.objects.filter(problem=form.instance).first()
        if solution is not None:
            verdict_request(solution=solution)

    def delete_model(self, request, obj):
        problem_delete(problem=obj)

    def delete_queryset(self, request, queryset):
        for problem in queryset:
            problem_delete(problem=problem)

    @admin.action(description="Verify again")
    def verify_again(self, request, queryset):
        with transaction.atomic():
            count = sum(verdict_request(solution=s, force=True)
                        for s in Solution.objects.filter(problem__in=queryset)
                        .select_related("problem"))
        self.message_user(request, f"{count} solutions sent to the verifier.")


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ["chapter", "number", "created_by", "created_at"]
    list_filter = ["chapter__book"]
    readonly_fields = ["chapter", "number", "created_by", "created_at", "snapshot"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
from curriculum.api import admin as api_admin  # noqa: E402,F401  (registers the token admin)
