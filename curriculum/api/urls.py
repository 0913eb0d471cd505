"""/api/v1/: the ninja API, and a JSON 404 for any other path below it."""

from django.http import JsonResponse
from django.urls import path, re_path

from .api import api


def not_found(request, rest: str = ""):
    return JsonResponse({"detail": "Not Found", "errors": []}, status=404)


urlpatterns = [
    path("", api.urls),
    re_path(r"^(?P<rest>.*)$", not_found),
]
