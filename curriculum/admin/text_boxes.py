"""Admin's text boxes: sized for what they hold, and JSON written as an author reads it."""

import json

from django import forms
from django.contrib.admin.widgets import AdminTextareaWidget
from django.db.models import JSONField
from django.forms.fields import InvalidJSONInput

from curriculum.domain.chapter_files import ChapterFileError, json_document

MARKDOWN_HELP = "Markdown; $…$ and $$…$$ are mathematics, checked with KaTeX when you save."
ADMIN_CSS = {"all": ["admin-extra/admin.css"]}


class RowsJSONField(forms.JSONField):
    """JSON as an author reads it: one key per line, one matrix row per line."""

    def to_python(self, value):
        """Read as the API reads a body (no key twice, bounded depth and digits); Django says
        only "Enter a valid JSON.", and an author needs the line and column."""
        if isinstance(value, str) and value.strip() and not self.disabled:
            try:
                read = json_document(value.encode())
            except ChapterFileError as refusal:
                error = refusal.__cause__
                if isinstance(error, json.JSONDecodeError):
                    raise forms.ValidationError(
                        f"Not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}."
                    ) from refusal
                raise forms.ValidationError(refusal.errors[0].removeprefix("body: ")) from refusal
            if not isinstance(read, str):  # its numbers as the API reads them: 1e-400 is not 0
                return read
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
