"""What may reach a page from author text: exactly the tags, attributes and classes the
renderer produces (Markdown, KaTeX's MathML, Pygments' highlighting, footnotes, media images).
Everything else is removed by nh3; `constructs` refuses, at import and in admin, whatever
Markdown an author writes that would lose text here."""

import nh3
from pygments.token import STANDARD_TYPES

TEXT_TAGS = {
    "p",
    "em",
    "strong",
    "s",
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
    "sup",
    "section",
    "img",
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
    "a": {"href", "title", "id", "aria-label"},
    "span": {"title", "aria-label"},
    "code": {"title"},
    "li": {"id"},
    "img": {"src", "alt", "title", "loading"},
    **{tag: MATH_ATTRIBUTES for tag in MATH_TAGS},
    "math": MATH_ATTRIBUTES | {"xmlns", "display"},
    "annotation": {"encoding"},
}
HIGHLIGHT_CLASSES = {name for name in STANDARD_TYPES.values() if name}
"""Pygments' short token classes (`k` keyword, `s2` string...), styled by static/site/code.css."""
ALIGNMENTS = {"align-left", "align-center", "align-right"}
ALLOWED_CLASSES = {
    "p": {"prose-heading"},
    "span": {"katex", "math-display", "nobr", "claim", "claim-unverified"} | HIGHLIGHT_CLASSES,
    "div": {"math-display", "table-scroll"},
    "code": {"math-error"},
    "pre": {"highlight"},
    "sup": {"footnote-ref"},
    "a": {"footnote-backref"},
    "hr": {"footnotes-sep"},
    "section": {"footnotes"},
    "ol": {"footnotes-list"},
    "li": {"footnote-item"},
    "img": {"media"},
    "th": ALIGNMENTS,
    "td": ALIGNMENTS,
}

SANITISER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=ALLOWED_ATTRIBUTES,
    allowed_classes=ALLOWED_CLASSES,
    tag_attribute_values={
        "div": {"tabindex": {"0"}},
        "span": {"tabindex": {"0"}},
        "pre": {"tabindex": {"0"}},
    },
    url_schemes={"http", "https", "mailto"},
    link_rel="noopener noreferrer nofollow",
)
"""Built once: `nh3.clean` builds its allowlist anew on every call, which cost twenty times the
cleaning of a short text."""


def clean(html: str) -> str:
    return SANITISER.clean(html)
