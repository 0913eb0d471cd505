"""A request Django refuses as suspicious (a forged Host, a form past its size or field count),
or answers with a 4xx from an exception (an Author opening an Editor's Publish page: 403), is
logged as one line naming what it sent. Django logs each with the exception's traceback, which
shows nothing but where the refusal was raised: a client sending such requests on purpose
would fill the log with tracebacks that read as faults, and hide the real ones (a 500's)."""

import logging


class RefusalsWithoutTraceback(logging.Filter):
    """Keep django.security's records, and django.request's below 500, with their message and
    without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        refused = record.name == "django.request" and getattr(record, "status_code", 500) < 500
        if refused or record.name.startswith("django.security."):
            record.exc_info = None
            record.exc_text = None
        return True
