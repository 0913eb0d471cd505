"""Problems in admin: each edited with its solution on its own page, saved by one service call.

What ask may select comes from the operations reference (`domain.operations.ask_help`); a new
problem's key and position from `domain.problem_keys`.
"""

from django import forms
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html, format_html_join

import attention
from curriculum.domain.answers import DEFAULT_TOLERANCE_WORDS, default_digits, solution_lint
from curriculum.domain.editing import (
    ProblemDelete,
    ProblemSave,
    SolutionDelete,
    problem_tag,
    problem_unchanged_require,
)
from curriculum.domain.operations import ask_help
from curriculum.domain.previews import (
    PRACTICE_FIELDS,
    practice_reference_errors,
    problem_preview,
)
from curriculum.domain.problem_keys import next_problem
from curriculum.domain.references import chapter_reference_errors
from curriculum.domain.tolerances import FLOOR_WORDS
from curriculum.domain.verification import Reverify, verdict_state, with_verdict_state
from curriculum.models import Problem, Solution

from .conflicts import CheckedAgainWhenSaved, OpenedTagForm
from .practice import reports_beside, statistics_beside
from .previews import Previewed
from .saves import ChosenFromTheList, ProblemAddsAPart, TypesetOnce, row_kept
from .text_boxes import ADMIN_CSS, MARKDOWN_HELP, TextBoxes
from .verdicts import VerdictFilter, verdict_badge


class SolutionForm(forms.ModelForm):
    """Steps with the answer left empty save a draft (`domain.drafts`): it counts for nothing
    and admin says so; with no steps either, no solution row is made at all."""

    def _post_clean(self):
        if "answer" in self.errors:  # the model's check would only say it again
            return
        super()._post_clean()


class SolutionInline(TextBoxes, admin.StackedInline):
    model = Solution
    form = SolutionForm
    extra = 1
    max_num = 1
    fields = ["steps", "answer", "published", "verification"]
    readonly_fields = ["verification"]  # not "verdict": that name is the model's reverse relation
    rows = {"steps": 10, "answer": 4}
    code = frozenset({"answer"})

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(verdict_state=verdict_state())

    @admin.display(description="verdict")
    def verification(self, solution):
        if solution.pk is None:
            return "—"
        badge = verdict_badge(solution, solution.verdict_state)
        verdict = getattr(solution, "verdict", None)
        value = getattr(verdict, "engine_value", None)
        shown = format_html("{}<br>engine value: <code>{}</code>", badge, value) if value else badge
        warnings = getattr(verdict, "warnings", None) or []
        return format_html(
            "{}{}", shown, format_html_join("", "<br>Warning: {}", ((w,) for w in warnings))
        )


def operation_choices() -> list[tuple[str, str]]:
    known = attention.OPERATIONS.items()
    return [("", "---------")] + [(name, f"{name}: {op.description}") for name, op in known]


class ProblemForm(ProblemAddsAPart, OpenedTagForm):
    """The tolerance starts empty, as a file's does when it names none: digits, rtol and atol
    all left empty take the default (`answers.DEFAULT_TOLERANCE_WORDS`) once the answer is
    known (`ProblemAdmin.save_related`); rtol and atol are left empty while digits is set (they
    then check nothing), and given beside digits are refused, as a file's tolerance is."""

    LOOSE = ("rtol", "atol")
    TOLERANCE = ("digits", *LOOSE)
    from_answer = False  # set by clean: the tolerance is the default, taken from the answer

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.TOLERANCE:
            if name in self.fields:
                self.fields[name].required = False
        problem = self.instance
        if problem.pk is None or not hasattr(problem, "solution"):  # nothing chosen yet
            self.initial.update(dict.fromkeys(self.TOLERANCE))
        elif problem.digits is not None:  # rtol and atol check nothing: shown empty
            self.initial.update(dict.fromkeys(self.LOOSE))

    def clean(self):
        cleaned = super().clean()
        given = [name for name in self.TOLERANCE if cleaned.get(name) is not None]
        if not given and not any(name in self.errors for name in self.TOLERANCE):
            self.from_answer = True
            cleaned["digits"] = default_digits(None)  # until save_related reads the answer
        for name in self.LOOSE:
            if cleaned.get("digits") is not None and cleaned.get(name) is not None:
                # as a file's tolerance is refused with both: never one dropped unsaid
                self.add_error(name, "Give rtol and atol, or digits, not both.")
                continue
            if name in self.fields and cleaned.get(name) is None and name not in self.errors:
                if cleaned.get("digits") is None:
                    self.add_error(name, "Give rtol and atol, or digits, or leave all three empty.")
                else:
                    cleaned[name] = Problem._meta.get_field(name).default
        return cleaned

    def _post_clean(self):
        """A hint or feedback that refers to nothing readers can see is refused on its field
        before anything is saved, by the rule a file's import applies."""
        super()._post_clean()
        if not any(name in self.errors for name in ("chapter", "key", *PRACTICE_FIELDS)):
            for name, found in practice_reference_errors(problem=self.instance).items():
                self.add_error(name, found)

    @staticmethod
    def version_of(instance) -> str:
        return problem_tag(instance)


def _tolerance_taken(form: ProblemForm, solution: Solution | None) -> None:
    """A tolerance left empty is the default: the figures the answer is written to."""
    if form.from_answer and solution is not None and solution.answer is not None:
        form.instance.digits = default_digits(solution.answer)


@admin.register(Problem)
class ProblemAdmin(Previewed, TypesetOnce, CheckedAgainWhenSaved, TextBoxes, ChosenFromTheList):
    form = ProblemForm
    list_display = ["__str__", "kind", "variant", "operation", "verdict"]
    list_filter = [VerdictFilter, "kind", "chapter__book", "chapter"]
    change_form_template = "admin/curriculum/problem/change_form.html"

    def get_queryset(self, request):
        return with_verdict_state(super().get_queryset(request))

    search_fields = ["key", "variant", "chapter__code", "statement"]
    list_select_related = ["chapter"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    ("chapter", "key", "position"),
                    ("kind", "variant"),
                    "statement",
                    "opened_tag",
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
                    "verdict",
                    "engine_operations",
                ],
                "description": "Inputs and ask are JSON; an input may be a generator such as "
                '{"generate": "normal", "shape": [3, 4], "seed": 7}, and the statement and steps '
                "may show it as {{ inputs.x }} (docs/content-format.md). Tolerance: digits "
                f"(significant figures), or empty digits and rtol/atol, {FLOOR_WORDS} at any "
                "instance (the engine's floor); all three left empty: "
                f"{DEFAULT_TOLERANCE_WORDS}, as in a file. Saving checks them against "
                "the operation and marks the verdict pending until the verifier has run.",
            },
        ),
        (
            "Practice",
            {
                "fields": ["hints", "feedback", "reader_reports", "practice_statistics"],
                "description": "Hints: a JSON list of Markdown texts, shown one at a time. "
                'Feedback: a JSON list of {"answer": ..., "says": "..."}, told to a reader whose '
                "answer to instance 0 matches it. The engine names common mistakes by itself.",
            },
        ),
    ]
    readonly_fields = ["verdict", "engine_operations", "reader_reports", "practice_statistics"]
    rows = {"statement": 6, "inputs": 10, "ask": 2, "hints": 4, "feedback": 4}
    code = frozenset({"inputs", "ask", "hints", "feedback"})
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
            form.base_fields["ask"].help_text = (
                ask_help(obj.operation, obj.inputs) if obj else ask_help()
            )
        return form

    def get_changeform_initial_data(self, request):
        """From a chapter's "Add a problem" link: that chapter, and the next free key."""
        initial = super().get_changeform_initial_data(request)
        chapter = str(initial.get("chapter", ""))
        if chapter.isdigit():
            key, position = next_problem(chapter_id=int(chapter))
            initial.setdefault("key", key)
            initial.setdefault("position", position)
        return initial

    @admin.display(description="operations the engine knows")
    def engine_operations(self, problem):
        reference = reverse("site:operations")
        return format_html(
            "<p>Inputs, shapes, outputs, selectors and a worked example of each, in "
            '<a href="{}" target="_blank">the operations reference</a>:</p><p>{}</p>',
            reference,
            format_html_join(
                ", ",
                '<a href="{}#{}" target="_blank"><code>{}</code></a>',
                ((reference, name, name) for name in attention.OPERATIONS),
            ),
        )

    @admin.display(description="readers' reports")
    def reader_reports(self, problem):
        return reports_beside(problem)

    @admin.display(description="practice statistics")
    def practice_statistics(self, problem):
        return statistics_beside(problem)

    @admin.display(description="verdict")
    def verdict(self, problem):
        solution = getattr(problem, "solution", None) if problem.pk else None
        return verdict_badge(solution, getattr(problem, "verdict_state", "pending"))

    def save_model(self, request, obj, form, change):
        """Saved with its solution in save_related: one service call for both."""

    def save_related(self, request, form, formsets, change):
        (solutions,) = formsets  # the one inline: the solution
        if change and (opened := form.cleaned_data.get("opened_tag")):
            problem_unchanged_require(problem_id=form.instance.pk, opened=opened)  # locked
        changed = solutions.save(commit=False)
        if solutions.deleted_objects:
            SolutionDelete(problem=form.instance, user=request.user).execute()
        _tolerance_taken(form, changed[0] if changed else None)
        ProblemSave(
            problem=form.instance, solution=changed[0] if changed else None, user=request.user
        ).execute()
        solution = Solution.objects.filter(problem=form.instance).first()
        for warning in solution_lint(solution=solution) if solution else ():
            self.message_user(request, f"Answer: {warning}.", messages.WARNING)
        # saved anyway, as a chapter is: its statement or steps (or another part's, through
        # this problem's key) may name nothing; the gate refuses to publish it. Its hints and
        # feedback were refused before the save (ProblemForm).
        for error in chapter_reference_errors(form.instance.chapter):
            self.message_user(request, error, messages.ERROR)

    def previewed(self, form, formsets):
        (solutions,) = formsets
        kept_solutions = [f.instance for f in solutions.forms if row_kept(f)]
        solution = kept_solutions[0] if kept_solutions else None
        _tolerance_taken(form, solution)
        return problem_preview(problem=form.instance, solution=solution), form.instance.inputs

    def delete_model(self, request, obj):
        ProblemDelete(problem=obj, user=request.user).execute()

    def delete_queryset(self, request, queryset):
        for problem in queryset:
            ProblemDelete(problem=problem, user=request.user).execute()

    def has_reverify_permission(self, request) -> bool:
        return not Reverify(user=request.user).check()

    @admin.action(description="Verify again", permissions=["reverify"])
    def verify_again(self, request, queryset):
        solution_ids = Solution.objects.filter(problem__in=queryset).values_list("pk", flat=True)
        count = len(Reverify(solution_ids=list(solution_ids), user=request.user).execute())
        self.message_user(request, f"{count} solutions sent to the verifier.")
