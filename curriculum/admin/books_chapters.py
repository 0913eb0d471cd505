"""Books and chapters in admin: buttons that call the domain services, no rule of their own.

Counts, debts and the gate come from `curriculum.domain`. The chapter page follows the seed
page's order (claim, strands, figures, apparatus, notation, propositions, problems, releases)
and opens with what the chapter still owes, so an author is told before trying; Publish (Editors)
and Submit for review (Authors) have their own pages (`reviews`; the CSP allows no inline script).
"""

import base64

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import ValidationError
from django.db.models import Case, Max, Value, When
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.text import capfirst

from curriculum.domain.chapter_files import source_tag
from curriculum.domain.claims.reports import claim_rows_of
from curriculum.domain.counting import chapter_counts
from curriculum.domain.documents import chapter_document
from curriculum.domain.editing import (
    BookSave,
    ChapterDelete,
    ChapterSave,
    ChapterWithdraw,
    ProblemDelete,
)
from curriculum.domain.gate import publish_reasons
from curriculum.domain.ladder import SPINE_SENTENCES, STRAND_CODES
from curriculum.domain.notation import chapter_notation_conflicts
from curriculum.domain.open_pages import chapter_closed, chapter_opened
from curriculum.domain.previews import chapter_preview
from curriculum.domain.references import chapter_reference_errors
from curriculum.domain.roles import Forbidden
from curriculum.domain.selectors import chapters_with_parts
from curriculum.domain.shelf_uses import (
    glossary_moved,
    library_refusals,
    shown_terms,
    terms_dropped,
)
from curriculum.domain.svg import svg_inline, svg_removals
from curriculum.domain.terms import terms_listed
from curriculum.domain.verification import with_verdict_state
from curriculum.domain.working_copy import working_copy_require
from curriculum.models import (
    ApparatusLink,
    Book,
    Chapter,
    Figure,
    Notation,
    Problem,
    Proposition,
    SearchChapter,
    SearchEntry,
    SearchWord,
    StrandItem,
)
from curriculum.models.course import APPARATUS_PREFIX

from .conflicts import CheckedAgainWhenSaved, OpenedTagForm
from .previews import Previewed
from .releases import ReleaseInline
from .reviews import ChapterReviews
from .revisions import ChapterRevisions
from .saves import ChapterPartsFormSet, ChosenFromTheList, TypesetOnce, row_kept
from .text_boxes import ADMIN_CSS, MARKDOWN_HELP, TextBoxes
from .verdicts import verdict_badge


class BookForm(forms.ModelForm):
    def clean_bibliography(self) -> str:
        """Refused on its field, as BookSave refuses it again under the book's lock."""
        text = self.cleaned_data.get("bibliography") or ""
        if refusals := library_refusals(self.instance, text):
            raise ValidationError(refusals)
        return text


@admin.register(Book)
class BookAdmin(CheckedAgainWhenSaved, ChosenFromTheList):
    form = BookForm
    list_display = ["numeral", "title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    search_fields = ["title", "numeral"]
    refused_when_saved = (ValidationError,)  # Book.clean, again under the book's lock

    def save_model(self, request, obj, form, change):
        BookSave(book=obj, user=request.user).execute()


class DefinitionsKept(ChapterPartsFormSet):
    """The items as edited keep every term another chapter uses (the rule: shelf_uses), so the
    preview and the save both refuse dropping one, before anything is written."""

    def clean(self):
        super().clean()
        if any(form.errors for form in self.forms):
            return  # a row not read yet: its terms are checked once it is
        kept = [
            term
            for form in self.forms
            if row_kept(form) and form.cleaned_data.get("published")
            for term in terms_listed(form.cleaned_data.get("defines") or "")
        ]
        if refusals := terms_dropped(self.instance.pk, kept):
            raise forms.ValidationError(refusals)


class StrandItemInline(TextBoxes, admin.TabularInline):
    model = StrandItem
    formset = DefinitionsKept
    extra = 0
    fields = ["strand", "title", "body", "published", "defines", "position"]
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
    fields = [
        ("number", "label", "proof_published"),
        "title",
        "statement",
        "proof",
        "property_check",
    ]
    rows = {"statement": 4, "proof": 8}


class ListedProblem(forms.ModelForm):
    """A row of the chapter's problem list, which edits nothing (it only deletes): the model's
    checks are not run on it, so a row deleted since the page opened, or an id no row has, is
    refused as the formset's own error instead of checking a blank problem (a 500)."""

    def _post_clean(self):
        pass


class ProblemInline(admin.TabularInline):
    """A list: each problem, with its solution, is edited on its own page."""

    model = Problem
    form = ListedProblem
    extra = 0
    fields = ["key", "kind", "variant", "operation", "verdict"]
    readonly_fields = ["key", "kind", "variant", "operation", "verdict"]
    show_change_link = True
    verbose_name_plural = "problems (open one to edit it and its solution)"

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return with_verdict_state(super().get_queryset(request))

    @admin.display(description="verdict")
    def verdict(self, problem):
        return verdict_badge(getattr(problem, "solution", None), problem.verdict_state)


def latest_release_number(chapter: Chapter) -> int:
    """From ChapterAdmin's queryset annotation; 0 before the first release."""
    return getattr(chapter, "latest", None) or 0


class ChapterForm(OpenedTagForm):
    @staticmethod
    def version_of(instance) -> str:
        return source_tag(code=instance.code)


@admin.register(Chapter)
class ChapterAdmin(
    Previewed,
    ChapterRevisions,
    ChapterReviews,
    TypesetOnce,
    CheckedAgainWhenSaved,
    TextBoxes,
    ChosenFromTheList,
):
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
                    "opened_tag",
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
        if change and (opened := form.cleaned_data.get("opened_tag")):
            working_copy_require(chapter_id=obj.pk, tags=frozenset({opened}))
        form.terms_before = shown_terms(obj.pk)  # the glossary it showed, for save_related
        ChapterSave(chapter=obj, user=request.user).execute()

    def save_formset(self, request, form, formset, change):
        if formset.model is not Problem:
            return super().save_formset(request, form, formset, change)
        formset.save(commit=False)  # the list edits nothing; it only deletes
        for problem in formset.deleted_objects:
            ProblemDelete(problem=problem, user=request.user).execute()
        return None

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        glossary_moved(form.instance, form.terms_before)
        # saved anyway, as an import is: told once the notation rows are stored
        for warning in chapter_notation_conflicts(form.instance):
            self.message_user(request, warning, messages.WARNING)
        for error in chapter_reference_errors(form.instance):  # the gate refuses to publish it
            self.message_user(request, error, messages.ERROR)

    def previewed(self, form, formsets):
        """The chapter as edited with each of its lists as edited (problems as saved)."""
        names = {StrandItem: "strand_items", Figure: "figures", ApparatusLink: "apparatus_links"}
        names |= {Notation: "notation", Proposition: "propositions"}
        parts = {
            names[formset.model]: [f.instance for f in formset.forms if row_kept(f)]
            for formset in formsets
            if formset.model in names
        }
        return chapter_preview(chapter=form.instance, parts=parts), None

    @admin.action(
        description="Withdraw (back to draft; releases are kept)", permissions=["publish"]
    )
    def withdraw(self, request, queryset):
        for chapter in queryset.order_by("pk"):
            try:
                ChapterWithdraw(chapter=chapter, user=request.user).execute()
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
            if request.method == "GET":
                opened = chapter_opened(chapter_id=chapter.pk, user=request.user)
                extra_context["also_open"] = opened
        return super().change_view(request, object_id, form_url, extra_context)

    def response_change(self, request, obj):
        chapter_closed(chapter_id=obj.pk, user=request.user)  # saved: open again to count
        return super().response_change(request, obj)

    def status(self, chapter: Chapter) -> dict:
        """What the top of the chapter page shows: the counts, the debt, what Publish needs."""
        return {
            "counts": chapter_counts(chapter),
            "spine_sentence": SPINE_SENTENCES[chapter.spine],
            "reasons": publish_reasons(chapter),
            "claims": claim_rows_of(chapter_document(chapter)),
            "next_release": latest_release_number(chapter) + 1,
            "problem_add_url": reverse("admin:curriculum_problem_add")
            + "?"
            + urlencode({"chapter": chapter.pk}),
            **self.review_status(chapter),
        }

    def get_urls(self):
        return [*self.review_urls(), *super().get_urls()]

    def delete_model(self, request, obj):
        ChapterDelete(chapter=obj, user=request.user).execute()

    def delete_queryset(self, request, queryset):
        for chapter in queryset.order_by("pk"):
            ChapterDelete(chapter=chapter, user=request.user).execute()

    def get_deleted_objects(self, objs, request):
        """What a delete removes, as its confirmation lists it: without the rows kept for
        search, which are rebuilt from the chapter and mean nothing to an author."""
        deleted, counts, perms, protected = super().get_deleted_objects(objs, request)
        hidden = {str(m._meta.verbose_name_plural) for m in DERIVED_MODELS}
        shown = {name: n for name, n in counts.items() if str(name) not in hidden}
        return _without_derived(deleted), shown, perms, protected


DERIVED_MODELS = (SearchChapter, SearchEntry, SearchWord)


def _without_derived(listed: list) -> list:
    """The nested list of admin's delete confirmation without derived rows ("Search entry: …")."""
    prefixes = tuple(f"{capfirst(m._meta.verbose_name)}: " for m in DERIVED_MODELS)
    return [
        _without_derived(item) if isinstance(item, list) else item
        for item in listed
        if isinstance(item, list) or not str(item).startswith(prefixes)
    ]
