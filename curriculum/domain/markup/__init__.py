"""Author text to safe HTML: Markdown (CommonMark, tables, footnotes) with $...$ and $$...$$
mathematics typeset as MathML, fenced code highlighted, images from the media library.

    parsing     the markdown-it parser and the formulas of a text
    katex       formulas typeset by KaTeX, cached; `math_prepared` for a whole chapter
    highlight   fenced code by Pygments
    rules       how images, tables and cells are written
    allowlist   nh3 with exactly the tags and classes the others produce
    rendering   texts to HTML, cached
    constructs  what an author may not write (it would be lost), refused with a reason

`markup_checks` adds what needs the database (media names) to these checks.
"""

from .constructs import construct_errors, media_names, title_errors
from .katex import (
    KATEX_DIR,
    MathTooLarge,
    MathUnavailable,
    TooManyFormulas,
    math_errors,
    math_prepared,
    render_format,
)
from .parsing import EQUATION_NUMBER, PARSER, RENDER_FORMAT, formulas
from .rendering import render, render_many

__all__ = [
    "EQUATION_NUMBER",
    "KATEX_DIR",
    "PARSER",
    "RENDER_FORMAT",
    "MathTooLarge",
    "MathUnavailable",
    "TooManyFormulas",
    "construct_errors",
    "formulas",
    "media_names",
    "math_errors",
    "math_prepared",
    "render",
    "render_format",
    "render_many",
    "title_errors",
]
