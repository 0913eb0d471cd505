"""What an author may write: every construct the renderer shows. One it does not (raw HTML,
an image from elsewhere, without alt text or with a formula in it, a link the page would strip,
`\\eqref`, a footnote that is not both marked and written or that marks another, quotes and lists
nested past LIMIT_MARKDOWN_NESTING) is refused with a reason at import, in admin and through the
API, so nothing an author wrote is dropped from the page without a word; a title is one line of
it (`title_errors`). What KaTeX refuses in a formula (`\\href`, `\\tag`...) is katex/render.js's
to say."""

import re
from urllib.parse import urlsplit

from django.conf import settings
from markdown_it.token import Token

from .parsing import DISPLAY_TYPES, EQUATION_NUMBER, markdown, parse
from .rules import MEDIA_SCHEME, media_name

RAW_HTML = markdown(html=True)
"""The text read as if HTML were allowed: what it reads as HTML is HTML the author typed (in
code or a formula it is not)."""
EQREF = re.compile(r"\\(?:eq)?ref\{([^{}\n]*)\}")
LINK_SCHEMES = {"http", "https", "mailto"}
REFUSED_LINK = re.compile(
    r"(?:\]\(\s*<?\s*|^\s*\[[^\]\n]+\]:\s*<?\s*|<)"
    r"((?:javascript|vbscript|file|data):(?:[^\s()<>]|\([^\s()<>]*\))*)",
    re.IGNORECASE | re.MULTILINE,
)
"""A link, image, reference definition (`[r]: address`) or autolink (`<address>`) whose address
markdown-it will not make a link of (`validateLink`): the text then shows as typed, brackets
and all."""
FOOTNOTE_MARK = re.compile(r"\[\^([^\]\s]+)\]")
FOOTNOTE_NOTE = re.compile(r"^ {0,3}\[\^([^\]\s]+)\]:", re.MULTILINE)
"""A footnote's note written at the start of a line (a second of one label drops the first)."""
"""A footnote mark left as text: no note of that label is written."""
CONTAINERS = {"blockquote_open", "bullet_list_open", "ordered_list_open", "footnote_open"}


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
    if any(child.type in DISPLAY_TYPES for child in token.children or []):
        return (
            f"image {MEDIA_SCHEME}{name} has a formula in its alt text, which is read as plain "
            "text: write it in words"
        )
    return None


def _link_error(token: Token) -> str | None:
    href = str(token.attrGet("href") or "")
    parts = urlsplit(href if ":" in href else "")
    scheme = parts.scheme.lower()
    if not scheme or (scheme in LINK_SCHEMES and (scheme == "mailto" or parts.netloc)):
        return None
    if scheme in LINK_SCHEMES:  # `https:javascript:…`, `http:/x`: the page strips what no host
        return f"link `{_shown(href)}` would lose its address: write {scheme}://host/..."
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


def _footnote_errors(source: str, tokens: list[Token], env: dict) -> list[str]:
    """A mark with no note shows as typed, a note never marked or written twice is dropped, and
    a note marking another (or itself) is numbered and linked back in ways no reader can
    follow."""
    unmarked = [
        label[1:] for label, at in env.get("footnotes", {}).get("refs", {}).items() if at < 0
    ]
    errors = [
        f"footnote mark `[^{found[1]}]` has no note: write `[^{found[1]}]: the note` on its own "
        "line, or remove the mark"
        for token in tokens
        if token.type == "text"
        for found in FOOTNOTE_MARK.finditer(token.content)
    ] + [
        f"footnote `[^{label}]` is never marked, so the page would drop it: mark it "
        f"`text[^{label}]`, or remove it"
        for label in unmarked
    ]
    written = [found[1] for found in FOOTNOTE_NOTE.finditer(source)] if env.get("footnotes") else []
    errors += [
        f"footnote `[^{label}]` is written twice, so the page would drop the first: give each "
        "note its own label"
        for label in sorted({label for label in written if written.count(label) > 1})
    ]
    note = None
    for token in tokens:
        note = token.meta["label"] if token.type == "footnote_open" else note
        note = None if token.type == "footnote_close" else note
        if note is not None and token.type == "footnote_ref":
            errors.append(
                f"footnote `[^{note}]` marks footnote `[^{token.meta['label']}]`: a note may not "
                "mark a note; say it in the note's own words"
            )
    return errors


def _nesting_errors(tokens: list[Token]) -> list[str]:
    """markdown-it drops what nests past its maxNesting: refused well before (`parsing`)."""
    limit, depth = settings.LIMIT_MARKDOWN_NESTING, 0
    for token in tokens:
        if token.type.replace("_close", "_open") in CONTAINERS:
            depth += token.nesting
        if depth > limit:
            return [
                f"quotes, lists and footnotes are nested more than {limit} deep "
                "(LIMIT_MARKDOWN_NESTING): the page would drop what lies deeper; flatten them"
            ]
    return []


def _deep(source: str) -> bool:
    """Whether a line opens with enough quote and list markers, or indentation, to nest past
    the limit: each container takes at least one character there (a tab may indent two)."""
    least = (settings.LIMIT_MARKDOWN_NESTING + 1) // 2
    return re.search(rf"^[ \t>*+\-0-9.)]{{{least},}}", source, re.MULTILINE) is not None


def construct_errors(source: str) -> list[str]:
    """Each construct in the text the page would not show, with why and what to write (a
    media name the library lacks is `markup_checks`'s to tell)."""
    numbered = [
        f"`{EQUATION_NUMBER}` is the site's own: label the equation $$ ... $$ (label) and refer "
        "to it as @eq:label"
    ] * (EQUATION_NUMBER in source)
    if "<" not in source and "[" not in source and "ref{" not in source and not _deep(source):
        return numbered  # no HTML, image, link, footnote, \eqref or deep nesting: no parse
    env: dict = {}
    blocks = parse(source, env)
    tokens = _walk(blocks)
    errors = numbered + _html_errors(source) + _eqref_errors(tokens) + _unlinked_errors(tokens)
    errors += _footnote_errors(source, tokens, env) + _nesting_errors(blocks)
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


LINE = {"paragraph_open", "inline", "paragraph_close"}
OFF_THE_LINE = {"math_inline_double", "footnote_ref"}


def title_errors(source: str) -> list[str]:
    """A title is read on one line beside what it names ("Prop. 2 Scores scale as √d"), and as
    one line in a search hit's heading: one paragraph of inline Markdown. A heading, list,
    quote, table, code block, display formula, footnote or second paragraph would break that
    line, and a display equation there would be numbered among the chapter's."""
    tokens = parse(source)
    blocks = [token for token in tokens if token.type not in LINE]
    paragraphs = sum(token.type == "paragraph_open" for token in tokens)
    inline = [child for token in tokens for child in token.children or []]
    broken = len(source.splitlines()) > 1  # a line break of any kind: \n, \r, U+2028, NEL
    if broken or blocks or paragraphs > 1 or any(child.type in OFF_THE_LINE for child in inline):
        return [
            "a title is one line of text: write it without line breaks, headings, lists, "
            "quotes, tables, code blocks, display formulas ($$...$$) or footnotes"
        ]
    return []
