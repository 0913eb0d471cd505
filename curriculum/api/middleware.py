"""Below /api/: HEAD is answered wherever GET is; every error, whoever made it (Django's CSRF or
size checks, a 405, a 404 or 500 page, in production or with DEBUG), is a problem in the API's
one shape (problems.py); and a counted request announces its rate (RateLimit-* headers, from
the count that admitted or refused it: throttling.py)."""

from django.http import HttpRequest, HttpResponse

from curriculum.clients import Window

from .media import is_json
from .problems import problem_response

API_PREFIX = "/api/"
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate", "Vary", "Cache-Control")


class ApiShapeMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        head = request.method == "HEAD"
        if head:
            request.method = "GET"
        response = self.get_response(request)
        if response.status_code >= 400 and not is_json(response.get("Content-Type")):
            response = _shaped(response)
        window = getattr(request, "rate_window", None)
        if window is not None:
            _announce(response, window)
        if head and not response.streaming:
            length = len(response.content)
            response.content = b""
            response["Content-Length"] = str(length)
        return response


def _shaped(response: HttpResponse) -> HttpResponse:
    shaped = problem_response(response.status_code, _phrase(response), [])
    for header in KEPT_HEADERS:
        if header in response:
            shaped[header] = response[header]
    return shaped


def _phrase(response: HttpResponse) -> str:
    return getattr(response, "reason_phrase", "") or "Error"


def _announce(response: HttpResponse, window: Window) -> None:
    """The IETF RateLimit header fields; a refused request also says when to retry."""
    response["RateLimit-Limit"] = str(window.limit)
    response["RateLimit-Remaining"] = str(window.remaining)
    response["RateLimit-Reset"] = str(window.reset)
    if response.status_code == 429:
        response["Retry-After"] = str(window.reset)
