"""Preview beside the form: the page as readers will see it, made from the unsaved form.

The form's own Preview button posts the whole form (with its CSRF token) to `preview_view`,
into the frame beside it; no script is needed, and admin-extra/preview.js only presses it again
as the author types. The form and its inlines are checked as a save checks them (the engine's
limits, the formula budget), and the page is built by `domain.previews` through the readers'
template and the same cap; nothing is saved.
"""

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.forms.formsets import all_valid
from django.http import HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.csp import csp_override

from curriculum.domain.answer_tables import answer_table
from curriculum.domain.markup import TooManyFormulas, math_prepared
from curriculum.domain.previews import drawn_inputs
from curriculum.site.views import chapter_context

from .saves import posted_texts

FRAMED_BY_ADMIN = {**settings.SECURE_CSP, "frame-ancestors": ["'self'"]}
INSTANCE_FIELD = "preview_instance"


class Previewed(admin.ModelAdmin):
    """For a ModelAdmin: a preview URL beside add and change, and the frame on its form.
    `previewed(form, formsets)` says what to show: a `ReaderView`, and drawn inputs or None."""

    preview_template = "admin/curriculum/preview.html"

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        view = self.admin_site.admin_view(self.preview_view)
        return [
            path("preview/", view, name=f"{name}_preview"),
            path("<path:object_id>/preview/", view, name=f"{name}_preview_change"),
            *super().get_urls(),
        ]

    def preview_url(self, obj) -> str:
        name = f"admin:{self.opts.app_label}_{self.opts.model_name}_preview"
        return reverse(f"{name}_change", args=[obj.pk]) if obj else reverse(name)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        context["preview_url"] = self.preview_url(obj)
        context["preview_instances"] = settings.PRACTICE_INSTANCES
        return super().render_change_form(request, context, add, change, form_url, obj)

    @xframe_options_sameorigin
    @csp_override(FRAMED_BY_ADMIN)
    def preview_view(self, request, object_id=None):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        obj = None if object_id is None else self.get_object(request, unquote(object_id))
        allowed = (
            self.has_add_permission(request)
            if obj is None
            else (self.has_change_permission(request, obj))
        )
        if not allowed or (object_id is not None and obj is None):
            raise PermissionDenied
        try:
            with math_prepared(posted_texts(request)):
                return self._preview(request, obj)
        except TooManyFormulas as error:
            return self._refused(request, [f"this preview {error}"])

    def _preview(self, request, obj):
        form = self.get_form(request, obj, change=obj is not None)(
            request.POST, request.FILES, instance=obj
        )
        formsets, _ = self._create_formsets(request, form.instance, change=obj is not None)
        if not (form.is_valid() and all_valid(formsets)):
            return self._refused(request, _errors(form, formsets))
        view, inputs = self.previewed(form, formsets)
        instance = _instance(request.POST.get(INSTANCE_FIELD))
        drawn, why = drawn_inputs(inputs=inputs, instance=instance) if inputs else ({}, "")
        context = chapter_context(request, view, preview=True) | {
            "drawn": [(name, answer_table(value, bounded=True)) for name, value in drawn.items()],
            "drawn_refused": why,
            "drawn_instance": instance,
            "unsaved": True,
        }
        response = TemplateResponse(request, self.preview_template, context)
        response["Cache-Control"] = "private, no-store"
        return response

    def _refused(self, request, errors):
        context = {"errors": errors, "unsaved": True}
        response = TemplateResponse(request, "admin/curriculum/preview_refused.html", context)
        response["Cache-Control"] = "private, no-store"
        return response


def _instance(text: str | None) -> int:
    """The instance asked for; 0 for anything not a small whole number (drawn_inputs bounds)."""
    text = (text or "0").strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 6 else -1


def _errors(form, formsets) -> list[str]:
    found = [f"{name}: {'; '.join(errors)}" for name, errors in form.errors.items()]
    for formset in formsets:
        found += [f"{formset.prefix}: {error}" for error in formset.non_form_errors()]
        for i, errors in enumerate(formset.errors):
            for name, messages in errors.items():
                found.append(f"{formset.prefix}[{i}].{name}: {'; '.join(messages)}")
    return found
