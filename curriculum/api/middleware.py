"""Below /api/: HEAD is answered wherever GET is, and every error, whoever made it (Django's
CSRF or size checks, a 405, a 500 page in production), is JSON in the API's one shape."""

import json
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse

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
        if response.status_code >= 400 and not _is_json(response):
            response = _shaped(response)
        if head and not response.streaming:
            length = len(response.content)
            response.content = b""
            response["Content-Length"] = str(length)
        return response


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").split(";")[0].strip() == "application/json"


def _shaped(response: HttpResponse) -> HttpResponse:
    status = response.status_code
    try:
        detail = HTTPStatus(status).phrase
    except ValueError:
        detail = "Error"
    shaped = HttpResponse(
        json.dumps({"detail": detail, "errors": []}), status=status, content_type="application/json"
    )
    for header in KEPT_HEADERS:
        if header in response:
            shaped[header] = response[header]
    return shaped
