"""A body the answer leaves unread is read and dropped before the answer goes.

A refusal decided from the headers (a 413 from the Content-Length, a 401 before any view reads,
a 403 from the CSRF check) leaves the body in the socket. A server that closes a connection with
data unread resets it, and the proxy in front, still sending that body, may then lose the answer
and give its client a 502 instead: one in ten such refusals did so through `make serve`'s nginx.
Reading it first, up to LIMIT_UNREAD_BODY_BYTES (nginx's own limit, so behind it every body is
read), lets the proxy see a clean end. Only behind a proxy (NUM_PROXIES): a buffering proxy hands
over a body it already holds, where a client talking to gunicorn itself could declare a body it
never sends and hold the worker until its timeout; past the bound a body is left as it is.
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, UnreadablePostError

from curriculum.api.media import declared_length

CHUNK = 64 * 1024


class UnreadBodyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        _drop_unread(request)
        return response


def _drop_unread(request: HttpRequest) -> None:
    """Read what is left of the body (a view that read it, `request.body`, left nothing)."""
    behind_a_proxy, unread = settings.NUM_PROXIES > 0, not hasattr(request, "_body")
    if not (
        behind_a_proxy
        and unread
        and 0 < declared_length(request) <= settings.LIMIT_UNREAD_BODY_BYTES
    ):
        return
    try:
        while request.read(CHUNK):
            pass
    except (OSError, UnreadablePostError):  # the client went away: nothing left to read
        return
