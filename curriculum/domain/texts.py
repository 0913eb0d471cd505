"""Every text of a chapter document an author writes Markdown in, with its path, whether
readers see it once the chapter is released, and the problem it belongs to: claims, references
and the rendering of the page (`snapshots`) read the same list, so none misses a text another
checks or shows. A problem's hints and feedback are read on its practice page, not the
chapter's: references read them too (`practice_texts`); claims may not be stated there at all
(`hints`)."""

from collections.abc import Iterator, Mapping
from typing import Any

PROSE = ("thesis", "summary", "before_you_start", "problem_statement")

type Text = tuple[str, str, bool, dict | None]  # path, text, shown to readers, problem context
type Slot = tuple[str, Any, str, bool, dict | None]  # path, holder, key, shown, problem context


def problem_context(problem: Mapping[str, Any]) -> dict[str, Any]:
    """What a claim in a problem's texts reads, as its fingerprint covers it: every place that
    finds or states claims makes it here, so their fingerprints agree."""
    return {"operation": problem.get("operation"), "inputs": problem.get("inputs")}


def chapter_slots(document: Mapping[str, Any]) -> Iterator[Slot]:
    """Where each text stands: its holder (a mapping of the document) and key, so a rendering
    can write its HTML beside it (`key_html`). A proposition's title is Markdown as its
    statement is, one line of it (`markup.title_errors`)."""
    for key in PROSE:
        yield key, document, key, True, None
    for kind, strand in (document.get("strands") or {}).items():
        for i, item in enumerate(strand.get("items") or []):
            yield f"strands.{kind}.items[{i}].body", item, "body", bool(item.get("published")), None
    for i, figure in enumerate(document.get("figures") or []):
        yield f"figures[{i}].caption", figure, "caption", True, None
    for i, row in enumerate(document.get("notation") or []):
        yield f"notation[{i}].meaning", row, "meaning", True, None
    for i, prop in enumerate(document.get("propositions") or []):
        yield f"propositions[{i}].title", prop, "title", True, None
        yield f"propositions[{i}].statement", prop, "statement", True, None
        yield f"propositions[{i}].proof", prop, "proof", bool(prop.get("proof_published")), None
    for i, problem in enumerate(document.get("problems") or []):
        context = problem_context(problem)
        yield f"problems[{i}].statement", problem, "statement", True, context
        if solution := problem.get("solution"):
            shown = bool(solution.get("published"))
            yield f"problems[{i}].solution.steps", solution, "steps", shown, context


def chapter_texts(document: Mapping[str, Any]) -> Iterator[Text]:
    for path, holder, key, shown, context in chapter_slots(document):
        yield path, holder.get(key) or "", shown, context


def practice_texts(document: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(path, text) of each problem's hints and feedback: Markdown shown beside every instance
    on its practice page. What is not a text (refused by `hints`) is passed over."""
    for i, problem in enumerate(document.get("problems") or []):
        hints, feedback = problem.get("hints"), problem.get("feedback")
        for j, hint in enumerate(hints if isinstance(hints, list) else []):
            if isinstance(hint, str):
                yield f"problems[{i}].hints[{j}]", hint
        for j, given in enumerate(feedback if isinstance(feedback, list) else []):
            if isinstance(given, dict) and isinstance(given.get("says"), str):
                yield f"problems[{i}].feedback[{j}].says", given["says"]
