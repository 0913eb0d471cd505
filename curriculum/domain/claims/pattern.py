"""Where a claim stands in a text, for every module that reads texts (placeholders, markup,
the claims themselves) without importing what checks it."""

import re

from attention.compare import MAX_FIGURES, MIN_FIGURES

NUMBER = r"[-\u2212]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
CLAIM = re.compile(
    r"\{\{\s*(?P<typed>" + NUMBER + r"|\(\s*" + NUMBER + r"(?:\s*,\s*" + NUMBER + r")*\s*\))"
    r"\s*=(?!=)\s*(?P<expression>[^{}|\n]{1,400}?)\s*"
    r"(?:\|\s*(?P<tolerance>[^{}|\n]{1,80}?)\s*)?\}\}"
)
"""A claim, on one line: what is typed, then ``=`` and what it must equal."""

CLAIM_OPENING = re.compile(r"\{\{\s*[-\u2212(.\d]")
"""Double braces that open with a number: a claim, well formed or not (never a placeholder)."""

MARK = re.compile("\ue000(\\d+)\ue001")
"""Where a claim's mark goes once its text is rendered: private-use characters no author types
(they are dropped from the text first), so no text can forge a mark."""


def figures_of(number: str) -> int:
    """Significant figures a number is written to: 0.2690 has 4, 1216 has 4, 1200 has 2."""
    mantissa = re.split("[eE]", number.lstrip("-\u2212"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    if "." not in mantissa:
        digits = digits.rstrip("0")
    return max(len(digits), 1)


def words_of(found: re.Match) -> str:
    """How a claim is compared, in words, from its text alone."""
    tolerance = " ".join((found["tolerance"] or "").split())
    if tolerance.startswith("digits"):
        return f"to {max(int(tolerance.split()[1]), MIN_FIGURES)} significant figures"
    if tolerance:
        return f"within {tolerance}"
    least = min(figures_of(n) for n in re.findall(NUMBER, found["typed"]))
    if least < MIN_FIGURES:
        return f"to {MIN_FIGURES} significant figures, the fewest the engine accepts"
    return f"to {min(least, MAX_FIGURES)} significant figures, as written"


def said_of(found: re.Match) -> str:
    """The claim as a reader would say it: what is typed and what it must equal."""
    return f"{found['typed']} = {' '.join(found['expression'].split())}"


def claims_marked(text: str) -> tuple[str, list[str]]:
    """The text with each claim as its typed number followed by a mark's place (`MARK`), and
    what each mark says: how the number was checked."""
    marks: list[str] = []

    def place(found: re.Match) -> str:
        marks.append(f"Checked by the engine: {said_of(found)}, {words_of(found)}")
        return f"{found['typed']}\ue000{len(marks) - 1}\ue001"

    cleaned = text.replace("\ue000", "").replace("\ue001", "")
    return CLAIM.sub(place, cleaned), marks


def claims_typed(text: str) -> str:
    """The text as readers read it: each claim as the number typed."""
    return CLAIM.sub(lambda found: found["typed"], text) if "{{" in text else text
