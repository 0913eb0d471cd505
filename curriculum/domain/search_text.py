"""The text a reader sees, from the HTML a chapter page shows: what search indexes and quotes.

Markdown is read as its words (no `**`, no links' targets) and each typeset formula as the
text of its MathML, the glyphs a reader sees, never its TeX: `$QK^\\top/\\sqrt{d_k}$` reads
`QK⊤/√(dₖ)`, `$x^2 + \\alpha_i$` reads `x² + αᵢ`. Scripts made only of characters Unicode has
raised or lowered forms of take those forms; others follow their base (`W_Q` reads WQ). MathML
text is chosen over the TeX with its markup stripped (`partial L`, `top`: words no reader
reads) and over the typeset HTML (which repeats the formula for screen readers): it is what the
page shows, and its letters stay searchable (search folds ² to 2 and ₖ to k, so `dk` and
`x2` find them). A claim's ✓ mark, a label the page adds, is left out.
"""

from html.parser import HTMLParser

SUPERSCRIPT = str.maketrans("0123456789+-−=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ")
SUBSCRIPT = str.maketrans("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")
BLOCKS = {"p", "div", "li", "br", "tr", "td", "th", "pre", "blockquote", "hr", "table"}
SPACED = set("=<>≤≥≠≈≡∼∝+−±×·÷∈∉⊂⊆∪∩→←↦⇒⇔∀∃,;:")
SCRIPTS = {"msup": SUPERSCRIPT, "msub": SUBSCRIPT}
PARTED = {*SCRIPTS, "mfrac"}
SHAPED = {*PARTED, "msqrt", "mo"}
PART = "\x00"  # between the children of a script or fraction, while they are read


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipped = 0  # inside an annotation (TeX source) or a claim's mark
        self.open: list[tuple[str, int]] = []  # (tag, where its text starts; -1: skipped)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if self.skipped or tag == "annotation" or (tag == "span" and "claim" in classes):
            self.skipped += 1
            self.open.append((tag, -1))
            return
        if tag in BLOCKS:
            self.out.append("\n")
        if self.open and self.open[-1][0] in PARTED:
            self.out.append(PART)  # where a child of a script or fraction starts
        self.open.append((tag, len(self.out)))

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            name, start = self.open.pop()
            if start < 0:
                self.skipped -= 1
            elif name in SHAPED:
                text = "".join(self.out[start:])
                del self.out[start:]
                self.out.append(_shaped(name, text))
            if name == tag:
                break
        if tag in BLOCKS and not self.skipped:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipped:
            self.out.append(data.replace(PART, " "))


def _shaped(name: str, text: str) -> str:
    """A MathML element's text as it reads."""
    if name == "mo":
        return f" {text.strip()} " if text.strip() in SPACED else text
    if name == "msqrt":
        return f"√{_grouped(text)}"
    pieces = text.split(PART)[1:] or [""]
    if name == "mfrac":
        return "/".join(_grouped(piece) for piece in pieces)
    base, script = pieces[0], "".join(pieces[1:])
    if script and all(ord(c) in SCRIPTS[name] for c in script):
        return base + script.translate(SCRIPTS[name])
    return base + script


def _grouped(text: str) -> str:
    return f"({text.strip()})" if len(text.strip()) > 1 else text.strip()


def reader_text(html: str) -> str:
    """The HTML's text as the page reads (see the module's note), space collapsed per line."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    lines = "".join(reader.out).splitlines()
    return "\n".join(" ".join(line.split()) for line in lines if line.strip())
