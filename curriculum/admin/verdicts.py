"""A solution's verdict as admin shows it (a badge) and lists it (a filter): the state is the
domain's `verdict_state` expression, so a stale verdict is never shown or listed as verified."""

from django.contrib import admin
from django.db.models import Q
from django.utils.html import format_html

from curriculum.domain.drafts import DRAFT_PROBLEM
from curriculum.domain.verification import verdict_state


def verdict_badge(solution, state: str) -> str:
    """`state` as the queryset's `verdict_state` annotation gives it; a draft (no solution, or
    no answer yet) has none."""
    if solution is None or solution.answer is None:
        return format_html('<span class="verdict verdict-{}">{}</span>', "none", DRAFT_PROBLEM)
    return format_html(
        '<strong class="verdict verdict-{}">{}</strong>{}{}',
        state,
        state,
        verdict_detail(getattr(solution, "verdict", None), state),
        "" if solution.published else " · unpublished",
    )


def verdict_detail(verdict, state: str) -> str:
    if verdict is None:
        return ""
    if state == "error" or (state == "mismatch" and verdict.max_abs_error is None):
        return f": {verdict.message}"  # a shape mismatch: the message names both shapes
    if state in ("verified", "mismatch") and verdict.max_abs_error is not None:
        rel = "" if verdict.max_rel_error is None else f", rel {verdict.max_rel_error:.2g}"
        return f" (max abs {verdict.max_abs_error:.2g}{rel})"
    return ""


class VerdictFilter(admin.SimpleListFilter):
    title = "verdict"
    parameter_name = "verdict"

    def lookups(self, request, model_admin):
        return [(s, s) for s in ("pending", "verified", "mismatch", "error", "stale")] + [
            ("none", "draft: no answer yet")
        ]

    def queryset(self, request, queryset):
        """The badge's state (`verdict_state`), so a stale verdict is never listed as verified."""
        draft = Q(solution__isnull=True) | Q(solution__answer__isnull=True)
        if self.value() == "none":
            return queryset.filter(draft)
        if self.value():
            return (
                queryset.exclude(draft)
                .alias(state=verdict_state("solution__"))
                .filter(state=self.value())
            )
        return queryset
