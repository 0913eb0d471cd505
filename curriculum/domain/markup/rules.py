"""How the renderer writes what markdown-it parsed, where its default would lose text or
reach beyond the page: images only from the media library, table alignment as classes, wide
tables in a box a keyboard can scroll."""

import re
from collections.abc import Sequence
from html import escape
from typing import Any

from django.urls import reverse
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

MEDIA_SCHEME = "media:"
MEDIA_NAME = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*")
"""A media library name as texts write it, `![alt](media:attention-heads.png)`."""
ALIGNED = re.compile(r"text-align:(left|center|right)")


def media_name(src: str) -> str | None:
    """The library name an image's address names, or None if it is no media: address."""
    name = src[len(MEDIA_SCHEME) :] if src.startswith(MEDIA_SCHEME) else ""
    return name if MEDIA_NAME.fullmatch(name) and len(name) <= 80 else None


def image(renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """A media library image with its alt text as plain text (a formula there, typeset by now
    and refused at import and in admin, is left out) and its title; any other image (refused
    too) is kept as its text."""
    token = tokens[idx]
    plain = [child for child in token.children or [] if child.type != "html_inline"]
    alt = renderer.renderInlineAsText(plain, options, env)
    name = media_name(str(token.attrGet("src") or ""))
    if name is None or not alt.strip():
        return escape(alt)
    src = escape(reverse("site:media", kwargs={"name": name}))
    title = str(token.attrGet("title") or "")
    titled = f' title="{escape(title)}"' if title else ""
    return f'<img class="media" src="{src}" alt="{escape(alt)}"{titled} loading="lazy">'


def cell(renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """A column's alignment as a class: pages carry no inline style."""
    token = tokens[idx]
    aligned = ALIGNED.search(str(token.attrGet("style") or ""))
    token.attrs.pop("style", None)
    if aligned:
        token.attrSet("class", f"align-{aligned[1]}")
    return renderer.renderToken(tokens, idx, options, env)


def table_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Focusable, so a keyboard can scroll a table wider than the screen (WCAG 2.1.1)."""
    return '<div class="table-scroll" tabindex="0">' + renderer.renderToken(
        tokens, idx, options, env
    )


def table_close(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    return renderer.renderToken(tokens, idx, options, env) + "</div>\n"


RULES = {
    "image": image,
    "th_open": cell,
    "td_open": cell,
    "table_open": table_open,
    "table_close": table_close,
}
