"""Windows on a list (`offset`, `limit`): where the ones beside start. One rule for every list
paged (the API's lists, its search and the site's), so each says the same at either end."""


def window_neighbours(
    *, offset: int, limit: int, count: int, most: int
) -> tuple[int | None, int | None]:
    """The next window's offset (None at the end, or past `most`, the largest offset allowed)
    and the previous one's: the window just before, or from past the end the last window that
    has items (None at the start)."""
    after = offset + limit
    following = after if after < count and after <= most else None
    preceding = min(max(0, min(offset, count) - limit), most) if offset > 0 else None
    return following, preceding
