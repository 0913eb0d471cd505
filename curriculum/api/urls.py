"""/api/v1/: the ninja API, and a problem (404) for any other path below it."""

from pathlib import Path

from django.http import HttpResponse
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt

from .api import api
from .problems import problem_response

CONTENT_FORMAT = Path(__file__).resolve().parents[2] / "docs" / "content-format.md"


@csrf_exempt  # nothing is here to protect: a POST answers 404, as a GET does, not CSRF's 403
def not_found(request, rest: str = ""):
    return problem_response(404, "Not Found")


def content_format(request):
    """The chapter file format the schema's ChapterDocument stands for, as the project has it."""
    text = CONTENT_FORMAT.read_text(encoding="utf-8")
    return HttpResponse(text, content_type="text/markdown; charset=utf-8")


urlpatterns = [
    path("content-format.md", content_format, name="content-format"),
    path("", api.urls),
    re_path(r"^(?P<rest>.*)$", not_found),
]
