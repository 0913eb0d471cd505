"""Shapes of the API: the chapter document clients PUT, the chapter readers GET, and errors.

The reader shape is the chapter file format (content-format.md) plus what is derived:
`*_html` beside each Markdown source, strand and quota counts with the debt, and per problem
the verification provenance; a figure comes as its drawing (`svg_html`), not its source.
Chapter and release bodies are served as the domain gives them to readers
(`reading.reader_view`); these classes document them and the schema tests hold the two
together. `extra="allow"` keeps a field the domain adds later from being called invalid.
"""

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from ninja import Schema
from pydantic import ConfigDict, Field

from curriculum.domain.ladder import LEVELS, STRAND_CODES
from curriculum.domain.placeholders import MAX_DIGITS
from curriculum.domain.tolerances import MAX_RTOL, MIN_DIGITS
from curriculum.models import Chapter, Problem

from .params import CODE_RE, NUMERAL_RE

# The choices come from the ladder and the model, so the schema cannot drift from them.
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


class Open(Schema):
    model_config = ConfigDict(extra="allow")


class Error(Schema):
    detail: str
    errors: list[str] = Field(
        default_factory=list, description="Every problem, as `path: message`."
    )


# What any read with parameters may answer instead: a token that is sent but unknown or
# revoked (401, never read as anonymous), invalid parameters (422), too many requests (429).
READ_ERRORS: dict[int, Any] = {401: Error, 422: Error, 429: Error}


class Pong(Schema):
    ok: bool


# ---------------------------------------------------------------- the document (PUT)


class StrandItemIn(Open):
    title: str
    body: str = ""
    published: bool = False


class StrandIn(Open):
    target: int = Field(ge=0)
    items: list[StrandItemIn] = Field(default_factory=list)


class MathematicsStrandIn(Open):
    target: int = Field(ge=0, description="Worked problems + exercises at the maturity level.")


class StrandsIn(Open):
    basics: StrandIn
    concept: StrandIn
    theory: StrandIn
    mathematics: MathematicsStrandIn
    practice: StrandIn


class FigureIn(Open):
    label: str
    caption: str
    alt: str
    svg: str = Field(description="An SVG drawing; only allowlisted elements and attributes.")


class NotationIn(Open):
    symbol: str
    meaning: str


class PropositionIn(Open):
    number: int = Field(ge=1)
    title: str
    statement: str
    proof: str | None = None
    proof_published: bool = False


ATOL_RULE = "At most what keeps each entry of the answer within half a unit in its third figure."


class Tolerance(Open):
    """`{digits}` (significant figures) or `{rtol, atol}`: content-format.md, Tolerance."""

    rtol: float | None = Field(None, ge=0, le=MAX_RTOL)
    atol: float | None = Field(None, ge=0, description=ATOL_RULE)
    digits: int | None = Field(None, ge=MIN_DIGITS, le=MAX_DIGITS)


class SolutionIn(Open):
    steps: str = ""
    answer: Any = Field(description="A number, a vector, a matrix, or named values.")
    published: bool = False


class ProblemIn(Open):
    key: str
    kind: ProblemKind
    variant: str
    statement: str
    operation: str = Field(description="A named operation of the attention engine.")
    inputs: dict[str, Any]
    ask: dict[str, Any]
    tolerance: Tolerance | None = None
    solution: SolutionIn | None = None


class ChapterDocument(Open):
    """A chapter file (content-format.md) as JSON; the importer validates it whole."""

    code: str = Field(pattern=CODE_RE, examples=["II.4", "0.LA.01"])
    book: str = Field(pattern=NUMERAL_RE)
    number: int | None = Field(None, ge=1, description="Optional: the code carries it.")
    title: str
    author: str = ""
    thesis: str = ""
    summary: str = ""
    maturity: Maturity
    spine: StrandKind = "mathematics"
    state: State = Field(
        "draft", description="published only for a chapter already released (as exported)."
    )
    before_you_start: str = ""
    problem_statement: str = ""
    strands: StrandsIn | None = None
    figures: list[FigureIn] = Field(default_factory=list)
    apparatus: list[str] = Field(default_factory=list, description="Book 0 codes.")
    notation: list[NotationIn] = Field(default_factory=list)
    propositions: list[PropositionIn] = Field(default_factory=list)
    problems: list[ProblemIn] = Field(default_factory=list)


class Imported(Schema):
    code: str
    created: bool
    verifications_enqueued: int


class Enqueued(Schema):
    code: str
    enqueued: int


# ---------------------------------------------------------------- the chapter (GET)


class StrandItemOut(StrandItemIn):
    body_html: str


class StrandOut(StrandIn):
    items: list[StrandItemOut]  # type: ignore[assignment]  # a richer item, read-only


class StrandsOut(Open):
    basics: StrandOut
    concept: StrandOut
    theory: StrandOut
    mathematics: MathematicsStrandIn
    practice: StrandOut


class FigureOut(Open):
    """A figure as readers get it: drawn, never as its author's source (GET .../source has it)."""

    label: str
    caption: str
    caption_html: str
    alt: str
    svg_html: str = Field(
        description="The drawing rebuilt from an allowlist of SVG elements and attributes: no "
        "scripts, handlers, styles or external references. Empty when it is left out (too "
        "large, not a drawing): alt stands in for it."
    )


class NotationOut(NotationIn):
    meaning_html: str


class PropositionOut(PropositionIn):
    proof: str | None = Field(description="null until the proof is published.")
    statement_html: str
    proof_html: str


class SolutionOut(SolutionIn):
    steps_html: str
    answer_html: str = Field(description="The answer as the page prints it, a table.")


class Verification(Open):
    status: str = Field(description="verified, mismatch, error, pending or stale")
    max_abs_error: float | None
    max_rel_error: float | None
    tolerance: Tolerance
    engine_version: str
    decided_at: datetime | None


class ProblemOut(ProblemIn):
    tolerance: Tolerance
    statement_html: str
    solution: SolutionOut | None = Field(
        None, description="Absent unless published (a staff preview shows it anyway)."
    )
    verification: Verification | None


class Apparatus(Open):
    code: str
    title: str


class StrandCount(Open):
    kind: StrandKind
    description: str
    done: int
    target: int


class Quota(Open):
    done: int
    target: int


class Derived(Open):
    maturity_name: str
    spine_sentence: str
    strands_sentence: str
    strands: list[StrandCount]
    worked: Quota
    variants: Quota
    exercises: Quota
    owes: int = Field(description="How many more items the maturity level requires.")
    debt_sentence: str
    enforcement_sentence: str


class ChapterOut(Open):
    """What readers see: the latest release, else the working copy of an in-progress chapter."""

    format: int
    code: str
    book: str
    book_title: str
    number: int
    title: str
    author: str
    thesis: str
    thesis_html: str
    summary: str
    summary_html: str
    maturity: Maturity
    spine: StrandKind
    state: State
    before_you_start: str
    before_you_start_html: str
    problem_statement: str
    problem_statement_html: str
    strands: StrandsOut
    figures: list[FigureOut]
    apparatus: list[Apparatus]
    notation: list[NotationOut]
    propositions: list[PropositionOut]
    problems: list[ProblemOut]
    derived: Derived
    release: int | None = Field(description="The release shown; null for the working copy.")
    latest_release: int | None
    released_at: datetime | None


# ---------------------------------------------------------------- lists


class StrandProgress(Schema):
    kind: StrandKind
    done: int
    target: int


class ChapterSummary(Schema):
    code: str
    book: str
    number: int
    title: str
    maturity: Maturity
    maturity_name: str
    state: State
    latest_release: int | None
    strands: list[StrandProgress]
    owes: int


class BookOut(Schema):
    numeral: str
    title: str
    slug: str
    description: str
    chapters: list[ChapterSummary]


class ReleaseSummary(Schema):
    number: int
    created_at: datetime
    title: str
    maturity: Maturity
