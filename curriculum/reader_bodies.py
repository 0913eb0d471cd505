"""A body sent by anyone but staff is refused past LIMIT_READER_BODY_BYTES, from its
Content-Length, before anything parses it: on the site's page, or below /api/ in the API's shape.

Django's own bound, DATA_UPLOAD_MAX_MEMORY_SIZE, must take a whole chapter posted from admin,
12 MB, and the API's, LIMIT_API_BODY_BYTES, a chapter document. Anyone can get a CSRF cookie and
post 12 MB to the log-in page: parsing it held several times its size, which a worker's
allocator kept (a few such posts took a worker from 100 to over 900 MiB). Anyone can send the
answer check 2 MB of JSON: measuring a million numbers held a worker for seconds. Readers send
answers and reports. A request naming a bearer token is the API's to judge: the token is checked
before any route reads a body (any other Authorization is no token, and lifted nothing).
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from curriculum.api.auth import bearer_sent
from curriculum.api.media import declared_length, too_large
from curriculum.api.middleware import API_PREFIX
from curriculum.site.errors import reader_body_too_large

STAFF_MAY_SEND = "; a staff token or session may send LIMIT_API_BODY_BYTES"


class ReaderBodyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if declared_length(request) <= settings.LIMIT_READER_BODY_BYTES:
            return self.get_response(request)
        api = request.path.startswith(API_PREFIX)
        if request.user.is_staff or (api and bearer_sent(request)):
            return self.get_response(request)
        if api:
            return too_large("LIMIT_READER_BODY_BYTES", STAFF_MAY_SEND)
        return reader_body_too_large(request)
