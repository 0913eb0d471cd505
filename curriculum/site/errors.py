"""A request Django will not read (a form past DATA_UPLOAD_MAX_NUMBER_FIELDS or
DATA_UPLOAD_MAX_MEMORY_SIZE, or a reader's past LIMIT_READER_BODY_BYTES) is told which limit it
passed and what that limit holds, on the site's own page, where Django answers a bare "Bad
Request"."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """413 for a form past its size (Django calls every refusal of a request a 400)."""
    status = 413 if isinstance(exception, RequestDataTooBig) else 400
    context = {"reason": _reason(exception), "chapter": True}
    return render(request, "400.html", context, status=status)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """The site's own page (CSRF_FAILURE_VIEW) where Django gives its bare one; `reason` is
    Django's, for the log, not the reader."""
    return render(request, "403_csrf.html", status=403)


def reader_body_too_large(request: HttpRequest) -> HttpResponse:
    reason = (
        f"The request sent more than {settings.LIMIT_READER_BODY_BYTES:,} bytes "
        "(LIMIT_READER_BODY_BYTES), the most a reader's answer of "
        f"{settings.LIMIT_ANSWER_CHARS:,} characters (LIMIT_ANSWER_CHARS) with a report of "
        f"{settings.LIMIT_REPORT_CHARS:,} (LIMIT_REPORT_CHARS) sends."
    )
    return render(request, "400.html", {"reason": reason}, status=413)


def _reason(exception: Exception) -> str:
    """Only a limit is named: other refusals (a forged host, say) say nothing of the request."""
    if isinstance(exception, TooManyFieldsSent):
        return (
            f"The form sent more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields "
            "(DATA_UPLOAD_MAX_NUMBER_FIELDS), the most a chapter page of "
            f"{settings.LIMIT_CHAPTER_PARTS:,} parts sends (LIMIT_CHAPTER_PARTS)."
        )
    if isinstance(exception, RequestDataTooBig):
        return (
            f"The form sent more than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE), the most a page of a chapter file of "
            f"{settings.LIMIT_CHAPTER_FILE_BYTES:,} bytes sends (LIMIT_CHAPTER_FILE_BYTES)."
        )
    if isinstance(exception, TooManyFilesSent):
        return (
            f"The form sent more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES:,} files "
            "(DATA_UPLOAD_MAX_NUMBER_FILES, Django's own bound)."
        )
    return ""
