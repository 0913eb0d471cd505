"""Where a claim stands in a text, for every module that reads texts (placeholders, markup,
the claims themselves) without importing what checks it."""

import re

from attention.compare import MAX_FIGURES, MIN_FIGURES

NUMBER = r"[-\u2212]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
"""ASCII digits only: a digit of another script (৪ reads as 8) is not a number readers can trust."""
CLAIM = re.compile(
    r"\{\{(?:\ue004(?P<state>[a-z]{1,12})\ue005)?\s*(?P<typed>"
    + NUMBER
    + r"|\(\s*"
    + NUMBER
    + r"(?:\s*,\s*"
    + NUMBER
    + r")*\s*\))"
    r"\s*=(?!=)\s*(?P<expression>[^{}|\n]{1,400}?)\s*"
    r"(?:\|\s*(?P<tolerance>[^{}|\n]{1,80}?)\s*)?\}\}"
)
"""A claim, on one line: what is typed, then ``=`` and what it must equal. A page made while
the claim is not verified carries its state after the braces (`claims.found.claims_stated`)."""

CLAIM_OPENING = re.compile(r"\{\{[^{}]*?(?<![=!<>])=(?!=)")
"""Double braces holding a single =: a claim, well formed or not (a placeholder holds none)."""

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
    if least > MAX_FIGURES:  # float64's own shortest form (claims/decide.py: LAST_PLACES)
        return f"to float64's own value, as written to {least} significant figures"
    return f"to {least} significant figures, as written"


def said_of(found: re.Match) -> str:
    """The claim as a reader would say it: what is typed and what it must equal."""
    return f"{found['typed']} = {' '.join(found['expression'].split())}"


def claims_marked(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text with each claim as its typed number followed by a mark's place (`MARK`), and
    each mark: ✓ when checked (? pending, ✗ refused, when the page says so) and what it says."""
    marks: list[tuple[str, str]] = []

    def place(found: re.Match) -> str:
        state = found["state"]
        said = f"{said_of(found)}, {words_of(found)}"
        if state is None:
            marks.append(("✓", f"Checked by the engine: {said}"))
        elif state == "pending":
            marks.append(("?", f"Not yet checked by the engine: {said}"))
        else:
            marks.append(("✗", f"The engine disagrees ({state}): {said}"))
        return f"{found['typed']}\ue000{len(marks) - 1}\ue001"

    cleaned = text.replace("\ue000", "").replace("\ue001", "")
    return CLAIM.sub(place, cleaned), marks


def claims_typed(text: str) -> str:
    """The text as readers read it: each claim as the number typed."""
    return CLAIM.sub(lambda found: found["typed"], text) if "{{" in text else text
