"""What admin's saves share: each typesets all its formulas in one KaTeX run, as an import does;
a chapter grows only within LIMIT_CHAPTER_PARTS, so its page can always post and save it; list
actions run only on listed rows; releases are never edited."""

from contextlib import ExitStack

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.forms.models import BaseInlineFormSet
from django.http import HttpResponseRedirect

from curriculum.domain.chapter_parts import chapter_parts, parts_refusal
from curriculum.domain.markup import TooManyFormulas, math_prepared
from curriculum.models.fields import lf


class TypesetOnce:
    """Every text of the save, typeset together before its forms are checked: each Markdown
    field's check (and the services' full_clean after it) then finds its formulas ready, where
    each started a KaTeX process of its own."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        with ExitStack() as typeset:
            try:
                typeset.enter_context(math_prepared(posted_texts(request)))
            except TooManyFormulas as error:  # refused before KaTeX runs
                messages.error(request, f"Nothing was saved: this save {error}.")
                return HttpResponseRedirect(request.get_full_path())
            return super().changeform_view(request, object_id, form_url, extra_context)


def posted_texts(request) -> list[str]:
    """Every text posted, as the forms will check them: line ends as stored, and stripped."""
    return [lf(text).strip() for _, values in request.POST.lists() for text in values]


class ChapterPartsFormSet(BaseInlineFormSet):
    """A list on the chapter page grows only while the chapter stays within LIMIT_CHAPTER_PARTS,
    counted with its other lists as stored; a list that does not grow always saves, so a chapter
    stored past a lowered limit can still be edited and shrunk."""

    def clean(self):
        super().clean()
        kept = sum(1 for form in self.forms if row_kept(form))
        stored = len(self.get_queryset())
        if kept > stored:
            others = chapter_parts(chapter=self.instance) - stored
            if refusal := parts_refusal(parts=others + kept):
                raise forms.ValidationError(f"The chapter {refusal}.")


def row_kept(form) -> bool:
    """What the formset stores: a row it holds and is not to delete, or a new one filled in."""
    if form.cleaned_data.get("DELETE"):
        return False
    return form.instance.pk is not None or form.has_changed()


class ProblemAddsAPart(forms.ModelForm):
    """A problem new to its chapter is one more of the chapter's parts."""

    def clean(self):
        cleaned = super().clean()
        chapter = cleaned.get("chapter")
        new_to_it = chapter is not None and chapter.pk != self.instance.chapter_id
        if new_to_it and (refusal := parts_refusal(parts=chapter_parts(chapter=chapter) + 1)):
            self.add_error("chapter", f"{chapter.code} {refusal}.")
        return cleaned


class ChosenFromTheList(admin.ModelAdmin):
    """A list action runs only on rows chosen from the list: Django fails (500) on a forged
    selection that is not a row's id."""

    def response_action(self, request, queryset, **kwargs):
        chosen = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        if not all(choice.isascii() and choice.isdigit() for choice in chosen):
            self.message_user(request, "Choose the rows from the list.", messages.WARNING)
            return None
        return super().response_action(request, queryset, **kwargs)


class ReadOnly:
    """Releases are immutable: nobody adds, changes or deletes one here, superusers included."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
