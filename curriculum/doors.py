"""Which door a request came in by, for the chapter history (`domain.writers`): admin or the
API. Commands name their own (`import_chapter`: import)."""

from django.http import HttpRequest, HttpResponse

from curriculum.api.middleware import API_PREFIX
from curriculum.domain.writers import writing

DOORS = {"/admin/": "admin", API_PREFIX: "API"}  # as curriculum/urls.py mounts them


class WritingDoorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        door = next((d for p, d in DOORS.items() if request.path.startswith(p)), "")
        if not door:
            return self.get_response(request)
        with writing(via=door):
            return self.get_response(request)
