"""A body sent to the site by anyone but staff is refused past LIMIT_READER_FORM_BYTES, from its
Content-Length, before anything parses it.

Django's own bound, DATA_UPLOAD_MAX_MEMORY_SIZE, must take a whole chapter posted from admin,
12 MB. Anyone can get a CSRF cookie and post that much to the log-in page; parsing it held
several times its size, which a worker's allocator kept: a few such posts took a worker from
100 to over 900 MiB. Readers post answers and reports, and the API (/api/) has its own bound.
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from curriculum.api.media import declared_length
from curriculum.api.middleware import API_PREFIX
from curriculum.site.errors import reader_form_too_large


class ReaderFormMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            declared_length(request) > settings.LIMIT_READER_FORM_BYTES
            and not request.path.startswith(API_PREFIX)
            and not request.user.is_staff
        ):
            return reader_form_too_large(request)
        return self.get_response(request)
