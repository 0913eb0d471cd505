"""The chapter and book file format, key by key: the one statement of every key, its type,
whether it is required, its default and its bound, from which the validator's key lists, the
API's PUT schema and the key tables of docs/content-format.md are made.

`doc` on each key is its type as the format document names it; its description is the rule.
"""

from typing import TYPE_CHECKING, Annotated, Any, Literal

from django.conf import settings
from django.core.validators import slug_re
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from curriculum.models import Book, Chapter, Figure, Notation, Problem, Proposition, StrandItem
from curriculum.models.course import CODE_FORM, NUMERAL_FORM

from ..answers import DEFAULT_TOLERANCE_WORDS
from ..ladder import LEVELS, STRAND_CODES
from ..limits import MAX_WHOLE_NUMBER
from ..placeholders import MAX_DIGITS
from ..tolerances import MAX_RTOL, MIN_DIGITS

if TYPE_CHECKING:
    type Maturity = str
    type StrandKind = str
    type State = str
    type ProblemKind = str
else:
    Maturity = Literal[tuple(LEVELS)]
    StrandKind = Literal[STRAND_CODES]
    State = Literal[tuple(Chapter.State.values)]
    ProblemKind = Literal[tuple(Problem.Kind.values)]

# OpenAPI and pydantic (ECMA, Rust regexes) say the models' \Z as $.
CODE_PATTERN, NUMERAL_PATTERN = rf"^{CODE_FORM}$", rf"^{NUMERAL_FORM}$"
SLUG_PATTERN = slug_re.pattern.replace(r"\Z", "$")
REQUIRED: Any = ...


def rule(doc: str, rule: str, default: Any = REQUIRED, *, expected: str = "", **bounds: Any) -> Any:
    """A key of the format: its documented type, its rule, its default (none: required), and
    what a refusal says was expected, where the type alone does not say it."""
    extra = {"doc": doc} | ({"expected": expected} if expected else {})
    options: dict[str, Any] = {"description": rule, "json_schema_extra": extra, **bounds}
    if isinstance(default, list):
        options["default_factory"] = list
    else:
        options["default"] = default
    return Field(**options)


def width(model: Any, name: str) -> int:
    """A text's bound is its column's: what fits the database is what a file may say."""
    return model._meta.get_field(name).max_length


class Keys(BaseModel):
    """Strict: `3.0` is no whole number, `1` no boolean and `"4"` no number."""

    model_config = ConfigDict(extra="forbid", strict=True)


def numeral_text(value: Any) -> Any:
    """`book: 0` and `label: 4` are read as numbers by YAML; they mean the text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


Numeral = Annotated[str, BeforeValidator(numeral_text)]


class BookDocument(Keys):
    numeral: Numeral = rule(
        "text",
        'required; a roman numeral (`I`, `II`, ...) or `"0"` for Book 0, the apparatus',
        pattern=NUMERAL_PATTERN,
        max_length=width(Book, "numeral"),
        expected='a roman numeral or "0"',
    )
    title: str = rule(
        "text",
        f"required; at most {width(Book, 'title')} characters",
        max_length=width(Book, "title"),
    )
    slug: str = rule(
        "text",
        "required; letters, digits, `-` and `_` (used in addresses)",
        pattern=SLUG_PATTERN,
        max_length=width(Book, "slug"),
        expected="a slug",
    )
    description: str = rule(
        "Markdown",
        "optional; shown on the home page, the book's page and its printed edition. It holds "
        "no claim (`{{ ... }}`): nothing checks a book's description, so a claim is stated in "
        "a chapter. A reference (`@II.3`) is not linked there: it shows as written",
        "",
    )
    bibliography: str = rule(
        "BibTeX text",
        "optional; the book's library, which its chapters cite by key (Citations below)",
        "",
    )


class BookFile(Keys):
    books: list[BookDocument] = rule(
        "list of books", "the file's only key; a file may instead be a single book mapping"
    )


WHOLE: dict[str, Any] = {"ge": 0, "le": MAX_WHOLE_NUMBER}


class StrandItemDocument(Keys):
    title: str = rule(
        "text",
        f"required; at most {width(StrandItem, 'title')} characters",
        max_length=width(StrandItem, "title"),
    )
    body: str = rule("Markdown", "optional", "")
    published: bool = rule(
        "true/false", "default false; only published items count and are shown", False
    )
    defines: list[str] = rule(
        "list of text",
        "optional; glossary terms this item defines, each once in its book (Glossary below)",
        [],
    )


class StrandDocument(Keys):
    target: int = rule(
        "whole number",
        f"required; 0 to {MAX_WHOLE_NUMBER}. For `mathematics`, fixed by the maturity (above); "
        "for the others, chosen by the author",
        **WHOLE,
    )
    items: list[StrandItemDocument] = rule(
        "list", "not for `mathematics` (its items are the problems)", []
    )


class MathematicsStrandDocument(Keys):
    target: int = rule(
        "whole number", "Worked problems + exercises at the maturity level.", **WHOLE
    )


class StrandsDocument(Keys):
    basics: StrandDocument = rule("mapping", "a strand")
    concept: StrandDocument = rule("mapping", "a strand")
    theory: StrandDocument = rule("mapping", "a strand")
    mathematics: MathematicsStrandDocument = rule("mapping", "its target only")
    practice: StrandDocument = rule("mapping", "a strand")


class FigureDocument(Keys):
    label: Numeral = rule(
        "text",
        'required; unique in the chapter (`"4"` shows as "Fig. 4")',
        expected='a label such as "4"',
        max_length=width(Figure, "label"),
    )
    caption: str = rule("Markdown", "required")
    alt: str = rule("text", "required; what a reader who cannot see the drawing is told")
    svg: str = rule(
        "text",
        "required; an SVG document. Kept as written; readers see it rebuilt from an allowlist "
        "of drawing elements (no scripts, handlers, styles or external references)",
    )


class NotationDocument(Keys):
    symbol: str = rule(
        "text", "required; TeX without dollars (`d_k`)", max_length=width(Notation, "symbol")
    )
    meaning: str = rule("Markdown", "required")


class PropositionDocument(Keys):
    number: int | None = rule(
        "whole number",
        'unique ("Prop. 1"); by default one more than the proposition before it (the first: 1)',
        None,
        ge=1,
        le=MAX_WHOLE_NUMBER,
    )
    label: str = rule(
        "slug",
        "optional; unique; what references call it (@prop:LABEL), else its number (@prop:1)",
        "",
        max_length=width(Proposition, "label"),
        pattern=r"^[-a-zA-Z0-9_]*$",  # a slug, or empty for none
    )
    title: str = rule(
        "Markdown",
        'required; one line, read beside its number ("Prop. 2 ..."): no headings, lists, '
        "quotes, tables, code blocks, display formulas, footnotes or line breaks; at most "
        f"{width(Proposition, 'title')} characters",
        max_length=width(Proposition, "title"),
    )
    statement: str = rule("Markdown", "required")
    proof: str | None = rule("Markdown", "optional", None)
    proof_published: bool = rule(
        "true/false", "default false; only a written proof can be published", False
    )
    check: dict[str, Any] | None = rule(
        "mapping", "optional; a property checked numerically on random instances (Properties)", None
    )


FINITE: Any = {"expected": "a finite number, at least 0"}


class Tolerance(Keys):
    """`{digits}` (significant figures) or `{rtol, atol}`: content-format.md, Tolerance. The
    upper bounds are the tolerance rule's (tolerances.py), which says why; they are shown."""

    rtol: float | None = Field(
        None, ge=0, allow_inf_nan=False, json_schema_extra=FINITE | {"maximum": MAX_RTOL}
    )
    atol: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        json_schema_extra=FINITE,
        description="At most what keeps each entry of the answer within half a unit in its "
        "third figure.",
    )
    digits: int | None = Field(
        None, json_schema_extra={"minimum": MIN_DIGITS, "maximum": MAX_DIGITS}
    )


class SolutionDocument(Keys):
    steps: str = rule("Markdown", "the worked steps; may hold placeholders", "")
    answer: Any = rule(
        "number, list, nested lists, or mapping",
        "the asked output at instance 0: a number, a vector `[..]`, a matrix "
        "`[[..], [..]]`, or named numbers (`{flops: 120, params: 64}` for `terms`). Must have "
        "the output's shape: a wrong shape is a mismatch naming both shapes. Every number "
        "is finite, and 0 or at least 2.2e-308 in size, as an input's is (float64 holds "
        "`2.28705e-320` as 2.287e-320: no tolerance could judge its figures). Left out (or "
        "`null`): no answer yet, a draft: the steps are kept but never verified or shown to "
        "readers, the problem counts for nothing, `published` must stay false, and the "
        "chapter is not published while it has one",
        None,
    )
    published: bool = rule(
        "true/false", "default false; only a published solution is shown and counts", False
    )


class FeedbackDocument(Keys):
    answer: Any = rule(
        "number, list or mapping",
        "required; a wrong answer to instance 0 (the printed numbers), written as answers are",
    )
    says: str = rule(
        "Markdown",
        "required; what a reader who gives it is told: the mistake that leads there; at most "
        f"{settings.LIMIT_FEEDBACK_CHARS:,} characters (LIMIT_FEEDBACK_CHARS)",
    )


class ProblemDocument(Keys):
    key: str = rule(
        "text",
        "required; a short slug unique in the chapter (`p1`). Problems are matched by key on "
        "re-import, so an unchanged problem keeps its verdict",
        pattern=SLUG_PATTERN,
        max_length=width(Problem, "key"),
        expected="a short key such as p1",
    )
    kind: ProblemKind = rule(
        "text",
        "required; `worked` (a *worked problem*, solved step by step in the text) or `exercise`",
        expected="worked or exercise",
    )
    variant: str = rule(
        "text",
        "required; a slug naming the problem's type (`mha-output`). The variants quota counts "
        "the **distinct variants among the worked problems**: five worked problems of two types "
        "are two variants",
        pattern=SLUG_PATTERN,
        max_length=width(Problem, "variant"),
        expected="a short name such as mha-output",
    )
    statement: str = rule("Markdown", "required; may hold placeholders (below)")
    operation: str = rule("text", "required; an engine operation (below)")
    inputs: dict[str, Any] = rule(
        "mapping",
        "required; the operation's named inputs: numbers, lists of numbers, booleans, or "
        "generators (below). Every number is finite, and 0 or at least 2.2e-308 in size: "
        "float64 holds smaller ones to fewer figures than written (`7e-324` reads as "
        "4.9e-324), and such an input is refused with its path",
    )
    ask: dict[str, Any] = rule(
        "mapping", "required; which output, and optionally which part of it (below)"
    )
    tolerance: Tolerance | None = rule(
        "mapping",
        f"how the answer is compared (below); when left out, `{{digits: N}}` with N "
        f"{DEFAULT_TOLERANCE_WORDS}",
        None,
    )
    solution: SolutionDocument | None = rule("mapping", "optional; see below", None)
    # their counts and lengths are held where admin's are (domain/hints.py): one rule
    hints: list[str] = rule(
        "list of Markdown",
        f"optional; at most {settings.LIMIT_PROBLEM_HINTS} (LIMIT_PROBLEM_HINTS), each at most "
        f"{settings.LIMIT_HINT_CHARS:,} characters (LIMIT_HINT_CHARS), shown to a practising "
        "reader one at a time, in order, each only when asked for",
        [],
    )
    feedback: list[FeedbackDocument] = rule(
        "list",
        f"optional; at most {settings.LIMIT_PROBLEM_FEEDBACK} (LIMIT_PROBLEM_FEEDBACK) "
        "`{answer, says}` pairs: a reader whose answer to instance 0 matches `answer` as answers "
        "are judged is told `says` (see Practice, below). Each `answer` has the asked output's "
        "shape, and no two are the same",
        [],
    )


class ChapterDocument(Keys):
    """A chapter file (content-format.md) as JSON; the importer validates it whole."""

    code: str = rule(
        "text",
        "required; `II.4` (book numeral, a dot, the chapter number, ASCII digits with no leading "
        "zero) or, for a Book 0 entry, `0.LA.01` (two capital letters naming the area, two digits)",
        pattern=CODE_PATTERN,
        max_length=width(Chapter, "code"),
        examples=["II.4", "0.LA.01"],
        expected="a code such as II.4 or 0.LA.01",
    )
    book: Numeral = rule(
        "text",
        "required; the numeral of an existing book (or one imported in the same command); the "
        "code must start with it",
        pattern=NUMERAL_PATTERN,
        expected='a book numeral such as II or "0"',
    )
    number: int | None = rule(
        "whole number",
        "optional: derived from the code (`II.4` is 4, `0.MC.07` is 7); if given it must agree "
        "with the code",
        None,
        ge=1,
        le=MAX_WHOLE_NUMBER,
    )
    title: str = rule(
        "text",
        f"required; at most {width(Chapter, 'title')} characters",
        max_length=width(Chapter, "title"),
    )
    author: str = rule("text", "optional", "", max_length=width(Chapter, "author"))
    thesis: str = rule("Markdown", "the one-line claim", "")
    summary: str = rule("Markdown", "the one-line problem", "")
    maturity: Maturity = rule("text", "required; `M0` to `M4`, see the ladder below")
    spine: StrandKind = rule(
        "text",
        "the strand that carries the chapter: `basics`, `concept`, `theory`, `mathematics` "
        "(default) or `practice`",
        "mathematics",
    )
    state: State = rule(
        "text",
        "`draft` (staff only; the default), `in_progress` (public, debts shown). `published` is "
        "reached only by publishing; a released chapter's file may say `published` (or "
        "`in_progress`: its working copy is being edited); `draft` withdraws it from readers",
        "draft",
    )
    before_you_start: str = rule("Markdown", "what the reader should already know", "")
    problem_statement: str = rule("Markdown", '"The problem" section', "")
    strands: StrandsDocument | None = rule("mapping", "the five strands, in order; see below", None)
    figures: list[FigureDocument] = rule("list", "see below", [])
    apparatus: list[str] = rule(
        "list of codes",
        "Book 0 entries the chapter leans on (`0.LA.01`); each must exist, once, and not be the "
        "chapter itself",
        [],
    )
    notation: list[NotationDocument] = rule("list", "symbols in the order the page shows them", [])
    propositions: list[PropositionDocument] = rule("list", "see below", [])
    problems: list[ProblemDocument] = rule("list", "worked problems and exercises; see below", [])
