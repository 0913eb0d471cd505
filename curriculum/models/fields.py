"""Text stored as LF, whatever wrote it: browsers send CRLF, files may hold CR."""

from django.db import models


def lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


class LFTextField(models.TextField):
    """Normalised both in full_clean (what admin forms and services validate) and on every write
    to the database (bulk_create and update() included), so no writer can store CRLF."""

    def to_python(self, value):
        value = super().to_python(value)
        return lf(value) if isinstance(value, str) else value

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        return lf(value) if isinstance(value, str) else value
