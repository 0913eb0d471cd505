"""A chapter as readers will see it, made from an author's unsaved edits: nothing is written.

The edits (a chapter's fields and parts, or one problem and its solution) stand in memory in
place of the stored rows, and the page is built from them by `snapshots.chapter_snapshot`, the
path every reader's page takes, under the same cap. A problem's generated inputs are drawn by
the engine (`attention.expand_inputs`) for any instance a reader may be given.
"""

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db.models import Max, Model

import attention
from attention.generated import is_generator
from curriculum.models import Chapter, Problem, Solution

from .documents import chapter_document
from .reading import ReaderView, reader_view
from .references import reference_errors
from .selectors import chapters_with_parts
from .snapshots import chapter_snapshot

PARTS = ("strand_items", "figures", "apparatus_links", "notation", "propositions", "problems")


def _stored(chapter: Chapter) -> Chapter | None:
    if chapter.pk is None:
        return None
    return chapters_with_parts().filter(pk=chapter.pk).first()


def _parts_set(chapter: Chapter, name: str, rows: Iterable[Model]) -> None:
    """``rows`` as ``chapter.<name>.all()``, in their position order, without a query."""
    ordered = sorted(rows, key=lambda row: (getattr(row, "position", 0), row.pk or 0))
    queryset = getattr(Chapter, name).rel.related_model.objects.all()
    queryset._result_cache, queryset._prefetch_done = ordered, True
    vars(chapter).setdefault("_prefetched_objects_cache", {})[name] = queryset


def _view(chapter: Chapter) -> ReaderView:
    latest = chapter.releases.aggregate(n=Max("number"))["n"] if chapter.pk else None
    return reader_view(
        chapter.code, chapter_snapshot(chapter, include_unpublished=True), None, latest
    )


def chapter_preview(*, chapter: Chapter, parts: dict[str, list[Model]]) -> ReaderView:
    """``chapter`` (its fields as edited) with ``parts`` (each list as edited, by its name in
    PARTS) in place of the stored ones; a part not given is as stored."""
    stored = _stored(chapter)
    for name in PARTS:
        rows = parts.get(name)
        if rows is None:
            rows = list(getattr(stored, name).all()) if stored else []
        for row in rows:
            if name == "apparatus_links" and not hasattr(row, "entry_released_title"):
                row.entry_released_title = None  # type: ignore[attr-defined]  # its entry's title
            if name == "problems" and not hasattr(row, "verdict_state"):
                row.verdict_state = "pending"  # type: ignore[attr-defined]  # as a save leaves it
                row.counted = False  # type: ignore[attr-defined]
        _parts_set(chapter, name, rows)
    return _view(chapter)


def problem_preview(*, problem: Problem, solution: Solution | None) -> ReaderView:
    """The problem's chapter with ``problem`` as edited (a save would leave its verdict pending
    and uncounted until the verifier runs) and ``solution`` (None: a draft, no answer yet)."""
    Problem.solution.related.set_cached_value(problem, solution)  # type: ignore[attr-defined]
    if solution is not None:
        solution.problem = problem
    problem.verdict_state, problem.counted = "pending", False  # type: ignore[attr-defined]
    chapter, problems = _problems_as_edited(problem)
    return chapter_preview(chapter=chapter, parts={"problems": problems})


def _problems_as_edited(problem: Problem) -> tuple[Chapter, list[Model]]:
    """The problem's chapter as stored, and its problems with ``problem`` as edited."""
    chapter = _stored(problem.chapter) or problem.chapter
    others = [p for p in chapter.problems.all() if p.pk != problem.pk or problem.pk is None]
    return chapter, [*others, problem]


PRACTICE_FIELDS = ("hints", "feedback")


def practice_reference_errors(*, problem: Problem) -> dict[str, list[str]]:
    """By field, each reference in ``problem``'s hints and feedback, as edited, that names
    nothing readers can see (`references.reference_errors`, in its chapter as stored with this
    problem in place): what admin refuses before a save, as a file's import refuses it."""
    chapter, problems = _problems_as_edited(problem)
    _parts_set(chapter, "problems", problems)
    document = chapter_document(chapter)
    keys = [p["key"] for p in document["problems"]]
    prefix = f"problems[{keys.index(problem.key)}]."
    found: dict[str, list[str]] = {}
    for path, why in reference_errors(document):
        where = path.removeprefix(prefix)
        if where != path and (name := where.split("[")[0]) in PRACTICE_FIELDS:
            found.setdefault(name, []).append(f"{where}: {why}")
    return found


def drawn_inputs(*, inputs: Any, instance: int) -> tuple[dict[str, Any], str]:
    """The numbers each generated input draws at ``instance`` (0: the printed ones), by name,
    and why they cannot be drawn ("" when they can). Only instances a reader may be given."""
    if not 0 <= instance <= settings.PRACTICE_INSTANCES:
        return {}, f"instance: from 0 to {settings.PRACTICE_INSTANCES} (PRACTICE_INSTANCES)"
    if not isinstance(inputs, dict) or not attention.is_generated(inputs):
        return {}, ""
    try:
        expanded = attention.expand_inputs(inputs, instance=instance)
    except attention.EngineInputError as error:
        return {}, str(error)
    return {k: v for k, v in expanded.items() if is_generator(inputs[k])}, ""
