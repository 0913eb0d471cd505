"""Shapes of the API: the chapter readers GET, and errors. The document clients PUT is the
chapter-file schema itself (`chapter_files.schema.ChapterDocument`).

The reader shape is that schema (the `*Out` classes extend its parts) plus what is derived:
`*_html` beside each Markdown source, strand and quota counts with the debt, and per problem
the verification provenance; a figure comes as its drawing (`svg_html`), not its source.
Chapter and release bodies are served as the domain gives them to readers
(`reading.reader_view`); these classes document them and the schema tests hold the two
together. `extra="allow"` keeps a field the domain adds later from being called invalid.
"""

from datetime import datetime
from typing import Any, Literal, get_args

from django.conf import settings
from ninja import Schema
from pydantic import ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError
from pydantic_core.core_schema import ErrorType

from curriculum.domain.chapter_files.schema import (
    MathematicsStrandDocument,
    Maturity,
    NotationDocument,
    ProblemDocument,
    PropositionDocument,
    SolutionDocument,
    State,
    StrandDocument,
    StrandItemDocument,
    StrandKind,
    Tolerance,
)

from .problems import CODES


class Open(Schema):
    model_config = ConfigDict(extra="allow")


class ErrorItem(Schema):
    code: str = Field(
        description="What is wrong, for a program: one of this project's codes (`invalid`, "
        "`limit`, `not_publishable`, `source_changed`, `invalid_token`, ...: README, API "
        "errors) or pydantic's error type for a parameter or a field (`missing`, "
        "`int_parsing`, ...).",
        json_schema_extra={"enum": [*CODES, *get_args(ErrorType)]},
    )
    detail: str = Field(description="What is wrong, for a person.")
    pointer: str | None = Field(
        None,
        description="Where in the body sent (RFC 6901 JSON pointer, `/problems/0/inputs/x`; "
        '`""` is the whole body); for a publish the gate refused, where in the chapter file '
        "(GET /chapters/{code}/source) the reason is.",
    )
    parameter: str | None = Field(None, description="The query or path parameter at fault.")
    header: str | None = Field(
        None, description="The request header at fault: Content-Type, If-Match, Authorization."
    )


class Error(Schema):
    """RFC 9457 problem details, sent as `application/problem+json` for every error. Each item
    names the part of the request it is about (`pointer`, `parameter` or `header`), but for a
    rate limit's, which is about the client's count."""

    type: str = Field("about:blank", description="Always `about:blank`: `status` says it all.")
    title: str = Field(description="The HTTP status's phrase.")
    status: int
    detail: str
    errors: list[ErrorItem] = Field(
        default_factory=list, description="Every problem, so a client fixes all at once."
    )


# What any read with parameters may answer instead: a token that is sent but unknown or
# revoked (401, never read as anonymous), invalid parameters (422), too many requests (429).
READ_ERRORS: dict[int, Any] = {401: Error, 422: Error, 429: Error}


class Pong(Schema):
    ok: bool


class PublishIn(Schema):
    """What a publish may carry, as JSON (optional: no body, or a form, publishes without
    notes)."""

    model_config = ConfigDict(extra="forbid")
    notes: str = Field(
        "",
        json_schema_extra={"maxLength": settings.LIMIT_REVIEW_TEXT_CHARS},
        description="Release notes (what changed, and why), shown to readers with the release "
        "it makes on the chapter's releases page, as an Editor's from admin are; at most "
        "LIMIT_REVIEW_TEXT_CHARS characters, and no NUL. Kept only when a release is made.",
    )

    @field_validator("notes")
    @classmethod
    def _storable(cls, notes: str) -> str:
        """Within the limit, which the refusal names, and text PostgreSQL holds (no NUL): the
        gate's `notes_reasons` refuses both too (409 with every reason); here the refusal is a
        422 pointing at `/notes`. A NUL had reached the release's INSERT, a 500."""
        most = settings.LIMIT_REVIEW_TEXT_CHARS
        if len(notes) > most:
            raise PydanticCustomError(
                "limit",
                "is {length} characters; at most {most} (LIMIT_REVIEW_TEXT_CHARS)",
                {"length": len(notes), "most": most},
            )
        if "\x00" in notes:
            raise PydanticCustomError("invalid", "contains a NUL character (\\0)")
        return notes


class Imported(Schema):
    code: str
    created: bool
    verifications_enqueued: int
    warnings: list[str] = Field(
        description="Written anyway: answers written past what a person derives, a symbol "
        "another chapter of the book defines differently (content-format.md)."
    )
    claims: int = Field(
        description="Claims and checked properties the chapter states; their verdicts follow "
        "(GET /chapters/{code}/claims)."
    )


class Enqueued(Schema):
    code: str
    enqueued: int


# ---------------------------------------------------------------- the chapter (GET)


class StrandItemOut(StrandItemDocument, Open):
    body_html: str


class StrandOut(StrandDocument, Open):
    items: list[StrandItemOut]  # type: ignore[assignment]  # a richer item, read-only


class StrandsOut(Open):
    basics: StrandOut
    concept: StrandOut
    theory: StrandOut
    mathematics: MathematicsStrandDocument
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


class NotationOut(NotationDocument, Open):
    meaning_html: str


class PropertyChecked(Open):
    words: str = Field(description='"Checked numerically on N random instances: ..."')
    note: str = Field(description="What the check leaves out, as the author says it.")
    status: str = Field(description="verified, mismatch, error or pending")


class PropositionOut(PropositionDocument, Open):
    proof: str | None = Field(description="null until the proof is published.")
    title_html: str
    statement_html: str
    proof_html: str
    checked: PropertyChecked | None = Field(None, description="Present when it carries a check.")


class SolutionOut(SolutionDocument, Open):
    steps_html: str
    answer_html: str = Field(description="The answer as the page prints it, a table.")


class Verification(Open):
    status: str = Field(description="verified, mismatch, error, pending or stale")
    max_abs_error: float | None
    max_rel_error: float | None
    tolerance: Tolerance
    engine_version: str
    decided_at: datetime | None


class ProblemOut(ProblemDocument, Open):
    tolerance: Tolerance
    statement_html: str
    solution: SolutionOut | None = Field(
        None,
        description="Absent unless published (a staff preview shows it anyway); an "
        "exercise's is held back from anyone without a staff token (see `held`).",
    )
    verification: Verification | None
    held: list[Literal["solution", "hints", "feedback"]] = Field(
        default_factory=list,
        description="An exercise's parts held back until asked for, as the page holds them: "
        "GET /chapters/{code}/problems/{key}/instances/{n}?hints=k&solution=true gives its "
        "first k hints and its solution (feedback comes only with a check of a wrong answer).",
    )


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


class Checks(Open):
    claims: int = Field(description="Numbers typed in the text that the engine checks.")
    claims_verified: int
    properties: int = Field(description="Propositions checked numerically.")
    properties_verified: int


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
    checks: Checks | None = Field(None, description="Absent from releases made before claims.")


class Reference(Open):
    number: int = Field(description='What the text\'s citations of it read: "[1]".')
    key: str = Field(description="Its key in the book's bibliography (@cite:key).")
    html: str = Field(description="The work, formatted (pybtex's plain style).")


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
    references: list[Reference] = Field(
        default_factory=list,
        description="The works the chapter cites, in the order it first cites them; a "
        "release keeps them as they were formatted when it was made.",
    )
    derived: Derived
    release: int | None = Field(description="The release shown; null for the working copy.")
    latest_release: int | None
    released_at: datetime | None
    release_notes: str = Field(
        "", description="The Editor's notes on the release shown; empty for the working copy."
    )


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
    description_html: str = Field(description="The description as readers see it, typeset.")
    chapters: list[ChapterSummary]


class ReleaseSummary(Schema):
    number: int
    created_at: datetime
    title: str
    maturity: Maturity
    notes: str = Field(description="The Editor's release notes (what changed, and why).")


class ClaimOut(Open):
    path: str = Field(description="Where it is written: problems[0].solution.steps")
    kind: str = Field(description="claim or property")
    said: str = Field(description="The claim as written, or the property's relation.")
    checked_as: str = Field(description="How it is compared.")
    visible: bool = Field(
        description="Readers see it once released; a draft's claims block nothing."
    )
    state: str = Field(description="verified, mismatch, error or pending")
    message: str
    engine_value: Any = Field(description="The engine's value, or a property's counterexample.")
