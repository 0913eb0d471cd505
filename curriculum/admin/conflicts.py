"""Admin pages whose save lost a race: answered again, so the form says what changed.

A form carries the version its page was opened on (`OpenedTagForm`) and refuses a save over
a newer one. Refused so, the page says that alone, whoever the other writer was: an import or
API PUT rewrites a chapter's rows, and each inline row checked against them would add its own
misleading error ("Figure with this Chapter and Label already exists", "Select a valid
choice"); a row the page lists that is gone is the same news, however the version reads.

A form's checks (the version a page was opened on, a book's numeral) run before any lock; the
services check again under the chapter's or book's lock as they write. When another writer
committed in between, a service refuses and the admin's transaction rolls back whole.
"""

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.forms.utils import ErrorDict
from django.http import HttpResponseRedirect

from curriculum.domain.working_copy import SourceChanged

OPENED_CHANGED = (
    "Someone changed this since you opened it; nothing was saved. Open it again to see their "
    "changes, then make yours."
)
CHANGED_WHILE_SAVING = (
    "Someone changed this while you were saving it; nothing was saved. Here it is as it is now: "
    "make your changes again."
)


class CheckedAgainWhenSaved:
    """A save a service refused under its lock is answered again from the start: the form then
    sees the other writer's change and says so, the author's text kept in the page. Should a
    third writer slip in again, the page is opened afresh with a message instead."""

    refused_when_saved: tuple[type[Exception], ...] = (SourceChanged,)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        for _ in range(2):
            try:
                return super().changeform_view(request, object_id, form_url, extra_context)
            except self.refused_when_saved:
                continue
        self.message_user(request, CHANGED_WHILE_SAVING, messages.ERROR)
        return HttpResponseRedirect(request.get_full_path())

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        form = context.get("adminform") and context["adminform"].form
        inlines = context.get("inline_admin_formsets", [])
        formsets = [inline.formset for inline in inlines]
        # rows are posted back only where the author may change them (releases are listed)
        posted = [inline.formset for inline in inlines if inline.has_change_permission]
        if (
            form
            and form.is_bound
            and (getattr(form, "overtaken", False) or any(map(_rows_gone, posted)))
        ):
            if not getattr(form, "overtaken", False):
                form.add_error(None, OPENED_CHANGED)
            for formset in formsets:  # their errors are the other writer's change, said above
                _quiet(formset)
            context["errors"] = helpers.AdminErrorList(form, [])
        return super().render_change_form(request, context, add, change, form_url, obj)


def _rows_gone(formset) -> bool:
    """Whether a row the page listed is no longer stored (its form found no instance)."""
    return formset.is_bound and any(form.instance.pk is None for form in formset.initial_forms)


def _quiet(formset) -> None:
    """The rows as the author sent them, without errors (they were all checked already)."""
    formset._non_form_errors = formset.error_class()
    for form in formset.forms:
        form._errors = ErrorDict()
    formset._errors = [form.errors for form in formset.forms]


class OpenedTagForm(forms.ModelForm):
    """Carries the version of what it was opened on; a save over a newer version is refused
    with nothing written, so another writer's edit (the API, another tab) is never lost."""

    opened_tag = forms.CharField(widget=forms.HiddenInput, required=False)

    @staticmethod
    def version_of(instance) -> str:
        raise NotImplementedError

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.fields["opened_tag"].initial = self.version_of(self.instance)

    def clean(self):
        cleaned = super().clean()
        opened = cleaned.get("opened_tag")
        if self.instance.pk and opened and opened != self.version_of(self.instance):
            self.overtaken = True
            raise forms.ValidationError(OPENED_CHANGED)
        return cleaned
