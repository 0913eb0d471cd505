"""Author text as markdown-it tokens: CommonMark with tables, footnotes, ~~strikethrough~~, and
$...$ / $$...$$ mathematics ($$...$$ (label) numbered); fenced code is highlighted as it
renders."""

import functools
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from markdown_it.utils import EnvType
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.dollarmath.index import math_block_dollar
from mdit_py_plugins.footnote import footnote_plugin

from ..claims.pattern import MARK, claims_marked
from .highlight import highlighted
from .rules import RULES

RENDER_FORMAT = "katex-0.16.47/13"  # part of every cache key: bump when the output changes
EQUATION_NUMBER = "\\curriculumEquationNumber"
"""The command that sets a labelled equation's number (`references`, katex/render.js), the one
way a formula is numbered: an author's \\tag and \\label are refused, and so is this."""

_BLOCK = math_block_dollar(allow_labels=True)


def _math_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A line that opens with $$ is one display block only if no $$ stands inside it:
    "$$a$$ and $$b$$" is a paragraph of two formulas, not the formula "a$$ and $$b"."""
    line = state.src[state.bMarks[start] + state.tShift[start] : state.eMarks[start]].strip()
    line = TRAILING_LABEL.sub("", line)  # "$$a$$ (eq)" is one labelled block
    return "$$" not in line[2:-2] and _BLOCK(state, start, end, silent)


TRAILING_LABEL = re.compile(r"(?<=\$\$)\s*\([^()$]*\)$")


def markdown(*, html: bool, highlight: Callable[..., str] | None = None) -> MarkdownIt:
    """The Markdown authors write. markdown-it drops whatever nests deeper than its maxNesting;
    a container (quote, list and item, footnote) takes at most two of its levels, so a text
    nested one past LIMIT_MARKDOWN_NESTING still parses to show it (`constructs` refuses it)."""
    nesting = 2 * settings.LIMIT_MARKDOWN_NESTING + 4
    return (
        MarkdownIt("commonmark", {"html": html, "highlight": highlight, "maxNesting": nesting})
        .enable(["table", "strikethrough"])
        .use(footnote_plugin)
        .use(dollarmath_plugin, double_inline=True, allow_digits=False, allow_labels=True)
    )


def _parser() -> MarkdownIt:
    parser = markdown(html=False, highlight=highlighted)
    parser.block.ruler.at("math_block", _math_block)
    for name, rule in RULES.items():
        parser.add_render_rule(name, rule)
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


@dataclass
class Prepared:
    """What `math_prepared` learnt of many texts, each parsed once: every formula typeset, the
    formulas of each text, and each text's parse until its first render consumes it."""

    typeset: dict[tuple[str, bool], dict[str, str]]
    formulas: dict[str, tuple[tuple[str, bool], ...]]
    parsed: dict[str, list[Token]]


PREPARED: ContextVar[Prepared | None] = ContextVar("formulas_prepared", default=None)


def math_tokens(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        if token.type in DISPLAY_TYPES:
            yield token
        if token.children:
            yield from math_tokens(token.children)


def parse(source: str, env: EnvType | None = None) -> list[Token]:
    """Tokens of a text whose claims stand as their typed numbers, each followed by its mark's
    place (`claims.pattern`): the formulas typeset are the numbers readers see. `env` receives
    what the parser learnt besides (its footnotes)."""
    marked = "{{" in source or "\ue000" in source or "\ue001" in source
    return PARSER.parse(claims_marked(source)[0] if marked else source, env)


def formula(token: Token) -> tuple[str, bool]:
    return MARK.sub("", token.content).strip(), DISPLAY_TYPES[token.type]


def formulas(source: str) -> list[tuple[str, bool]]:
    """Each formula in the text as (TeX, display mode), in order."""
    if "$" not in source:  # formulas are $-delimited: most texts need no parse to know
        return []
    prepared = PREPARED.get()
    if prepared is not None and source in prepared.formulas:
        return list(prepared.formulas[source])
    return list(_formulas(source))


@functools.lru_cache(maxsize=4096)
def _formulas(source: str) -> tuple[tuple[str, bool], ...]:
    """A text checked twice (a form's full_clean, then the editing service's) is parsed once."""
    return tuple(formula(token) for token in math_tokens(parse(source)))
