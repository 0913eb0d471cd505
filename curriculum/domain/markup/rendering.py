"""Author text to safe HTML: Markdown with $...$ and $$...$$ mathematics typeset as MathML.

Raw HTML in author text is escaped by the parser. Mathematics is typeset on the server by
KaTeX (pinned in katex/package-lock.json, run by node) into MathML, which browsers show with
no script. Everything then passes through nh3 with an explicit allowlist, so whatever KaTeX
or Markdown emit, only these tags and attributes, and only http(s)/mailto links, reach a page.

Each `render_many` call starts at most one node process, for the formulas no cache knows.
Rendered text and typeset formulas are cached by hash: pages never re-render unchanged text.
"""

import functools
import hashlib
import json
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from html import escape
from pathlib import Path

import nh3
from django.conf import settings
from django.core.cache import caches
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.dollarmath.index import math_block_dollar

from .claims.pattern import MARK, claims_marked

KATEX_DIR = Path(__file__).resolve().parents[2] / "katex"
KATEX_TIMEOUT_SECONDS = 60
RENDER_FORMAT = "katex-0.16.47/8"  # part of every cache key: bump when the output changes

TEXT_TAGS = {
    "p",
    "em",
    "strong",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "br",
    "hr",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "div",
}
MATH_TAGS = {
    "math",
    "semantics",
    "annotation",
    "mrow",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "mspace",
    "msup",
    "msub",
    "msubsup",
    "mfrac",
    "msqrt",
    "mroot",
    "mover",
    "munder",
    "munderover",
    "mtable",
    "mtr",
    "mtd",
    "mlabeledtr",
    "mstyle",
    "mpadded",
    "mphantom",
    "menclose",
    "merror",
    "mprescripts",
    "mmultiscripts",
    "none",
}
MATH_ATTRIBUTES = {
    "mathvariant",
    "stretchy",
    "fence",
    "separator",
    "lspace",
    "rspace",
    "minsize",
    "maxsize",
    "accent",
    "accentunder",
    "width",
    "height",
    "depth",
    "voffset",
    "columnalign",
    "rowalign",
    "rowspacing",
    "columnspacing",
    "columnlines",
    "rowlines",
    "frame",
    "framespacing",
    "scriptlevel",
    "displaystyle",
    "linethickness",
    "notation",
    "movablelimits",
    "symmetric",
    "largeop",
    "mathcolor",
    "mathbackground",
    "equalrows",
    "equalcolumns",
    "side",
}
ALLOWED_TAGS = TEXT_TAGS | MATH_TAGS
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "p": {"class"},
    "span": {"class", "title", "aria-label"},
    "div": {"class"},
    "code": {"class", "title"},
    **{tag: MATH_ATTRIBUTES for tag in MATH_TAGS},
    "math": MATH_ATTRIBUTES | {"xmlns", "display"},
    "annotation": {"encoding"},
}


class TooManyFormulas(ValueError):
    """More formulas than one chapter or save may typeset (LIMIT_CHAPTER_FORMULAS)."""

    def __init__(self, count: int) -> None:
        limit = settings.LIMIT_CHAPTER_FORMULAS
        super().__init__(
            f"holds {count:,} formulas; at most {limit:,} (LIMIT_CHAPTER_FORMULAS): split the "
            "chapter"
        )


class MathTooLarge(TooManyFormulas):
    """Formulas that typeset to more than a page may hold, refused as soon as KaTeX has made
    that much (LIMIT_CHAPTER_HTML_BYTES), the rest never typeset."""

    def __init__(self) -> None:
        ValueError.__init__(
            self,
            f"has formulas that render to more than {settings.LIMIT_CHAPTER_HTML_BYTES:,} bytes "
            "of HTML (LIMIT_CHAPTER_HTML_BYTES)",
        )


class MathUnavailable(RuntimeError):
    """KaTeX could not be run (node missing, or scripts/install-katex.sh not yet run)."""


_BLOCK = math_block_dollar(allow_labels=True)


def _math_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A line that opens with $$ is one display block only if no $$ stands inside it:
    "$$a$$ and $$b$$" is a paragraph of two formulas, not the formula "a$$ and $$b"."""
    line = state.src[state.bMarks[start] + state.tShift[start] : state.eMarks[start]].strip()
    line = TRAILING_LABEL.sub("", line)  # "$$a$$ (eq)" is one labelled block
    return "$$" not in line[2:-2] and _BLOCK(state, start, end, silent)


TRAILING_LABEL = re.compile(r"(?<=\$\$)\s*\([^()$]*\)$")


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).use(
        dollarmath_plugin, double_inline=True, allow_digits=False, allow_labels=True
    )
    parser.block.ruler.at("math_block", _math_block)
    return parser


PARSER = _parser()
DISPLAY_TYPES = {
    "math_block": True,
    "math_block_label": True,  # $$...$$ (label): numbered, and its id is eq-label
    "math_inline_double": True,
    "math_inline": False,
}
EQUATION_LABEL = re.compile(r"[A-Za-z0-9_-]{1,50}")
"""A labelled equation's label as references name it (@eq:label); another is left unlabelled."""


def _math_tokens(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        if token.type in DISPLAY_TYPES:
            yield token
        if token.children:
            yield from _math_tokens(token.children)


def _parse(source: str) -> list[Token]:
    """Tokens of a text whose claims stand as their typed numbers, each followed by its mark's
    place (`claims.pattern`): the formulas typeset are the numbers readers see."""
    marked = "{{" in source or "\ue000" in source or "\ue001" in source
    return PARSER.parse(claims_marked(source)[0] if marked else source)


def _formula(token: Token) -> tuple[str, bool]:
    return MARK.sub("", token.content).strip(), DISPLAY_TYPES[token.type]


def formulas(source: str) -> list[tuple[str, bool]]:
    """Each formula in the text as (TeX, display mode), in order."""
    if "$" not in source:  # formulas are $-delimited: most texts need no parse to know
        return []
    prepared = _PREPARED.get()
    if prepared is not None and source in prepared.formulas:
        return list(prepared.formulas[source])
    return list(_formulas(source))


@functools.lru_cache(maxsize=4096)
def _formulas(source: str) -> tuple[tuple[str, bool], ...]:
    """A text checked twice (a form's full_clean, then the editing service's) is parsed once."""
    return tuple(_formula(token) for token in _math_tokens(_parse(source)))


# ---------------------------------------------------------------- KaTeX


def _limits() -> dict[str, int]:
    """What one formula may cost (settings, LIMIT_FORMULA_*): KaTeX enforces each."""
    return {
        "expand": settings.LIMIT_FORMULA_EXPAND,
        "tokens": settings.LIMIT_FORMULA_TOKENS,
        "chars": settings.LIMIT_FORMULA_CHARS,
        "html": settings.LIMIT_FORMULA_HTML_BYTES,
    }


def _render_format() -> str:
    """Cache keys change with the renderer and with the limits it enforces."""
    return f"{RENDER_FORMAT}|{sorted(_limits().items())}"


def _formula_key(formula: tuple[str, bool], form: str) -> str:
    tex, display = formula
    digest = hashlib.sha256(f"{form}|{int(display)}|{tex}".encode()).hexdigest()
    return f"tex:{digest}"


def _katex(batch: list[tuple[str, bool]]) -> list[dict[str, str]]:
    """One node process typesets the whole batch: each result is {"html"} or {"error"}."""
    formulas = [{"tex": tex, "display": display} for tex, display in batch]
    total = settings.LIMIT_CHAPTER_HTML_BYTES  # no page shows more: the rest is not typeset
    payload = json.dumps({"limits": _limits(), "total": total, "formulas": formulas})
    try:
        done = subprocess.run(
            ["node", str(KATEX_DIR / "render.js")],
            input=payload,
            capture_output=True,
            text=True,
            timeout=KATEX_TIMEOUT_SECONDS,
            check=True,
            cwd=KATEX_DIR,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise MathUnavailable(
            f"KaTeX did not run ({error}); run scripts/install-katex.sh"
        ) from error
    return json.loads(done.stdout)


@dataclass
class _Prepared:
    """What `math_prepared` learnt of many texts, each parsed once: every formula typeset, the
    formulas of each text, and each text's parse until its first render consumes it."""

    typeset: dict[tuple[str, bool], dict[str, str]]
    formulas: dict[str, tuple[tuple[str, bool], ...]]
    parsed: dict[str, list[Token]]


_PREPARED: ContextVar[_Prepared | None] = ContextVar("formulas_prepared", default=None)


def typeset(batch: list[tuple[str, bool]]) -> dict[tuple[str, bool], dict[str, str]]:
    """Typeset formulas, asking KaTeX only about those neither `math_prepared` nor a cache
    holds."""
    wanted = list(dict.fromkeys(batch))
    context = _PREPARED.get()
    prepared = context.typeset if context is not None else {}
    if all(formula in prepared for formula in wanted):
        return {formula: prepared[formula] for formula in wanted}
    form = _render_format()
    keys = {formula: _formula_key(formula, form) for formula in wanted}
    found = caches["markup"].get_many(keys.values())
    missing = [formula for formula in wanted if keys[formula] not in found]
    if missing:
        fresh = dict(zip(missing, _katex(missing), strict=True))
        done = {keys[f]: result for f, result in fresh.items() if "unfinished" not in result}
        caches["markup"].set_many(done, timeout=None)
        found.update({keys[f]: UNFINISHED if "unfinished" in r else r for f, r in fresh.items()})
    return {formula: found[keys[formula]] for formula in wanted}


UNFINISHED = {
    "error": "KaTeX parse error: not typeset: the text's formulas render to more "
    "than a page may hold (LIMIT_CHAPTER_HTML_BYTES)"
}


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


# ---------------------------------------------------------------- Markdown


SANITISER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=ALLOWED_ATTRIBUTES,
    tag_attribute_values={tag: {"tabindex": {"0"}} for tag in ("div", "span")},
    url_schemes={"http", "https", "mailto"},
    link_rel="noopener noreferrer nofollow",
)
"""Built once: `nh3.clean` builds its allowlist anew on every call, which cost twenty times the
cleaning of a short text."""


def _clean(html: str) -> str:
    return SANITISER.clean(html)


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
    context = _PREPARED.get()
    kept = context.parsed if context is not None else {}
    parsed = [kept.pop(source) if source in kept else _parse(source) for source in sources]
    for tokens in parsed:
        _keep_punctuation(tokens)
        _demote_headings(tokens)
    math = [list(_math_tokens(tokens)) for tokens in parsed]
    batch = [_formula(token) for tokens in math for token in tokens]
    results = typeset(batch) if batch else {}
    for token in (token for tokens in math for token in tokens):
        formula = _formula(token)
        places = "".join(found.group() for found in MARK.finditer(token.content))
        token.content = _math_html(formula, results[formula], block=token.block) + places
        if token.type == "math_block_label" and EQUATION_LABEL.fullmatch(token.info):
            token.content = f"\ue002{token.info}\ue003{token.content}"  # its id, once cleaned
        if punctuation := token.meta.get("punctuation"):
            token.content = f'<span class="nobr">{token.content}{escape(punctuation)}</span>'
        token.type = "html_block" if token.block else "html_inline"
    rendered = [PARSER.renderer.render(tokens, PARSER.options, {}) for tokens in parsed]
    return [
        _labelled(_clean(_marks_placed(html, source)))
        for html, source in zip(rendered, sources, strict=True)
    ]


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
    form = _render_format()
    keys = {s: _key(s, form) for s in sources if "$" in s}
    found = caches["markup"].get_many(keys.values())
    html = {s: found[key] for s, key in keys.items() if key in found}
    todo = [s for s in dict.fromkeys(sources) if s and s not in html]
    html.update(zip(todo, _render_fresh(todo), strict=True))
    caches["markup"].set_many({keys[s]: html[s] for s in todo if s in keys}, timeout=None)
    return [html.get(s, "") for s in sources]


def render(source: str) -> str:
    return render_many([source])[0]


@contextmanager
def math_prepared(sources: list[str]) -> Iterator[None]:
    """Parse each text once and typeset every formula in one KaTeX run (TooManyFormulas past
    LIMIT_CHAPTER_FORMULAS, counted where they stand); keep all of it at hand
    for the checks and renders made inside the block: a cache may keep fewer (local memory culls
    past its entries), and a miss there costs a KaTeX process per text."""
    marked = [source for source in dict.fromkeys(sources) if "$" in source]
    parsed = {source: _parse(source) for source in marked}
    found = {
        source: tuple(_formula(token) for token in _math_tokens(tokens))
        for source, tokens in parsed.items()
    }
    batch = [formula for each in found.values() for formula in each]
    if len(batch) > settings.LIMIT_CHAPTER_FORMULAS:  # before KaTeX spends a second on them
        raise TooManyFormulas(len(batch))
    results = typeset(batch)
    made = sum(len(results[formula].get("html", "")) for formula in batch)  # every occurrence
    if made > settings.LIMIT_CHAPTER_HTML_BYTES or any(r is UNFINISHED for r in results.values()):
        raise MathTooLarge()
    token = _PREPARED.set(_Prepared(results, found, parsed))
    try:
        yield
    finally:
        _PREPARED.reset(token)


def _shown(tex: str) -> str:
    return tex if len(tex) <= 80 else f"{tex[:60]}…{tex[-10:]}"


def math_errors(source: str) -> list[str]:
    """Formulas in the text that do not parse, each with its source and KaTeX's reason."""
    found = formulas(source)
    if not found:
        return []
    results = typeset(found)
    return [
        f"formula ${_shown(tex)}$ does not parse: {results[(tex, display)]['error']}"
        for tex, display in dict.fromkeys(found)
        if "error" in results[(tex, display)]
    ]
