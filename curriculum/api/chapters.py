"""Chapter reads: the chapter as readers see it, and its release history.

A draft is 404 unless the caller is staff. `?preview=true` lets staff see the working copy
with its unpublished parts; for anyone else it is ignored.
"""

from ninja import Router
from ninja.pagination import paginate

from curriculum.domain.reading import (
    chapter_for_reader,
    chapter_freshness,
    release_for_reader,
    release_freshness,
    releases_for_reader,
)

from .auth import READ_AUTH, READ_SECURITY, caller
from .pages import Paged
from .params import CODE, RELEASE_NUMBER
from .responses import conditional_json, reader_body, uncached_json
from .schemas import READ_ERRORS, ChapterOut, Error, ReleaseSummary

router = Router(tags=["books and chapters"], auth=READ_AUTH)
CONDITIONAL = {304: None, 412: Error}  # 412: an If-Match that names no current version
ERRORS = {**READ_ERRORS, 404: Error}


@router.get(
    "/chapters/{code}",
    response={200: ChapterOut, **CONDITIONAL, **ERRORS},
    openapi_extra=READ_SECURITY,
)
def chapter_read(request, code: str = CODE, preview: bool = False):
    """The latest release if there is one, else the working copy of an in-progress chapter.

    An exercise is left to the reader: without a staff token its solution, hints and feedback
    are held back, named in its `held`; ask for them with
    `GET /chapters/{code}/problems/{key}/instances/{n}?hints=k&solution=true`. Worked
    problems come whole. Staff get every exercise whole (and the file form from `/source`).

    Send `If-None-Match` with the ETag to get 304 when nothing changed. `Last-Modified` is
    sent for information; `If-Modified-Since` alone gets the body (a second can hold several
    edits, and a neighbour's rename changes the page without touching this chapter).
    """
    who = caller(request)
    if preview and who.staff:
        view = chapter_for_reader(code=code, staff=True, preview=True)
        return uncached_json(reader_body(view, whole=True))
    return conditional_json(
        request,
        who,
        fresh=chapter_freshness(code=code, staff=who.staff),
        view=lambda: chapter_for_reader(code=code, staff=who.staff),
    )


@router.get(
    "/chapters/{code}/releases",
    response={200: list[ReleaseSummary], **ERRORS},
    openapi_extra=READ_SECURITY,
)
@paginate(Paged)
def release_list(request, code: str = CODE):
    """Every release of the chapter, newest first (as the site's history lists them)."""
    return [
        {
            "number": r.number,
            "created_at": r.created_at,
            "title": r.snapshot["title"],
            "maturity": r.snapshot["maturity"],
            "notes": r.notes,
        }
        for r in reversed(releases_for_reader(code=code, staff=caller(request).staff))
    ]


@router.get(
    "/chapters/{code}/releases/{number}",
    response={200: ChapterOut, **CONDITIONAL, **ERRORS},
    openapi_extra=READ_SECURITY,
)
def release_read(request, code: str = CODE, number: int = RELEASE_NUMBER):
    """One release, exactly as it was released (and which release is now the latest), its
    exercises held back as in `GET /chapters/{code}` unless a staff token asks."""
    who = caller(request)
    return conditional_json(
        request,
        who,
        fresh=release_freshness(code=code, number=number, staff=who.staff),
        view=lambda: release_for_reader(code=code, number=number, staff=who.staff),
    )
