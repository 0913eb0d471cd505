"""A book's description: Markdown, typeset as a chapter's texts are, on the home page, the
book's page and its printed edition. It is read outside every chapter, so no verifier checks a
claim written in it: a claim there is refused, never shown with a mark that says it was checked."""

from django.conf import settings
from django.utils.html import escape

from .claims.syntax import claim_errors, claims_in
from .markup import render
from .markup_checks import markup_errors

CLAIMS_REFUSED = (
    "a claim ({{ ... }}) is checked only in a chapter's texts, and nothing checks a book's "
    "description: state it in a chapter"
)


def _checked(source: str | None) -> tuple[list[str], str]:
    """Each reason the description would not show as written, would claim what nothing checks,
    or would be more than the home page should hold (its length first, before KaTeX runs); and,
    with none, its HTML, typeset once for both."""
    text, most = source or "", settings.LIMIT_DESCRIPTION_CHARS
    if len(text) > most:
        return [f"is {len(text):,} characters long; at most {most:,} (LIMIT_DESCRIPTION_CHARS)"], ""
    errors = markup_errors(text) + claim_errors(text)
    errors += [CLAIMS_REFUSED] if claims_in(text) else []
    if errors:
        return errors, ""
    html, limit = render(text), settings.LIMIT_DESCRIPTION_HTML_BYTES
    if (size := len(html.encode())) > limit:
        return [
            f"typesets to {size:,} bytes of HTML; at most {limit:,} "
            "(LIMIT_DESCRIPTION_HTML_BYTES): shorten it, or give its formulas to a chapter"
        ], ""
    return [], html


def description_errors(source: str | None) -> list[str]:
    return _checked(source)[0]


def description_html(source: str | None) -> str:
    """The description typeset; one stored before its rules that breaks them is shown as
    written, escaped, so readers never see a claim marked as checked."""
    if not source:
        return ""
    errors, html = _checked(source)
    return f"<p>{escape(source)}</p>" if errors else html
