"""The claims and checked properties of a chapter's working copy, for tokens: each with its
path, what it states, how it is checked and the engine's word (draft parts included, so only
those who may read the source see them), paged as every list is."""

from dataclasses import asdict

from ninja.pagination import paginate

from curriculum.domain.claims.reports import claim_rows
from curriculum.domain.reading import NotVisible
from curriculum.models import Chapter

from .auth import caller
from .chapters import router
from .pages import Paged
from .params import CODE
from .schemas import ClaimOut, Error
from .writes import AUTH_ERRORS, TOKEN_READ


@router.get(
    "/chapters/{code}/claims",
    response={200: list[ClaimOut], **AUTH_ERRORS, 404: Error, 422: Error},
    operation_id="chapter_claims",  # a client method's name
    **TOKEN_READ,
)
@paginate(Paged)
def chapter_claims(request, code: str = CODE):
    """Every claim (a number typed in a text, checked by the engine) and every proposition's
    property, in document order, with its verdict: a chapter is not published while one readers
    would see is unverified."""
    caller(request).require("curriculum.view_chapter")
    if not Chapter.objects.filter(code=code).exists():
        raise NotVisible
    return [asdict(row) for row in claim_rows(code=code)]
