"""A request Django refuses as suspicious (a forged Host, a form past its size or field count)
is logged as one line naming what it sent. Django logs each with the exception's traceback,
which shows nothing but its own request parsing: a client sending such requests on purpose
would fill the log with tracebacks that read as faults, and hide the real ones."""

import logging


class RefusalsWithoutTraceback(logging.Filter):
    """Keep django.security's records, and their message, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security."):
            record.exc_info = None
            record.exc_text = None
        return True
