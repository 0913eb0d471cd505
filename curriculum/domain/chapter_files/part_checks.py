"""Checks of a chapter's parts other than its problems: the five strands (the mathematics
target follows the maturity level), figures (their SVG as readers may get it), the apparatus
(Book 0 entries it leans on), notation and propositions. Their structure is the schema's."""

from typing import Any

from curriculum.models.course import is_apparatus_code

from ..claims.properties import property_errors
from ..ladder import LEVELS, MATHEMATICS, STRAND_CODES
from ..markup import title_errors
from ..svg import svg_errors
from ..terms import defines_errors
from .checker import Checker, kind_of
from .schema import FigureDocument, NotationDocument, PropositionDocument, StrandsDocument


def strands_checked(c: Checker, raw: Any, maturity: str | None) -> dict:
    present = [k for k in raw if k in STRAND_CODES] if isinstance(raw, dict) else []
    if present != [k for k in STRAND_CODES if k in present]:
        c.error("strands", f"expected the strands in the order {', '.join(STRAND_CODES)}")
    strands = c.structure(StrandsDocument, raw, "strands") if raw is not None else None
    if strands is None:
        return {kind: {"target": 0, "items": []} for kind in STRAND_CODES} | {
            MATHEMATICS: {"target": 0}
        }
    clean = strands.model_dump()
    level = LEVELS.get(maturity) if maturity else None
    if level and strands.mathematics.target != level.problems:
        c.error(
            f"strands.{MATHEMATICS}.target",
            f"at {level.code} the mathematics target is "
            f"{level.problems} ({level.worked} worked + {level.exercises} exercises),"
            f" got {strands.mathematics.target}",
        )
    for kind, strand in clean.items():
        for i, item in enumerate(strand.get("items", [])):
            c.filled(item["title"], f"strands.{kind}.items[{i}].title")
            c.markdown(item["body"], f"strands.{kind}.items[{i}].body")
            for j, why in defines_errors(item["defines"]):
                where = "" if j is None else f"[{j}]"
                c.error(f"strands.{kind}.items[{i}].defines{where}", why)
            if not item["defines"]:
                del item["defines"]  # as export writes it: a file without them says nothing
    return clean


def figures_checked(c: Checker, raws: list) -> list:
    figures, labels = [], set()
    for i, raw in enumerate(raws):
        path = f"figures[{i}]"
        if (figure := c.structure(FigureDocument, raw, path)) is None:
            continue
        if not figure.label.strip():
            c.error(f"{path}.label", f'expected a label such as "4", got {kind_of(figure.label)}')
        elif figure.label in labels:
            c.error(f"{path}.label", f"figure {figure.label} appears twice")
        labels.add(figure.label)
        c.filled(figure.svg, f"{path}.svg")
        for problem in svg_errors(figure.svg):
            c.error(f"{path}.svg", problem)
        c.filled(figure.caption, f"{path}.caption")
        c.markdown(figure.caption, f"{path}.caption")
        c.filled(figure.alt, f"{path}.alt")
        figures.append(figure.model_dump())
    return figures


def apparatus_checked(c: Checker, codes: list[str], known_entries: set[str], code: Any) -> list:
    for i, entry in enumerate(codes):
        path = f"apparatus[{i}]"
        if not is_apparatus_code(entry):
            c.error(path, f"expected a Book 0 code such as 0.LA.01, got {kind_of(entry)}")
        elif entry == code:
            c.error(path, "a chapter cannot lean on itself")
        elif entry not in known_entries:
            c.error(path, f"no Book 0 entry {entry} exists")
        elif entry in codes[:i]:
            c.error(path, f"{entry} is listed twice")
    return codes


def notation_checked(c: Checker, raws: list) -> list:
    rows = []
    for i, raw in enumerate(raws):
        path = f"notation[{i}]"
        if (row := c.structure(NotationDocument, raw, path)) is None:
            continue
        c.filled(row.symbol, f"{path}.symbol")
        c.filled(row.meaning, f"{path}.meaning")
        c.markdown(row.meaning, f"{path}.meaning")
        rows.append(row.model_dump())
    return rows


def propositions_checked(c: Checker, raws: list) -> list:
    props, numbers, labels, last = [], set(), set(), 0
    for i, raw in enumerate(raws):
        path = f"propositions[{i}]"
        if (prop := c.structure(PropositionDocument, raw, path)) is None:
            continue
        if prop.number is None:  # numbered in order, after the one before
            prop.number = last + 1
        last = prop.number
        if prop.number in numbers:
            c.error(f"{path}.number", f"Prop. {prop.number} appears twice")
        numbers.add(prop.number)
        if prop.label and prop.label in labels:
            c.error(f"{path}.label", f"label {prop.label} appears twice")
        labels.add(prop.label)
        c.markdown(prop.proof, f"{path}.proof")
        if prop.proof_published and not (prop.proof or "").strip():
            c.error(f"{path}.proof_published", "a proof can be published only once written")
        for name in ("title", "statement"):
            c.filled(getattr(prop, name), f"{path}.{name}")
            c.markdown(getattr(prop, name), f"{path}.{name}")
        for why in title_errors(prop.title):
            c.error(f"{path}.title", why)
        if prop.check is not None:
            for where, message in property_errors(prop.check, f"{path}.check"):
                c.error(where, message)
        props.append(prop.model_dump())
    return props
