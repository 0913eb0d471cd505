"""Reads: a chapter with every part loaded in a fixed number of queries."""

from django.db.models import OuterRef, Prefetch, QuerySet, Subquery

from curriculum.models import ApparatusLink, Chapter, Problem, Release

from .verification.state import with_verdict_state


def chapters_with_parts() -> QuerySet[Chapter]:
    return Chapter.objects.select_related("book").prefetch_related(
        "strand_items",
        "figures",
        "notation",
        "propositions",
        Prefetch("apparatus_links", _apparatus_links()),
        Prefetch("problems", with_verdict_state(Problem.objects.all())),
    )


def chapters_with_counted_parts() -> QuerySet[Chapter]:
    """Only what counting reads (strand items, proofs, problems and verdicts), for lists."""
    return Chapter.objects.prefetch_related(
        "strand_items",
        "propositions",
        Prefetch("problems", with_verdict_state(Problem.objects.all())),
    )


def _apparatus_links() -> QuerySet[ApparatusLink]:
    """Each Book 0 entry with the title readers know it by: its latest release's, if any."""
    released = Release.objects.filter(chapter=OuterRef("entry")).order_by("-number")
    return ApparatusLink.objects.select_related("entry").annotate(
        entry_released_title=Subquery(released.values("snapshot__title")[:1])
    )


def chapter_with_parts(*, code: str) -> Chapter:
    return chapters_with_parts().get(code=code)
