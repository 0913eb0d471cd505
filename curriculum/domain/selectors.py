"""Reads: a chapter with every part loaded in a fixed number of queries."""

from django.db.models import Prefetch, QuerySet

from curriculum.models import ApparatusLink, Chapter, Problem


def chapters_with_parts() -> QuerySet[Chapter]:
    return Chapter.objects.select_related("book").prefetch_related(
        "strand_items",
        "figures",
        "notation",
        "propositions",
        Prefetch("apparatus_links", ApparatusLink.objects.select_related("entry")),
        Prefetch("problems", Problem.objects.select_related("solution__verdict")),
    )


def chapter_with_parts(*, code: str) -> Chapter:
    return chapters_with_parts().get(code=code)
