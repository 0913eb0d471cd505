"""Django admin: configuration plus buttons that call the domain services.

No rule lives here: counts, debts and the gate come from `curriculum.domain`. The chapter page
follows the seed page's order (claim, strands, figures, apparatus, notation, propositions,
problems, releases) and opens with what the chapter still owes, so an author is told before
trying; Publish asks for confirmation on its own page (the CSP allows no inline script).
"""

import base64
import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.admin.widgets import AdminTextareaWidget
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Case, JSONField, Max, Value, When
from django.forms.fields import InvalidJSONInput
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

import attention
from curriculum.admin_saves import (
    ChapterPartsFormSet,
    ChosenFromTheList,
    ProblemAddsAPart,
    ReadOnly,
    TypesetOnce,
)
from curriculum.domain.answers import solution_lint
from curriculum.domain.chapter_files import ChapterFileError, json_document, source_version
from curriculum.domain.counting import chapter_counts
from curriculum.domain.editing import (
    book_save,
    chapter_save,
    chapter_withdraw,
    problem_delete,
    problem_save,
    problem_unchanged_require,
    problem_version,
    solution_delete,
)
from curriculum.domain.gate import (
    CHANGED_SINCE_REVIEW,
    PUBLISH_PERMISSION,
    ChapterPublish,
    PublishForbidden,
    PublishOutdated,
    PublishRefused,
    publish_reasons,
)
from curriculum.domain.ladder import SPINE_SENTENCES, STRAND_CODES
from curriculum.domain.releases import release_changes
from curriculum.domain.roles import Forbidden
from curriculum.domain.selectors import chapters_with_parts
from curriculum.domain.svg import svg_inline, svg_removals
from curriculum.domain.verification import solutions_verify, verdict_state
from curriculum.domain.working_copy import working_copy_require
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
from curriculum.models.course import APPARATUS_PREFIX, number_from_code

from .admin_conflicts import CheckedAgainWhenSaved

MARKDOWN_HELP = "Markdown; $…$ and $$…$$ are mathematics, checked with KaTeX when you save."
ADMIN_CSS = {"all": ["admin-extra/admin.css"]}


class RowsJSONField(forms.JSONField):
    """JSON as an author reads it: one key per line, one matrix row per line."""

    def to_python(self, value):
        """Read as the API reads a body (no key twice, bounded depth and digits); Django says
        only "Enter a valid JSON.", and an author needs the line and column."""
        if isinstance(value, str) and value.strip():
            try:
                json_document(value.encode())
            except ChapterFileError as refusal:
                error = refusal.__cause__
                if isinstance(error, json.JSONDecodeError):
                    raise forms.ValidationError(
                        f"Not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}."
                    ) from refusal
                raise forms.ValidationError(refusal.errors[0].removeprefix("body: ")) from refusal
        return super().to_python(value)

    def bound_data(self, data, initial):
        """What the form shows again after a refusal: Django's reading would fail the same way."""
        if self.disabled or not isinstance(data, str):
            return super().bound_data(data, initial)
        try:
            return json_document(data.encode())
        except ChapterFileError:
            return InvalidJSONInput(data)

    def prepare_value(self, value):
        if isinstance(value, InvalidJSONInput):
            return value
        return json_rows(value)


def json_rows(value, indent: str = "") -> str:
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = (f"{inner}{json.dumps(k)}: {json_rows(v, inner)}" for k, v in value.items())
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and value and all(isinstance(row, list) for row in value):
        rows = (inner + json_rows(row, inner) for row in value)
        return "[\n" + ",\n".join(rows) + f"\n{indent}]"
    return json.dumps(value, ensure_ascii=False)


class TextBoxes:
    """Text boxes sized for what they hold: one-liners stay short, code is monospace."""

    rows: dict[str, int] = {}
    code: frozenset[str] = frozenset()

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        name = db_field.name
        if isinstance(db_field, JSONField):
            kwargs["form_class"] = RowsJSONField
        if name in self.code:
            kwargs["widget"] = AdminTextareaWidget(
                attrs={
                    "rows": self.rows.get(name, 10),
                    "class": "vLargeTextField code",
                    "spellcheck": "false",
                }
            )
        elif name in self.rows:
            kwargs["widget"] = AdminTextareaWidget(attrs={"rows": self.rows[name]})
        return super().formfield_for_dbfield(db_field, request, **kwargs)


@admin.register(Book)
class BookAdmin(CheckedAgainWhenSaved, ChosenFromTheList):
    list_display = ["numeral", "title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    search_fields = ["title", "numeral"]
    refused_when_saved = (ValidationError,)  # Book.clean, again under the book's lock

    def save_model(self, request, obj, form, change):
        book_save(book=obj, user=request.user)


class StrandItemInline(TextBoxes, admin.TabularInline):
    model = StrandItem
    formset = ChapterPartsFormSet
    extra = 0
    fields = ["strand", "title", "body", "published", "position"]
    rows = {"body": 3}
    verbose_name_plural = "strand items (a published item counts towards its strand)"

    def get_queryset(self, request):
        order = Case(*(When(strand=code, then=Value(i)) for i, code in enumerate(STRAND_CODES)))
        return super().get_queryset(request).order_by(order, "position", "id")


class FigureInline(TextBoxes, admin.StackedInline):
    model = Figure
    formset = ChapterPartsFormSet
    extra = 0
    fields = [("label", "position"), "caption", "alt", "svg", "drawing"]
    readonly_fields = ["drawing"]
    rows = {"caption": 2, "alt": 3, "svg": 14}
    code = frozenset({"svg"})

    @admin.display(description="as readers see it")
    def drawing(self, figure):
        shown = svg_inline(figure.svg or "", alt=figure.alt)
        if not shown:
            return "; ".join(svg_removals(figure.svg or "")) or "—"
        encoded = base64.b64encode(shown.encode()).decode()
        preview = format_html(
            '<img class="figure-preview" src="data:image/svg+xml;base64,{}" alt="{}">',
            encoded,
            figure.alt,
        )
        removed = svg_removals(figure.svg)
        if not removed:
            return preview
        return format_html(
            '{}<p class="figure-removed">Left out for readers: {}</p>', preview, "; ".join(removed)
        )


class ApparatusLinkInline(admin.TabularInline):
    model = ApparatusLink
    formset = ChapterPartsFormSet
    fk_name = "chapter"
    extra = 0
    fields = ["entry", "position"]
    verbose_name = "apparatus link"
    verbose_name_plural = "apparatus (links to Book 0 entries; a link, not a gate)"

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name != "entry":
            return super().formfield_for_dbfield(db_field, request, **kwargs)
        kwargs["queryset"] = Chapter.objects.filter(code__startswith=APPARATUS_PREFIX)
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        # Pick an entry; adding or deleting a Book 0 entry from here would surprise an author.
        field.widget.can_add_related = field.widget.can_delete_related = False
        return field


class NotationInline(TextBoxes, admin.TabularInline):
    model = Notation
    formset = ChapterPartsFormSet
    extra = 0
    fields = ["symbol", "meaning", "position"]
    rows = {"meaning": 1}
    verbose_name_plural = "notation (rows in position order)"


class PropositionInline(TextBoxes, admin.StackedInline):
    model = Proposition
    formset = ChapterPartsFormSet
    extra = 0
    fields = [("number", "proof_published"), "title", "statement", "proof"]
    rows = {"statement": 4, "proof": 8}


class ProblemInline(admin.TabularInline):
    """A list: each problem, with its solution, is edited on its own page."""

    model = Problem
    extra = 0
    fields = ["key", "kind", "variant", "operation", "verdict"]
    readonly_fields = ["key", "kind", "variant", "operation", "verdict"]
    show_change_link = True
    verbose_name_plural = "problems (open one to edit it and its solution)"

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("solution__verdict")

    @admin.display(description="verdict")
    def verdict(self, problem):
        return verdict_badge(getattr(problem, "solution", None))


class ReleaseInline(ReadOnly, admin.TabularInline):
    model = Release
    extra = 0
    fields = ["number", "created_by", "created_at"]
    readonly_fields = ["number", "created_by", "created_at"]
    template = "admin/curriculum/chapter/releases.html"  # listed, never posted back
    verbose_name_plural = "releases (what readers are served; the working copy stays editable)"

    def get_queryset(self, request):
        return (
            super().get_queryset(request).select_related("chapter", "created_by").defer("snapshot")
        )


def release_link(release: Release) -> str:
    return format_html('<a href="{}">Release {}</a>', release.get_absolute_url(), release.number)


def verdict_badge(solution) -> str:
    if solution is None:
        return format_html('<span class="verdict verdict-none">no solution</span>')
    state = verdict_state(solution)
    return format_html(
        '<strong class="verdict verdict-{}">{}</strong>{}{}',
        state,
        state,
        verdict_detail(getattr(solution, "verdict", None), state),
        "" if solution.published else " · unpublished",
    )


def verdict_detail(verdict, state: str) -> str:
    if verdict is None:
        return ""
    if state == "error" or (state == "mismatch" and verdict.max_abs_error is None):
        return f": {verdict.message}"  # a shape mismatch: the message names both shapes
    if state in ("verified", "mismatch") and verdict.max_abs_error is not None:
        rel = "" if verdict.max_rel_error is None else f", rel {verdict.max_rel_error:.2g}"
        return f" (max abs {verdict.max_abs_error:.2g}{rel})"
    return ""


def latest_release_number(chapter: Chapter) -> int:
    """From ChapterAdmin's queryset annotation; 0 before the first release."""
    return getattr(chapter, "latest", None) or 0


class OpenedVersionForm(forms.ModelForm):
    """Carries the version of what it was opened on; a save over a newer version is refused
    with nothing written, so another writer's edit (the API, another tab) is never lost."""

    opened_version = forms.CharField(widget=forms.HiddenInput, required=False)

    @staticmethod
    def version_of(instance) -> str:
        raise NotImplementedError

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.fields["opened_version"].initial = self.version_of(self.instance)

    def clean(self):
        cleaned = super().clean()
        opened = cleaned.get("opened_version")
        if self.instance.pk and opened and opened != self.version_of(self.instance):
            raise forms.ValidationError(
                "Someone changed this since you opened it; nothing was saved. Open it again to "
                "see their changes, then make yours."
            )
        return cleaned


class ChapterForm(OpenedVersionForm):
    @staticmethod
    def version_of(instance) -> str:
        return source_version(code=instance.code)

    def clean(self):
        """Number is not asked: the code carries it (II.4 is chapter 4)."""
        cleaned = super().clean()
        if isinstance(code := cleaned.get("code"), str):
            self.instance.number = number_from_code(code) or self.instance.number
        return cleaned


@admin.register(Chapter)
class ChapterAdmin(TypesetOnce, CheckedAgainWhenSaved, TextBoxes, ChosenFromTheList):
    form = ChapterForm
    list_display = ["code", "title", "maturity", "state", "owes", "to_publish", "latest_release"]
    list_filter = ["book", "maturity", "state"]
    search_fields = ["code", "title", "author"]
    actions = ["withdraw"]
    change_form_template = "admin/curriculum/chapter/change_form.html"
    fieldsets = [
        (
            None,
            {
                "fields": [
                    ("book", "code"),
                    "title",
                    "author",
                    ("maturity", "spine", "state"),
                    "opened_version",
                ],
                "description": "The code gives the number (II.4 is chapter 4). The maturity "
                "level sets the problem quotas; state cannot be set to published here: Publish "
                "makes a release, and an Editor withdraws a released chapter with the list's "
                "Withdraw action. Once a chapter has a release, its code, book and number are "
                "fixed.",
            },
        ),
        ("The claim", {"fields": ["thesis", "summary"], "description": MARKDOWN_HELP}),
        (
            "The prose",
            {"fields": ["before_you_start", "problem_statement"], "description": MARKDOWN_HELP},
        ),
        (
            "Strand targets (mathematics follows the maturity level)",
            {"fields": [("basics_target", "concept_target", "theory_target", "practice_target")]},
        ),
    ]
    rows = {"thesis": 2, "summary": 2, "before_you_start": 6, "problem_statement": 6}
    inlines = [
        StrandItemInline,
        FigureInline,
        ApparatusLinkInline,
        NotationInline,
        PropositionInline,
        ProblemInline,
        ReleaseInline,
    ]

    class Media:
        css = ADMIN_CSS

    def get_queryset(self, request):
        return chapters_with_parts().annotate(latest=Max("releases__number"))

    def get_readonly_fields(self, request, obj=None):
        """A released chapter's state moves only by Publish and Withdraw (an Editor's acts)."""
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and latest_release_number(obj):
            fields.append("state")
        return fields

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "state":
            kwargs["choices"] = [
                c for c in Chapter.State.choices if c[0] != Chapter.State.PUBLISHED
            ]
        return super().formfield_for_choice_field(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        # the page's version is checked again under the chapter lock, held until the admin's
        # transaction commits, so the inlines saved next are covered too
        if change and (opened := form.cleaned_data.get("opened_version")):
            working_copy_require(chapter_id=obj.pk, versions=frozenset({opened}))
        chapter_save(chapter=obj, user=request.user)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Problem:
            return super().save_formset(request, form, formset, change)
        formset.save(commit=False)  # the list edits nothing; it only deletes
        for problem in formset.deleted_objects:
            problem_delete(problem=problem, user=request.user)
        return None

    def has_publish_permission(self, request) -> bool:
        return request.user.has_perm(PUBLISH_PERMISSION)

    @admin.action(
        description="Withdraw (back to draft; releases are kept)", permissions=["publish"]
    )
    def withdraw(self, request, queryset):
        for chapter in queryset.order_by("pk"):
            try:
                chapter_withdraw(chapter=chapter, user=request.user)
            except Forbidden as refusal:
                self.message_user(request, f"{chapter.code}: {refusal}", messages.ERROR)
                return
        self.message_user(request, f"{queryset.count()} withdrawn: readers no longer see them.")

    @admin.display(description="owes")
    def owes(self, chapter):
        return chapter_counts(chapter).owes

    @admin.display(description="publish?")
    def to_publish(self, chapter):
        reasons = len(publish_reasons(chapter))
        return "ready" if not reasons else f"{reasons} to fix"

    @admin.display(description="latest release", ordering="latest")
    def latest_release(self, chapter):
        latest = latest_release_number(chapter)
        return f"Release {latest}" if latest else "—"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        chapter = self.get_object(request, unquote(object_id))
        if chapter is not None:
            extra_context = {**(extra_context or {}), **self.status(chapter)}
        return super().change_view(request, object_id, form_url, extra_context)

    def status(self, chapter: Chapter) -> dict:
        """What the top of the chapter page shows: the counts, the debt, what Publish needs."""
        return {
            "counts": chapter_counts(chapter),
            "spine_sentence": SPINE_SENTENCES[chapter.spine],
            "reasons": publish_reasons(chapter),
            "next_release": latest_release_number(chapter) + 1,
            "problem_add_url": reverse("admin:curriculum_problem_add")
            + "?"
            + urlencode({"chapter": chapter.pk}),
        }

    def get_urls(self):
        publish = self.admin_site.admin_view(self.publish_view)
        return [
            path("<int:pk>/publish/", publish, name="curriculum_chapter_publish"),
            *super().get_urls(),
        ]

    def publish_view(self, request, pk):
        """GET asks for confirmation and says what will happen; POST runs the gate."""
        chapter = get_object_or_404(self.get_queryset(request), pk=pk)
        if not self.has_view_or_change_permission(request, chapter):
            raise PermissionDenied
        if request.method == "POST":
            return HttpResponseRedirect(self.publish(request, chapter))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": chapter,
            "title": f"Publish {chapter.code}?",
            "reasons": ChapterPublish(chapter=chapter, user=request.user).check(),
            "next_release": latest_release_number(chapter) + 1,
            "reviewed": source_version(code=chapter.code),  # what Publish will release
        }
        return TemplateResponse(request, "admin/curriculum/chapter/publish_confirm.html", context)

    def publish(self, request, chapter: Chapter) -> str:
        """Publish the version the confirmation showed; where to go next."""
        reviewed = request.POST.get("reviewed")
        action = ChapterPublish(
            chapter=chapter,
            user=request.user,
            reviewed=None if reviewed is None else frozenset({reviewed}),
        )
        try:
            release = action.execute()
        except PublishForbidden as refusal:
            self.message_user(request, str(refusal), messages.ERROR)
        except PublishOutdated:  # back to the confirmation, as the chapter is now
            self.message_user(request, f"Not published: {CHANGED_SINCE_REVIEW}.", messages.ERROR)
            return reverse("admin:curriculum_chapter_publish", args=[chapter.pk])
        except PublishRefused as refusal:
            self.message_user(
                request,
                format_html(
                    "Publish refused. {} reasons:<ul>{}</ul>",
                    len(refusal.reasons),
                    format_html_join("", "<li>{}</li>", ((r,) for r in refusal.reasons)),
                ),
                messages.ERROR,
            )
        else:
            self.message_user(
                request, f"Published {chapter.code} as release {release.number}.", messages.SUCCESS
            )
        return reverse("admin:curriculum_chapter_change", args=[chapter.pk])


class SolutionInline(TextBoxes, admin.StackedInline):
    model = Solution
    extra = 1
    max_num = 1
    fields = ["steps", "answer", "published", "verification"]
    readonly_fields = ["verification"]  # not "verdict": that name is the model's reverse relation
    rows = {"steps": 10, "answer": 4}
    code = frozenset({"answer"})

    @admin.display(description="verdict")
    def verification(self, solution):
        if solution.pk is None:
            return "—"
        badge = verdict_badge(solution)
        value = getattr(getattr(solution, "verdict", None), "engine_value", None)
        return format_html("{}<br>engine value: <code>{}</code>", badge, value) if value else badge


class VerdictFilter(admin.SimpleListFilter):
    title = "verdict"
    parameter_name = "verdict"

    def lookups(self, request, model_admin):
        return [(s, s) for s in ("pending", "verified", "mismatch", "error", "stale")] + [
            ("none", "no solution")
        ]

    def queryset(self, request, queryset):
        """The badge's state (`verdict_state`), so a stale verdict is never listed as verified."""
        if self.value() == "none":
            return queryset.filter(solution__isnull=True)
        if self.value():
            solved = queryset.filter(solution__isnull=False).select_related("solution__verdict")
            return queryset.filter(
                pk__in=[p.pk for p in solved if verdict_state(p.solution) == self.value()]
            )
        return queryset


def next_key(keys) -> str:
    """p1, p2, …: one past the highest pN in use, so a deleted problem's key is never offered
    while a later one exists, and an existing key never is."""
    numbers = [int(k[1:]) for k in keys if k[:1] == "p" and k[1:].isdigit()]
    return f"p{max(numbers, default=0) + 1}"


def ask_help(problem: Problem | None) -> str:
    """What ask may select: the outputs, and each output's selectors for the saved inputs."""
    general = (
        'JSON: {"output": ...} and optionally "batch", "head", "row", "col", each a 0-based '
        "index along the output's axis of that name."
    )
    if problem is None or problem.operation not in attention.OPERATIONS:
        return general
    axes = attention.output_axes(problem.operation, problem.inputs)
    if axes is None:
        outputs = ", ".join(attention.OPERATIONS[problem.operation].outputs)
        return f"{general} {problem.operation} gives: {outputs}."
    shown = "; ".join(
        f"{name} (named values, no selectors)"
        if dims is None
        else f"{name}: " + (", ".join(f"{axis} 0..{n - 1}" for axis, n in dims) or "a number")
        for name, dims in axes.items()
    )
    return f"{general} For these inputs {problem.operation} gives {shown}."


def operation_choices() -> list[tuple[str, str]]:
    known = attention.OPERATIONS.items()
    return [("", "---------")] + [(name, f"{name}: {op.description}") for name, op in known]


class ProblemForm(ProblemAddsAPart, OpenedVersionForm):
    @staticmethod
    def version_of(instance) -> str:
        return problem_version(instance)


@admin.register(Problem)
class ProblemAdmin(TypesetOnce, CheckedAgainWhenSaved, TextBoxes, ChosenFromTheList):
    form = ProblemForm
    list_display = ["__str__", "kind", "variant", "operation", "verdict"]
    list_filter = [VerdictFilter, "kind", "chapter__book", "chapter"]
    search_fields = ["key", "variant", "chapter__code", "statement"]
    list_select_related = ["chapter", "solution__verdict"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    ("chapter", "key", "position"),
                    ("kind", "variant"),
                    "statement",
                    "opened_version",
                ],
                "description": f"Statement: {MARKDOWN_HELP}",
            },
        ),
        (
            "What the engine checks",
            {
                "fields": [
                    "operation",
                    "inputs",
                    "ask",
                    ("digits", "rtol", "atol"),
                    "engine_operations",
                ],
                "description": "Inputs and ask are JSON; an input may be a generator such as "
                '{"generate": "normal", "shape": [3, 4], "seed": 7}, and the statement and steps '
                "may show it as {{ inputs.x }} (docs/content-format.md). Tolerance: digits "
                "(significant figures), or empty digits and rtol/atol. Saving checks them against "
                "the operation and marks the verdict pending until the verifier has run.",
            },
        ),
    ]
    readonly_fields = ["engine_operations"]
    rows = {"statement": 6, "inputs": 10, "ask": 2}
    code = frozenset({"inputs", "ask"})
    inlines = [SolutionInline]
    actions = ["verify_again"]

    class Media:
        css = ADMIN_CSS

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "operation":
            kwargs["widget"] = forms.Select(choices=operation_choices())
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if "ask" in form.base_fields:
            form.base_fields["ask"].help_text = ask_help(obj)
        return form

    def get_changeform_initial_data(self, request):
        """From a chapter's "Add a problem" link: that chapter, and the next free key."""
        initial = super().get_changeform_initial_data(request)
        chapter = str(initial.get("chapter", ""))
        if chapter.isdigit():
            problems = Problem.objects.filter(chapter_id=int(chapter))
            initial.setdefault("key", next_key(problems.values_list("key", flat=True)))
            initial.setdefault("position", (problems.aggregate(n=Max("position"))["n"] or 0) + 1)
        return initial

    @admin.display(description="operations the engine knows")
    def engine_operations(self, problem):
        reference = reverse("site:operations")
        return format_html(
            '<p>Inputs, shapes, outputs, selectors and a worked example of each, in '
            '<a href="{}" target="_blank">the operations reference</a>:</p><p>{}</p>',
            reference,
            format_html_join(
                ", ",
                '<a href="{}#{}" target="_blank"><code>{}</code></a>',
                ((reference, name, name) for name in attention.OPERATIONS),
            ),
        )

    @admin.display(description="verdict")
    def verdict(self, problem):
        return verdict_badge(getattr(problem, "solution", None))

    def save_model(self, request, obj, form, change):
        """Saved with its solution in save_related: one service call for both."""

    def save_related(self, request, form, formsets, change):
        (solutions,) = formsets  # the one inline: the solution
        if change and (opened := form.cleaned_data.get("opened_version")):
            problem_unchanged_require(problem_id=form.instance.pk, opened=opened)  # locked
        changed = solutions.save(commit=False)
        if solutions.deleted_objects:
            solution_delete(problem=form.instance, user=request.user)
        problem_save(
            problem=form.instance, solution=changed[0] if changed else None, user=request.user
        )
        solution = Solution.objects.filter(problem=form.instance).first()
        for warning in solution_lint(solution=solution) if solution else ():
            self.message_user(request, f"Answer: {warning}.", messages.WARNING)

    def delete_model(self, request, obj):
        problem_delete(problem=obj, user=request.user)

    def delete_queryset(self, request, queryset):
        for problem in queryset:
            problem_delete(problem=problem, user=request.user)

    @admin.action(description="Verify again")
    def verify_again(self, request, queryset):
        solution_ids = Solution.objects.filter(problem__in=queryset).values_list("pk", flat=True)
        count = solutions_verify(solution_ids=list(solution_ids))
        self.message_user(request, f"{count} solutions sent to the verifier.")


@admin.register(Release)
class ReleaseAdmin(ReadOnly, ChosenFromTheList):
    """Read-only for everyone, superusers included: a release is an immutable snapshot."""

    list_display = ["chapter", "number", "created_by", "created_at", "read"]
    list_filter = ["chapter__book"]
    list_select_related = ["chapter", "created_by"]
    fields = ("chapter", "number", "created_by", "created_at", "read", "changes", "snapshot")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).defer("snapshot")  # loaded only where it is shown

    @admin.display(description="read")
    def read(self, release):
        return release_link(release)

    @admin.display(description="changes since the previous release")
    def changes(self, release):
        return format_html('<pre class="release-diff">{}</pre>', release_changes(release=release))


from curriculum.api import admin as api_admin  # noqa: E402,F401  (registers the token admin)
