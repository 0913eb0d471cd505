"""Author text rendered to safe HTML: each text parsed once, all its formulas typeset in one
KaTeX batch, then rendered and cleaned (`allowlist`). Texts with formulas are cached by hash
of the text and the render format: pages never re-render unchanged text."""

import hashlib
import re
from html import escape

from django.core.cache import caches
from markdown_it.token import Token

from ..claims.pattern import MARK, claims_marked
from .allowlist import clean
from .katex import render_format, typeset
from .parsing import EQUATION_LABEL, PARSER, PREPARED, formula, math_tokens, parse


def _math_html(formula: tuple[str, bool], result: dict[str, str], *, block: bool) -> str:
    """A display formula gets its own box: a div on its own lines, a span inside a paragraph."""
    tex, display = formula
    if "html" in result and not display:
        return result["html"]
    if "html" in result:
        tag = "div" if block else "span"
        # focusable, so a keyboard can scroll a formula wider than the screen (WCAG 2.1.1)
        return f'<{tag} class="math-display" tabindex="0">{result["html"]}</{tag}>'
    return f'<code class="math-error" title="{escape(result["error"])}">{escape(tex)}</code>'


PUNCTUATION = re.compile(r"^[.,;:!?)\]\u2019\u201d]+")


def _keep_punctuation(tokens: list[Token]) -> None:
    """A full stop or comma after an inline formula stays on the formula's line."""
    for inline in tokens:
        children = inline.children or []
        for token, after in zip(children, children[1:], strict=False):
            found = PUNCTUATION.match(after.content) if token.type == "math_inline" else None
            if found and after.type == "text":
                token.meta["punctuation"] = found.group()
                after.content = after.content[found.end() :]


def _demote_headings(tokens: list[Token]) -> None:
    """Author headings would break the page's outline (h1 title, h2 sections, h3 problems):
    they are shown as bold run-in paragraphs instead."""
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = "p"
            token.attrs = {"class": "prose-heading"} if token.nesting == 1 else {}


def _render_fresh(sources: list[str]) -> list[str]:
    """Parse every text (unless `math_prepared` has), typeset all their formulas in one batch,
    then render and clean."""
    context = PREPARED.get()
    kept = context.parsed if context is not None else {}
    parsed = [kept.pop(source) if source in kept else parse(source) for source in sources]
    for tokens in parsed:
        _keep_punctuation(tokens)
        _demote_headings(tokens)
    math = [list(math_tokens(tokens)) for tokens in parsed]
    batch = [formula(token) for tokens in math for token in tokens]
    results = typeset(batch) if batch else {}
    for token in (token for tokens in math for token in tokens):
        each = formula(token)
        places = "".join(found.group() for found in MARK.finditer(token.content))
        token.content = _math_html(each, results[each], block=token.block) + places
        if token.type == "math_block_label" and EQUATION_LABEL.fullmatch(token.info):
            token.content = f"\ue002{token.info}\ue003{token.content}"  # its id, once cleaned
        if punctuation := token.meta.get("punctuation"):
            token.content = f'<span class="nobr">{token.content}{escape(punctuation)}</span>'
        token.type = "html_block" if token.block else "html_inline"
    rendered = [
        PARSER.renderer.render(tokens, PARSER.options, {"docId": _footnotes_id(source)})
        for tokens, source in zip(parsed, sources, strict=True)
    ]
    return [
        _labelled(clean(_marks_placed(html, source)))
        for html, source in zip(rendered, sources, strict=True)
    ]


def _footnotes_id(source: str) -> str:
    """Footnote ids (fn-<this>-1) differ between the texts of one page."""
    return hashlib.sha256(source.encode()).hexdigest()[:8]


LABELLED = re.compile('\ue002([A-Za-z0-9_-]+)\ue003<div class="math-display"')


def _labelled(html: str) -> str:
    """A labelled display equation gets its id (eq-label) after cleaning, which allows none."""
    if "\ue002" not in html:
        return html
    return LABELLED.sub(r'<div id="eq-\1" class="math-display"', html)


def _marks_placed(html: str, source: str) -> str:
    """Each claim's mark where its place stands: focusable, saying how the number was checked."""
    if "\ue000" not in html:
        return html
    marks = claims_marked(source)[1]

    def mark(found: re.Match) -> str:
        if int(found[1]) >= len(marks):
            return ""
        sign, said = marks[int(found[1])]
        kind = "claim" if sign == "✓" else "claim claim-unverified"
        return (
            f'<span class="{kind}" tabindex="0" title="{escape(said)}" '
            f'aria-label="{escape(said)}">{sign}</span>'
        )

    return MARK.sub(mark, html)


def _key(source: str, form: str) -> str:
    return "md:" + hashlib.sha256(f"{form}|{source}".encode()).hexdigest()


def render_many(sources: list[str]) -> list[str]:
    """Render many texts with one cache round trip and at most one KaTeX process. Only texts
    with formulas are cached: any other renders faster than a cache entry is written."""
    form = render_format()
    keys = {s: _key(s, form) for s in sources if "$" in s}
    found = caches["markup"].get_many(keys.values())
    html = {s: found[key] for s, key in keys.items() if key in found}
    todo = [s for s in dict.fromkeys(sources) if s and s not in html]
    html.update(zip(todo, _render_fresh(todo), strict=True))
    caches["markup"].set_many({keys[s]: html[s] for s in todo if s in keys}, timeout=None)
    return [html.get(s, "") for s in sources]


def render(source: str) -> str:
    return render_many([source])[0]
