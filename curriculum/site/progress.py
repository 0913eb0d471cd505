"""A signed-in reader's progress on the chapter and book pages, without breaking their cache.

Those pages are cached as bytes shared by every reader. The shared bytes carry a fixed marker
(an HTML comment, `MARKER`) where progress goes; for a signed-in reader only, the marker's first
occurrence is replaced by the reader's own fragment, rendered on its own, and the answer is
private. Author text cannot carry the marker (every text reaches a page escaped or sanitised,
and no comment passes; tested), so the one replaced is the template's. Anonymous readers are
sent the shared bytes as they are, with their shared headers.
"""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.template.loader import render_to_string

from curriculum.domain.progress import books_progress, chapter_progress

MARKER = b"<!-- reader-progress -->"  # in templates/site/chapter.html and book.html
PRIVATE = "private, no-cache"


def signed_in(request: HttpRequest) -> User | None:
    """The reader whose progress a page shows, or None (no account: nothing about them)."""
    user = request.user
    return user if isinstance(user, User) and user.is_authenticated else None


def _placed(body: bytes, fragment: str) -> bytes:
    return body.replace(MARKER, fragment.encode(), 1)


def with_chapter_progress(body: bytes, *, reader: User, code: str, staff: bool) -> bytes:
    progress = chapter_progress(reader=reader, code=code, staff=staff)
    return _placed(body, render_to_string("site/_chapter_progress.html", {"progress": progress}))


def with_book_progress(body: bytes, *, reader: User, numeral: str, staff: bool) -> bytes:
    books = books_progress(reader=reader, staff=staff, numeral=numeral)
    if not books:
        return body
    return _placed(body, render_to_string("site/_book_progress.html", {"book": books[0]}))
