"""The verdict row as readers see it: when it counts and when it is stale (database
expressions), the fields a decision writes."""

from typing import Any

from django.db import connection
from django.db.models import (
    BooleanField,
    Case,
    CharField,
    ExpressionWrapper,
    F,
    Field,
    Q,
    QuerySet,
    Value,
    When,
)

from curriculum.models import Problem, Verdict

Status = Verdict.Status


DRAFT = Q(answer__isnull=True)
"""A solution with no answer yet (`domain.drafts`): never checked, so it has no verdict."""

STALE = "stale"
"""A verdict for content the solution no longer has: it never counts."""


def verdict_state(solution: str = "") -> Case:
    """The verdict as readers see it, as a database expression on a queryset whose path to the
    solution is ``solution`` ("solution__" from a problem): pending when there is none yet,
    stale when it is for another fingerprint than the one stored on the solution."""
    return Case(
        When(**{f"{solution}verdict__isnull": True}, then=Value(Status.PENDING)),
        When(
            ~Q(**{f"{solution}verdict__fingerprint": F(f"{solution}fingerprint")}),
            then=Value(STALE),
        ),
        default=F(f"{solution}verdict__status"),
        output_field=CharField(),
    )


def counted(solution: str = "") -> ExpressionWrapper:
    """Whether a solution counts, as a database expression: published, and verified for exactly
    what it now says."""
    return ExpressionWrapper(
        Q(
            **{
                f"{solution}published": True,
                f"{solution}verdict__status": Status.VERIFIED,
                f"{solution}verdict__fingerprint": F(f"{solution}fingerprint"),
            }
        ),
        output_field=BooleanField(),
    )


def with_verdict_state(problems: QuerySet[Problem]) -> QuerySet[Problem]:
    """Problems with their solution and verdict, each annotated with ``verdict_state`` and
    ``counted`` (one statement, whatever their number)."""
    return problems.select_related("solution__verdict").annotate(
        verdict_state=verdict_state("solution__"), counted=counted("solution__")
    )


DECIDED: dict[str, Any] = {
    "status": Status.ERROR,
    "decided_at": None,
    "max_abs_error": None,
    "max_rel_error": None,
    "engine_value": None,
    "engine_version": "",
    "duration_ms": None,
    "message": "",
    "warnings": [],
}
"""Every field a decision writes, with its value before one: a request clears them all."""


def _column(name: str) -> Field:
    field = Verdict._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def column_type(name: str) -> str:
    """A verdict column's database type, for a statement that writes many rows at once."""
    return str(_column(name).db_type(connection))


def db_value(name: str, value: Any) -> Any:
    """``value`` as the verdict column ``name`` stores it."""
    return _column(name).get_db_prep_save(value, connection)
