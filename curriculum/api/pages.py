"""One page shape for every API list, as search has it: `items`, `count` (the whole list's
length), the window asked for (`offset`, `limit`) and `next`/`previous` links to the windows
beside it (null at either end; from past the end, `previous` is the last window with items:
`domain.windows`, as search's). `limit` is bounded by LIMIT_API_PAGE and `offset` by
LIMIT_API_OFFSET (422 beyond); an offset past the end is an empty page, not an error."""

from typing import Annotated, Any

from django.conf import settings
from django.http import HttpRequest
from ninja import Field, Schema
from ninja.pagination import LimitOffsetPagination

from curriculum.domain.windows import window_neighbours

from .params import named_bound


def window_url(request: HttpRequest, *, offset: int, limit: int) -> str:
    """This request's URL with its window moved to `offset`/`limit`, its other parameters kept."""
    params = request.GET.copy()
    params["offset"], params["limit"] = str(offset), str(limit)
    return request.build_absolute_uri(f"{request.path}?{params.urlencode()}")


def neighbours(
    request: HttpRequest, *, offset: int, limit: int, count: int
) -> tuple[str | None, str | None]:
    """The next and previous windows' links around [offset, offset + limit) in `count` items."""
    starts = window_neighbours(
        offset=offset, limit=limit, count=count, most=settings.LIMIT_API_OFFSET
    )
    following, preceding = (
        None if start is None else window_url(request, offset=start, limit=limit)
        for start in starts
    )
    return following, preceding


class Paged(LimitOffsetPagination):
    """ninja's limit/offset pagination with the links and the window in the answer."""

    class Input(LimitOffsetPagination.Input):
        limit: Annotated[int, named_bound("LIMIT_API_PAGE")] = Field(
            settings.LIMIT_API_PAGE_DEFAULT,
            ge=1,
            le=settings.LIMIT_API_PAGE,
            description=f"1 to {settings.LIMIT_API_PAGE} (LIMIT_API_PAGE)",
        )
        offset: Annotated[int, named_bound("LIMIT_API_OFFSET")] = Field(
            0,
            ge=0,
            le=settings.LIMIT_API_OFFSET,
            description=f"items skipped, 0 to {settings.LIMIT_API_OFFSET} (LIMIT_API_OFFSET); "
            "past the end: an empty page",
        )

    class Output(Schema):
        items: list[Any]
        count: int  # every item of the list, whatever the window
        offset: int
        limit: int
        next: str | None  # the next window's URL, null on the last page
        previous: str | None  # the previous window's URL, null on the first page

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_limit=settings.LIMIT_API_PAGE, **kwargs)

    def paginate_queryset(
        self, queryset, pagination: LimitOffsetPagination.Input, request: HttpRequest, **params
    ):
        page = super().paginate_queryset(queryset, pagination, request, **params)
        offset, limit = pagination.offset, min(pagination.limit, self.max_limit)
        following, preceding = neighbours(request, offset=offset, limit=limit, count=page["count"])
        return page | {"offset": offset, "limit": limit, "next": following, "previous": preceding}
