"""Admin pages whose save lost a race: answered again, so the form says what changed.

A form carries the version its page was opened on (`OpenedTagForm`) and refuses a save over
a newer one.

A form's checks (the version a page was opened on, a book's numeral) run before any lock; the
services check again under the chapter's or book's lock as they write. When another writer
committed in between, a service refuses and the admin's transaction rolls back whole.
"""

from django import forms
from django.contrib import messages
from django.http import HttpResponseRedirect

from curriculum.domain.working_copy import SourceChanged

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
            raise forms.ValidationError(
                "Someone changed this since you opened it; nothing was saved. Open it again to "
                "see their changes, then make yours."
            )
        return cleaned
