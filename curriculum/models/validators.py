"""Field validators shared by every writer that calls full_clean (admin, API)."""

from django.core.exceptions import ValidationError

from curriculum.domain.claims.syntax import claim_errors
from curriculum.domain.markup_checks import markup_errors
from curriculum.domain.svg import svg_errors


def validate_markdown(value: str) -> None:
    if errors := markup_errors(value) + claim_errors(value):
        raise ValidationError(errors)


def validate_svg(value: str) -> None:
    if errors := svg_errors(value or ""):
        raise ValidationError(errors)
