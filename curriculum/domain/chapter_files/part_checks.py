"""Checks of a chapter's parts other than its problems: the five strands (the mathematics
target follows the maturity level), figures (their SVG as readers may get it), the apparatus
(Book 0 entries it leans on), notation and propositions."""

from typing import Any

from curriculum.models.course import is_apparatus_code

from ..ladder import LEVELS, MATHEMATICS, STRAND_CODES
from ..svg import svg_errors
from .checker import Checker, kind_of, numeral_text

STRAND_KEYS = ("target", "items")
STRAND_ITEM_KEYS = ("title", "body", "published")
FIGURE_KEYS = ("label", "caption", "alt", "svg")
NOTATION_KEYS = ("symbol", "meaning")
PROPOSITION_KEYS = ("number", "title", "statement", "proof", "proof_published")


def strands_checked(c: Checker, doc: dict, maturity: Any) -> dict:
    strands = c.mapping(doc.get("strands", {}), "strands", STRAND_CODES)
    present = [k for k in strands if k in STRAND_CODES]
    if present and present != [k for k in STRAND_CODES if k in present]:
        c.error("strands", f"expected the strands in the order {', '.join(STRAND_CODES)}")
    clean = {}
    for kind in STRAND_CODES:
        path = f"strands.{kind}"
        if kind not in strands:
            if strands or "strands" in doc:
                c.error(path, "is required (all five strands, in order)")
            clean[kind] = {"target": 0, "items": []}
            continue
        allowed = ("target",) if kind == MATHEMATICS else STRAND_KEYS
        strand = c.mapping(strands[kind], path, allowed, ("target",))
        refused = len(c.errors)
        target = c.integer(strand, "target", path) if "target" in strand else 0
        if kind == MATHEMATICS:
            level = LEVELS.get(maturity) if isinstance(maturity, str) else None
            if level and len(c.errors) == refused and target != level.problems:  # once a line
                c.error(
                    f"{path}.target",
                    f"at {level.code} the mathematics target is "
                    f"{level.problems} ({level.worked} worked + {level.exercises} exercises),"
                    f" got {target}",
                )
            clean[kind] = {"target": target}
            continue
        items = []
        for i, raw in enumerate(c.sequence(strand, "items", path)):
            ipath = f"{path}.items[{i}]"
            item = c.mapping(raw, ipath, STRAND_ITEM_KEYS, ("title",))
            items.append(
                {
                    "title": c.text(item, "title", ipath, required=True),
                    "body": c.text(item, "body", ipath, markdown=True),
                    "published": c.boolean(item, "published", ipath),
                }
            )
        clean[kind] = {"target": target, "items": items}
    return clean


def figures_checked(c: Checker, doc: dict) -> list:
    figures, labels = [], set()
    for i, raw in enumerate(c.sequence(doc, "figures", "")):
        path = f"figures[{i}]"
        figure = c.mapping(raw, path, FIGURE_KEYS, FIGURE_KEYS)
        label = numeral_text(figure.get("label"))
        if not isinstance(label, str) or not label.strip():
            c.error(f"{path}.label", f'expected a label such as "4", got {kind_of(label)}')
        elif label in labels:
            c.error(f"{path}.label", f"figure {label} appears twice")
        else:
            labels.add(label)
        svg = c.text(figure, "svg", path, required=True)
        for problem in svg_errors(svg or ""):
            c.error(f"{path}.svg", problem)
        figures.append(
            {
                "label": label,
                "caption": c.text(figure, "caption", path, required=True, markdown=True),
                "alt": c.text(figure, "alt", path, required=True),
                "svg": svg,
            }
        )
    return figures


def apparatus_checked(c: Checker, doc: dict, known_entries: set[str], code: Any) -> list:
    codes = []
    for i, entry in enumerate(c.sequence(doc, "apparatus", "")):
        path = f"apparatus[{i}]"
        if not isinstance(entry, str) or not is_apparatus_code(entry):
            c.error(path, f"expected a Book 0 code such as 0.LA.01, got {kind_of(entry)}")
        elif entry == code:
            c.error(path, "a chapter cannot lean on itself")
        elif entry not in known_entries:
            c.error(path, f"no Book 0 entry {entry} exists")
        elif entry in codes:
            c.error(path, f"{entry} is listed twice")
        codes.append(entry)
    return codes


def notation_checked(c: Checker, doc: dict) -> list:
    rows = []
    for i, raw in enumerate(c.sequence(doc, "notation", "")):
        path = f"notation[{i}]"
        row = c.mapping(raw, path, NOTATION_KEYS, NOTATION_KEYS)
        rows.append(
            {
                "symbol": c.text(row, "symbol", path, required=True),
                "meaning": c.text(row, "meaning", path, required=True, markdown=True),
            }
        )
    return rows


def propositions_checked(c: Checker, doc: dict) -> list:
    props, numbers = [], set()
    for i, raw in enumerate(c.sequence(doc, "propositions", "")):
        path = f"propositions[{i}]"
        prop = c.mapping(raw, path, PROPOSITION_KEYS, ("number", "title", "statement"))
        number = c.integer(prop, "number", path, minimum=1)
        if number in numbers:
            c.error(f"{path}.number", f"Prop. {number} appears twice")
        numbers.add(number)
        proof = c.text(prop, "proof", path, markdown=True, nullable=True)
        published = c.boolean(prop, "proof_published", path)
        if published and not (proof or "").strip():
            c.error(f"{path}.proof_published", "a proof can be published only once written")
        props.append(
            {
                "number": number,
                "title": c.text(prop, "title", path, required=True, markdown=True),
                "statement": c.text(prop, "statement", path, required=True, markdown=True),
                "proof": proof,
                "proof_published": published,
            }
        )
    return props
