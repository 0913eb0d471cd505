"""Below /api/: a body past LIMIT_API_BODY_BYTES is 413 on every route, before anything reads
it (a route that reads no body ignores one within it); HEAD is answered wherever GET is, and a
405's Allow says so; every error, whoever made it (Django's CSRF or size checks, its Host check,
a 405, a 404 or 500 page, in production or with DEBUG), is a problem in the API's one shape
(problems.py); and a counted request announces its rate (RateLimit-* headers, from the count
that admitted or refused it: throttling.py)."""

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

from curriculum.clients import Window

from .media import declared_length, is_json, too_large
from .problems import problem_response

API_PREFIX = "/api/"
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate", "Vary", "Cache-Control")


class ApiShapeMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        if declared_length(request) > settings.LIMIT_API_BODY_BYTES:
            return too_large()
        head = request.method == "HEAD"
        if head:
            request.method = "GET"
        response = self.get_response(request)
        if response.status_code == 405:
            _allow_head(response)
        if response.status_code >= 400 and not is_json(response.get("Content-Type")):
            response = _shaped(request, response)
        window = getattr(request, "rate_window", None)
        if window is not None:
            _announce(response, window)
        if head and not response.streaming:
            length = len(response.content)
            response.content = b""
            response["Content-Length"] = str(length)
        return response


def _allow_head(response: HttpResponse) -> None:
    """A path that answers GET answers HEAD too (above): Allow lists what is served."""
    allowed = [method.strip() for method in response.get("Allow", "").split(",") if method.strip()]
    if "GET" in allowed and "HEAD" not in allowed:
        response["Allow"] = ", ".join([*allowed, "HEAD"])


def _shaped(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    shaped = problem_response(response.status_code, _phrase(response), _items(request, response))
    for header in KEPT_HEADERS:
        if header in response:
            shaped[header] = response[header]
    return shaped


def _items(request: HttpRequest, response: HttpResponse) -> list[dict[str, str]]:
    """Django's 400 for a Host not in ALLOWED_HOSTS names the header, in words of its own:
    Django's say which setting to change, which is the operators' business (the log has it)."""
    if response.status_code != 400:
        return []
    try:
        request.get_host()
    except DisallowedHost:
        return [{"header": "Host", "code": "invalid", "detail": HOST_REFUSED}]
    return []


HOST_REFUSED = "this server answers to no such host"


def _phrase(response: HttpResponse) -> str:
    return getattr(response, "reason_phrase", "") or "Error"


def _announce(response: HttpResponse, window: Window) -> None:
    """The IETF RateLimit header fields; a refused request also says when to retry."""
    response["RateLimit-Limit"] = str(window.limit)
    response["RateLimit-Remaining"] = str(window.remaining)
    response["RateLimit-Reset"] = str(window.reset)
    if response.status_code == 429:
        response["Retry-After"] = str(window.reset)
