"""What an author may write: every construct the renderer shows. One it does not (raw HTML,
an image from elsewhere or without alt text, a link the page would strip, `\\eqref`) is refused
with a reason at import, in admin and through the API, so nothing an author wrote is dropped
from the page without a word."""

import re
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from .parsing import DISPLAY_TYPES, parse
from .rules import MEDIA_SCHEME, media_name

RAW_HTML = (
    MarkdownIt("commonmark", {"html": True})
    .enable("table")
    .use(footnote_plugin)
    .use(dollarmath_plugin, double_inline=True, allow_digits=False, allow_labels=True)
)
"""The text read as if HTML were allowed: what it reads as HTML is HTML the author typed (in
code or a formula it is not)."""
EQREF = re.compile(r"\\(?:eq)?ref\{([^{}\n]*)\}")
LINK_SCHEMES = {"http", "https", "mailto"}
REFUSED_LINK = re.compile(
    r"\]\(\s*<?\s*((?:javascript|vbscript|file|data):(?:[^\s()<>]|\([^\s()<>]*\))*)", re.IGNORECASE
)
"""A link or image address markdown-it will not make a link of (`validateLink`): the text then
shows as typed, brackets and all."""


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else f"{text[:57]}..."


def _walk(tokens: list[Token]) -> list[Token]:
    found = []
    for token in tokens:
        found.append(token)
        found.extend(_walk(token.children or []))
    return found


def _html_errors(source: str) -> list[str]:
    if "<" not in source:
        return []
    return [
        f"raw HTML `{_shown(token.content)}` is not shown on the page: write Markdown, or put "
        "it in `code` to show it as written"
        for token in _walk(RAW_HTML.parse(source))
        if token.type in ("html_inline", "html_block")
    ]


def _image_error(token: Token) -> str | None:
    src = str(token.attrGet("src") or "")
    alt = token.content.strip()
    name = media_name(src)
    if name is None:
        return (
            f"image `{_shown(src)}` is not in the media library: pages show images only from "
            f"this site; upload it in admin (Media) and write ![what it shows]({MEDIA_SCHEME}name)"
        )
    if not alt:
        return f"image {MEDIA_SCHEME}{name} needs alt text: ![what it shows]({MEDIA_SCHEME}{name})"
    return None


def _link_error(token: Token) -> str | None:
    href = str(token.attrGet("href") or "")
    scheme = urlsplit(href).scheme.lower() if ":" in href else ""
    if not scheme or scheme in LINK_SCHEMES:
        return None
    return f"link `{_shown(href)}` would lose its address: links go to http(s), mailto or a page"


def _unlinked_errors(tokens: list[Token]) -> list[str]:
    return [
        f"link `{_shown(found[1])}` would show as typed: links go to http(s), mailto or a page"
        for token in tokens
        if token.type == "text"
        for found in REFUSED_LINK.finditer(token.content)
    ]


def _eqref_errors(tokens: list[Token]) -> list[str]:
    return [
        f"`{found.group()}` is not supported: write @eq:{found[1] or 'label'} (the equation "
        "labelled `$$ ... $$ (label)`)"
        for token in tokens
        if token.type == "text" or token.type in DISPLAY_TYPES
        for found in EQREF.finditer(token.content)
    ]


def construct_errors(source: str) -> list[str]:
    """Each construct in the text the page would not show, with why and what to write (a
    media name the library lacks is `markup_checks`'s to tell)."""
    if "<" not in source and "[" not in source and "ref{" not in source:
        return []  # no HTML, image, link or \eqref: nothing to refuse, and no parse
    tokens = _walk(parse(source))
    errors = _html_errors(source) + _eqref_errors(tokens) + _unlinked_errors(tokens)
    for token in tokens:
        error = _image_error(token) if token.type == "image" else None
        error = _link_error(token) if token.type == "link_open" else error
        if error:
            errors.append(error)
    return errors


def media_names(source: str) -> set[str]:
    """The media library names the text's images use."""
    if MEDIA_SCHEME not in source:
        return set()
    found = (
        media_name(str(token.attrGet("src") or ""))
        for token in _walk(parse(source))
        if token.type == "image"
    )
    return {name for name in found if name}
