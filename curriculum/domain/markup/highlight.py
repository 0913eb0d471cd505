"""Fenced code highlighted on the server by Pygments: classes only (`k`, `s2`, ...), styled
light and dark by static/site/code.css, so pages need no script and no inline style."""

from html import escape

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

FORMATTER = HtmlFormatter(nowrap=True)


def highlighted(code: str, language: str, attributes: str) -> str:
    """A fence's code as one `pre`; a language Pygments does not know is shown plain."""
    try:
        lexer = get_lexer_by_name(language.strip().lower()) if language.strip() else None
    except ClassNotFound:
        lexer = None
    body = highlight(code, lexer, FORMATTER) if lexer is not None else escape(code)
    return f'<pre class="highlight" tabindex="0"><code>{body}</code></pre>\n'
