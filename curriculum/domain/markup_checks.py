"""What author text may hold, checked wherever it is written (chapter files, admin, the API):
formulas that parse, only constructs the page shows, and images the media library has."""

from .markup import construct_errors, math_errors, media_names
from .markup.rules import MEDIA_SCHEME
from .media import unknown_media


def markup_errors(source: str | None) -> list[str]:
    """Each reason the text would not show as written."""
    text = source or ""
    unknown = sorted(unknown_media(media_names(text)))
    return (
        math_errors(text)
        + construct_errors(text)
        + [
            f"image {MEDIA_SCHEME}{name} names nothing in the media library: upload it in "
            "admin (Media) first"
            for name in unknown
        ]
    )
