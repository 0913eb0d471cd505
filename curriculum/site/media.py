"""Media library images, served from the site's own origin (the CSP allows no other) with the
type read from their content when uploaded, an ETag, and an hour's caching."""

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import condition, require_safe

from curriculum.domain.media import media_digest, media_file

MAX_AGE_SECONDS = 3600  # a replaced image shows within the hour; its ETag revalidates it


@require_safe
@condition(etag_func=lambda request, name: media_digest(name))
def media_file_view(request: HttpRequest, name: str) -> HttpResponse:
    found = media_file(name)
    if found is None:
        raise Http404("no such media file")
    response = HttpResponse(bytes(found.data), content_type=found.content_type)
    response["Cache-Control"] = f"public, max-age={MAX_AGE_SECONDS}"
    response["Content-Disposition"] = "inline"
    response["X-Content-Type-Options"] = "nosniff"
    return response
