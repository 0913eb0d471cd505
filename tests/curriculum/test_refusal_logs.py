"""A refusal is logged in one line; a fault keeps its traceback."""

import logging

import pytest
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils.log import log_response

from curriculum.refusal_logs import RefusalsWithoutTraceback


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.addFilter(RefusalsWithoutTraceback())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(logging.Formatter().format(record))


@pytest.fixture
def kept():
    handler = Kept()
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


@pytest.mark.parametrize(("status", "traceback"), [(403, False), (404, False), (500, True)])
def test_a_refusal_is_one_line_and_a_fault_keeps_its_traceback(kept, status, traceback):
    """An Author opening an Editor's Publish page (403) had logged a traceback, as a fault."""
    request = RequestFactory().get("/admin/curriculum/chapter/8/publish/")
    try:
        raise PermissionDenied
    except PermissionDenied as error:
        log_response(
            "Refused: %s",
            request.path,
            response=HttpResponse(status=status),
            request=request,
            exception=error,
        )
    [line] = kept.lines
    assert line.startswith("Refused: /admin/curriculum/chapter/8/publish/")
    assert ("Traceback" in line) is traceback
