"""Validation of chapter and book documents: every error, each with its path, never a traceback.

A document is checked whole before anything is written; what comes back is the cleaned form
the importer writes.
"""

import math
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.validators import slug_re
from django.db.models import Model

import attention
from attention.answers import answer_problems
from curriculum.models import Book, Chapter, Figure, Notation, Problem, Proposition, StrandItem
from curriculum.models.course import (
    CODE_RE,
    NUMERAL_RE,
    code_number_mismatch,
    is_apparatus_code,
    number_from_code,
    state_after_edit,
)

from ..answers import answer_figures, answer_lint, default_digits
from ..chapter_parts import document_parts, parts_refusal
from ..documents import exported_form
from ..ladder import LEVELS, MATHEMATICS, STRAND_CODES
from ..limits import nul_paths
from ..markup import TooManyFormulas, math_errors, math_prepared
from ..placeholders import SHOWN_DIGITS, Room, placeholder_errors
from ..snapshots import page_markup, rendered_size
from ..svg import svg_errors
from ..tolerances import tolerance_problems
from ..work_budget import work_refusal
from .errors import ChapterFileError
from .extent import extent_errors

CHAPTER_FIELDS = (
    "number",
    "title",
    "author",
    "thesis",
    "summary",
    "maturity",
    "spine",
    "state",
    "before_you_start",
    "problem_statement",
)
CHAPTER_KEYS = (
    "code",
    "book",
    *CHAPTER_FIELDS,
    "strands",
    "figures",
    "apparatus",
    "notation",
    "propositions",
    "problems",
)
REQUIRED_KEYS = ("code", "book", "title", "maturity")
STRAND_KEYS = ("target", "items")
STRAND_ITEM_KEYS = ("title", "body", "published")
FIGURE_KEYS = ("label", "caption", "alt", "svg")
NOTATION_KEYS = ("symbol", "meaning")
PROPOSITION_KEYS = ("number", "title", "statement", "proof", "proof_published")
PROBLEM_KINDS = tuple(Problem.Kind.values)  # read once: the enum builds the list each time
PROBLEM_KEYS = (
    "key",
    "kind",
    "variant",
    "statement",
    "operation",
    "inputs",
    "ask",
    "tolerance",
    "solution",
)
PROBLEM_REQUIRED = ("key", "kind", "variant", "statement", "operation", "inputs", "ask")
TOLERANCE_KEYS = ("rtol", "atol", "digits")
SOLUTION_KEYS = ("steps", "answer", "published")
BOOK_KEYS = ("numeral", "title", "slug", "description")
BOOK_FILE_KEYS = ("books",)
SLUG_RE = slug_re  # what Django's SlugField accepts, so admin and files agree
# what a problem in digits mode stores in its unused rtol/atol columns: the columns' defaults
UNUSED_RTOL = Problem._meta.get_field("rtol").default
UNUSED_ATOL = Problem._meta.get_field("atol").default
MAX_WHOLE_NUMBER = 10_000  # chapter and proposition numbers, strand targets


@dataclass
class _Checker:
    errors: list[str] = field(default_factory=list)
    # paths already reported missing or not a mapping: what is inside them is not reported again
    settled: set[str] = field(default_factory=set)
    typeset: Room = field(default_factory=Room)  # what the chapter's placeholders expand to

    def error(self, path: str, message: str) -> None:
        if any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in self.settled):
            return
        self.errors.append(f"{path or 'top level'}: {message}")

    def mapping(
        self, value: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()
    ) -> dict:
        if not isinstance(value, dict):
            what = "a mapping of keys such as code, book, title" if not path else "a mapping"
            self.error(path, f"expected {what}, got {kind_of(value)}")
            self.settled.add(path)
            return {}
        for key in value:
            if key not in allowed:
                self.error(
                    f"{path}.{key}" if path else str(key),
                    f"unknown key (allowed: {', '.join(allowed)})",
                )
        for key in required:
            if key not in value:
                where = f"{path}.{key}" if path else key
                self.error(where, "is required")
                self.settled.add(where)
        return value

    def text(
        self,
        holder: dict,
        key: str,
        path: str,
        *,
        required: bool = False,
        markdown: bool = False,
        nullable: bool = False,
    ) -> str | None:
        value = holder.get(key)
        where = f"{path}.{key}" if path else key
        if value is None:
            if required:
                if key in holder:
                    self.error(where, "must not be empty")
                return ""
            return None if nullable else ""
        if not isinstance(value, str):
            self.error(where, f"expected text, got {kind_of(value)}")
            return ""
        if required and not value.strip():
            self.error(where, "must not be empty")
        if markdown:
            for problem in math_errors(value):
                self.error(where, problem)
        return value

    def integer(
        self,
        holder: dict,
        key: str,
        path: str,
        *,
        default: int = 0,
        minimum: int = 0,
        maximum: int = MAX_WHOLE_NUMBER,
    ) -> int:
        value = holder.get(key, default)
        where = f"{path}.{key}" if path else key
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(where, f"expected a whole number, got {kind_of(value)}")
            return default
        if value < minimum:
            self.error(where, f"must be at least {minimum}, got {value}")
        elif value > maximum:
            self.error(where, f"must be at most {maximum}, got {value}")
            return default
        return value

    def fits(self, value: Any, path: str, model: type[Model], name: str) -> None:
        limit = getattr(model._meta.get_field(name), "max_length", None)
        if isinstance(value, str) and limit is not None and len(value) > limit:
            self.error(path, f"is {len(value)} characters long; at most {limit} fit")

    def boolean(self, holder: dict, key: str, path: str) -> bool:
        value = holder.get(key, False)
        if not isinstance(value, bool):
            self.error(f"{path}.{key}", f"expected true or false, got {kind_of(value)}")
            return False
        return value

    def sequence(self, holder: dict, key: str, path: str) -> list:
        value = holder.get(key, [])
        if value is None:
            return []
        if not isinstance(value, list):
            self.error(f"{path}.{key}" if path else key, f"expected a list, got {kind_of(value)}")
            return []
        return value


def _texts(value: Any) -> list[str]:
    """Every string in a document, wherever it sits, in order (a stack, not a generator per
    level: a file's lists of numbers hold a million values)."""
    texts, stack = [], [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            stack.extend(reversed(value.values()))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return texts


def kind_of(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:27] + "..."
        return f"text ({shown!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _numeral(value: Any) -> str:
    """`book: 0` and `label: 4` are read as numbers by YAML; they mean the text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


@contextmanager
def chapter_checked(
    document: Any, *, known_books: set[str], known_entries: set[str], released: bool = False
) -> Iterator[dict]:
    """Check a chapter document and give it cleaned, or raise ChapterFileError with every error.

    Its formulas stay typeset inside the block, so writing it there (the editing services'
    full_clean checks some texts again) starts no second KaTeX process.
    """
    c = _Checker()
    doc = c.mapping(document, "", CHAPTER_KEYS, REQUIRED_KEYS)
    if not doc or not _no_nul(c, doc):
        raise ChapterFileError(c.errors)
    if refusal := parts_refusal(parts=document_parts(doc)):  # before any part costs a check
        raise ChapterFileError([f"top level: the chapter {refusal}"])
    with ExitStack() as typeset:
        try:
            typeset.enter_context(math_prepared(_texts(doc)))
        except TooManyFormulas as error:
            raise ChapterFileError([f"top level: the chapter {error}"]) from error
        yield _chapter_checked(c, doc, known_books, known_entries, released)


def _chapter_checked(
    c: _Checker, doc: dict, known_books: set[str], known_entries: set[str], released: bool
) -> dict:
    clean: dict[str, Any] = {}
    code = doc.get("code")
    if not isinstance(code, str) or not re.match(CODE_RE, code):
        c.error("code", f"expected a code such as II.4 or 0.LA.01, got {kind_of(code)}")
    clean["code"] = code
    book = _numeral(doc.get("book"))
    if not isinstance(book, str) or not re.match(NUMERAL_RE, book):
        c.error("book", f'expected a book numeral such as II or "0", got {kind_of(book)}')
    elif book not in known_books:
        c.error("book", f"Book {book} does not exist; import its book file first or with it")
    elif isinstance(code, str) and not code.startswith(f"{book}."):
        c.error("code", f"a chapter of Book {book} has a code starting {book}.")
    clean["book"] = book
    derived = number_from_code(code) if isinstance(code, str) and re.match(CODE_RE, code) else 1
    given = {"number": doc["number"]} if doc.get("number") is not None else {}  # null: absent
    clean["number"] = c.integer(given, "number", "", default=derived or 1, minimum=1)
    _number_matches_code(c, code, book, doc.get("number"))
    clean["title"] = c.text(doc, "title", "", required=True)
    for key in ("author",):
        clean[key] = c.text(doc, key, "")
    for key in ("thesis", "summary", "before_you_start", "problem_statement"):
        clean[key] = c.text(doc, key, "", markdown=True)
    maturity = doc.get("maturity")
    if not isinstance(maturity, str) or maturity not in LEVELS:
        c.error("maturity", f"expected one of {', '.join(LEVELS)}, got {kind_of(maturity)}")
    clean["maturity"] = maturity
    spine = doc.get("spine", MATHEMATICS)
    if spine not in STRAND_CODES:
        c.error("spine", f"expected one of {', '.join(STRAND_CODES)}, got {kind_of(spine)}")
    clean["spine"] = spine
    state = doc.get("state", Chapter.State.DRAFT)
    allowed_states = ["draft", "in_progress"] + (["published"] if released else [])
    if state not in allowed_states:
        hint = (
            " (published is reached only by publishing: import as in_progress, then run"
            " publish_chapter or press Publish in admin)"
            if state == "published"
            else ""
        )
        c.error("state", f"expected one of {', '.join(allowed_states)}, got {kind_of(state)}{hint}")
    clean["state"] = state_after_edit(state, released=released) if isinstance(state, str) else state
    clean["strands"] = _strands(c, doc, maturity)
    clean["figures"] = _figures(c, doc)
    clean["apparatus"] = _apparatus(c, doc, known_entries, code)
    clean["notation"] = _notation(c, doc)
    clean["propositions"] = _propositions(c, doc)
    clean["problems"] = _problems(c, doc)
    _lengths(c, clean)
    if not c.errors:
        c.errors += extent_errors(exported_form(clean), where="top level")
    if not c.errors:
        _rendered_size(c, clean)
    if c.errors:
        raise ChapterFileError(c.errors)
    return clean


def _no_nul(c: _Checker, document: Any, within: str = "") -> bool:
    """NUL in text would reach the database and KaTeX: refused before anything else is read."""
    found = nul_paths(document)
    for path in found:
        where = f"{within}.{path}" if within else path
        c.error(where, "contains a NUL character (\\0), which text may not hold")
    return not found


def _rendered_size(c: _Checker, clean: dict) -> None:
    """Refused whole when its page would be over the cap: the size readers would download."""
    figures = [(figure["svg"], figure["alt"]) for figure in clean["figures"]]
    svgs = {svg for svg, _ in figures}
    size = rendered_size(
        texts=[t for t in _texts(clean) if t not in svgs],
        figures=figures,
        answers=[p["solution"]["answer"] for p in clean["problems"] if p["solution"]],
        markup=page_markup(clean),
    )
    limit = settings.LIMIT_CHAPTER_HTML_BYTES
    if size > limit:
        c.error(
            "top level",
            f"renders to {size:,} bytes of HTML; at most {limit:,} (LIMIT_CHAPTER_HTML_BYTES): "
            "split the chapter or shorten its longest texts",
        )


def _lengths(c: _Checker, clean: dict) -> None:
    """Text that would not fit its column is an error here, not a database error later."""
    fields: list[tuple[str, dict, type[Model], str]] = [
        ("code", clean, Chapter, "code"),
        ("title", clean, Chapter, "title"),
        ("author", clean, Chapter, "author"),
    ]
    for kind, strand in clean["strands"].items():
        for i, item in enumerate(strand.get("items", [])):
            fields.append((f"strands.{kind}.items[{i}].title", item, StrandItem, "title"))
    for i, figure in enumerate(clean["figures"]):
        fields.append((f"figures[{i}].label", figure, Figure, "label"))
    for i, row in enumerate(clean["notation"]):
        fields.append((f"notation[{i}].symbol", row, Notation, "symbol"))
    for i, prop in enumerate(clean["propositions"]):
        fields.append((f"propositions[{i}].title", prop, Proposition, "title"))
    for i, prob in enumerate(clean["problems"]):
        fields += [
            (f"problems[{i}].key", prob, Problem, "key"),
            (f"problems[{i}].variant", prob, Problem, "variant"),
        ]
    for path, holder, model, name in fields:
        c.fits(holder.get(path.rsplit(".", 1)[-1]), path, model, name)


def _number_matches_code(c: _Checker, code: Any, book: Any, number: Any) -> None:
    in_range = type(number) is int and 1 <= number <= MAX_WHOLE_NUMBER
    if isinstance(code, str) and in_range and (mismatch := code_number_mismatch(code, number)):
        c.error("number", mismatch)


def _strands(c: _Checker, doc: dict, maturity: Any) -> dict:
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


def _figures(c: _Checker, doc: dict) -> list:
    figures, labels = [], set()
    for i, raw in enumerate(c.sequence(doc, "figures", "")):
        path = f"figures[{i}]"
        figure = c.mapping(raw, path, FIGURE_KEYS, FIGURE_KEYS)
        label = _numeral(figure.get("label"))
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


def _apparatus(c: _Checker, doc: dict, known_entries: set[str], code: Any) -> list:
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


def _notation(c: _Checker, doc: dict) -> list:
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


def _propositions(c: _Checker, doc: dict) -> list:
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


def _problems(c: _Checker, doc: dict) -> list:
    problems, keys_seen = [], set()
    for i, raw in enumerate(c.sequence(doc, "problems", "")):
        path = f"problems[{i}]"
        prob = c.mapping(raw, path, PROBLEM_KEYS, PROBLEM_REQUIRED)
        key = prob.get("key")
        if not isinstance(key, str) or not SLUG_RE.match(key):
            c.error(f"{path}.key", f"expected a short key such as p1, got {kind_of(key)}")
        elif key in keys_seen:
            c.error(f"{path}.key", f"problem key {key} appears twice")
        else:
            keys_seen.add(key)
        kind = prob.get("kind")
        if kind not in PROBLEM_KINDS:
            c.error(f"{path}.kind", f"expected worked or exercise, got {kind_of(kind)}")
        variant = prob.get("variant")
        if not isinstance(variant, str) or not SLUG_RE.match(variant):
            c.error(
                f"{path}.variant",
                f"expected a short name such as mha-output, got {kind_of(variant)}",
            )
        operation, inputs, ask = prob.get("operation"), prob.get("inputs"), prob.get("ask")
        if "operation" in prob and "inputs" in prob and "ask" in prob:
            found = attention.check(operation, inputs, ask)
            for problem in found:
                c.error(f"{path}.{problem.path}", problem.message)
            if not found and (too_much := work_refusal(operation=operation, inputs=inputs)):
                c.error(f"{path}.inputs", too_much)
        solution = _solution(c, prob, path)
        answer = solution["answer"] if solution else None
        figures = answer_figures(answer)
        default = {"digits": default_digits(answer, figures)}
        tolerance = _tolerance(c, prob.get("tolerance", default), f"{path}.tolerance")
        for name, message in tolerance_problems(**tolerance, answer=answer).items():
            c.error(f"{path}.tolerance.{name}", message)
        clean = {
            "key": key,
            "kind": kind,
            "variant": variant,
            "statement": c.text(prob, "statement", path, required=True, markdown=True),
            "operation": operation,
            "inputs": inputs,
            "ask": ask,
            "tolerance": tolerance,
            "solution": solution,
            "lint": answer_lint(answer=answer, **tolerance, figures=figures) if solution else [],
        }
        _placeholders(c, clean, path)
        problems.append(clean)
    return problems


def _placeholders(c: _Checker, clean: dict, path: str) -> None:
    """`{{ inputs.x }}` in the statement and steps must name what the problem has."""
    texts = [("statement", clean["statement"] or "")]
    if clean["solution"] is not None:
        texts.append(("solution.steps", clean["solution"]["steps"] or ""))
    for where, text in texts:
        for message in placeholder_errors(
            text, operation=clean["operation"], inputs=clean["inputs"], room=c.typeset
        ):
            c.error(f"{path}.{where}", message)


def _tolerance(c: _Checker, raw: Any, path: str) -> dict:
    """`{digits: N}` (significant figures) or `{rtol, atol}`; cleaned with all three keys."""
    if isinstance(raw, dict) and "digits" in raw:
        c.mapping(raw, path, ("digits",))
        # any whole number is read: its bounds are the tolerance rule's (tolerance_problems)
        digits = c.integer(raw, "digits", path, default=SHOWN_DIGITS, minimum=-MAX_WHOLE_NUMBER)
        return {"digits": digits, "rtol": UNUSED_RTOL, "atol": UNUSED_ATOL}
    tolerance = c.mapping(raw, path, TOLERANCE_KEYS, ("rtol", "atol"))
    clean: dict[str, Any] = {"digits": None, "rtol": 0.0, "atol": 0.0}
    for key in ("rtol", "atol"):
        value = tolerance.get(key, clean[key])
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 <= value < math.inf
        ):
            c.error(f"{path}.{key}", f"expected a finite number, at least 0, got {kind_of(value)}")
        else:
            clean[key] = float(value)
    return clean


def _solution(c: _Checker, prob: dict, path: str) -> dict | None:
    if prob.get("solution") is None:
        return None
    spath = f"{path}.solution"
    solution = c.mapping(prob["solution"], spath, SOLUTION_KEYS, ("answer",))
    answer = solution.get("answer")
    for problem in answer_problems(answer):
        c.error(f"{spath}.answer", problem)
    return {
        "steps": c.text(solution, "steps", spath, markdown=True),
        "answer": answer,
        "published": c.boolean(solution, "published", spath),
    }


def validate_book(document: Any, path: str = "") -> dict:
    c = _Checker()
    book = c.mapping(document, path, BOOK_KEYS, ("numeral", "title", "slug"))
    if not _no_nul(c, book, path):
        raise ChapterFileError(c.errors)
    numeral = _numeral(book.get("numeral"))
    if not isinstance(numeral, str) or not re.match(NUMERAL_RE, numeral):
        c.error(
            f"{path}.numeral" if path else "numeral",
            f'expected a roman numeral or "0", got {kind_of(numeral)}',
        )
    slug = book.get("slug")
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        c.error(f"{path}.slug" if path else "slug", f"expected a slug, got {kind_of(slug)}")
    clean = {
        "numeral": numeral,
        "title": c.text(book, "title", path, required=True),
        "slug": slug,
        "description": c.text(book, "description", path, markdown=True),
    }
    for name in ("numeral", "title", "slug"):
        c.fits(clean[name], f"{path}.{name}" if path else name, Book, name)
    if c.errors:
        raise ChapterFileError(c.errors)
    return clean


def validate_books(document: Any) -> list[dict]:
    """A book file: a `books:` list, or a single book."""
    listed = isinstance(document, dict) and "books" in document
    raw_books = [document]
    if listed:
        c = _Checker()
        c.mapping(document, "", BOOK_FILE_KEYS)
        raw_books = c.sequence(document, "books", "")
        if c.errors:
            raise ChapterFileError(c.errors)
    books, errors = [], []
    for i, raw in enumerate(raw_books):
        try:
            books.append(validate_book(raw, f"books[{i}]" if listed else ""))
        except ChapterFileError as error:
            errors.extend(error.errors)
    if errors:
        raise ChapterFileError(errors)
    return books
