"""Field validators shared by every writer that calls full_clean (admin, API)."""

from django.core.exceptions import ValidationError

from curriculum.domain.bibliography import library_errors
from curriculum.domain.claims.syntax import claim_errors
from curriculum.domain.descriptions import description_errors
from curriculum.domain.markup import title_errors
from curriculum.domain.markup_checks import markup_errors
from curriculum.domain.svg import svg_errors
from curriculum.domain.terms import defines_errors, terms_listed


def validate_markdown(value: str) -> None:
    if errors := markup_errors(value) + claim_errors(value):
        raise ValidationError(errors)


def validate_description(value: str) -> None:
    """A book's description holds no claim: nothing checks it (`descriptions`)."""
    if errors := description_errors(value):
        raise ValidationError(errors)


def validate_title(value: str) -> None:
    """A Markdown title is read on one line beside what it names (`markup.title_errors`)."""
    if errors := markup_errors(value) + claim_errors(value) + title_errors(value or ""):
        raise ValidationError(errors)


def validate_svg(value: str) -> None:
    if errors := svg_errors(value or ""):
        raise ValidationError(errors)


def validate_bibliography(value: str) -> None:
    if errors := library_errors(value or ""):
        raise ValidationError(errors)


def validate_terms(value: str) -> None:
    if errors := [why for _, why in defines_errors(terms_listed(value or ""))]:
        raise ValidationError(errors)
