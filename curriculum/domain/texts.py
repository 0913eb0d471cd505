"""Every text of a chapter document an author writes Markdown in, with its path, whether
readers see it once the chapter is released, and the problem it belongs to: claims and
references read the same list, so neither misses a text the other checks. A problem's hints and
feedback are read on its practice page, not the chapter's: references read them too
(`practice_texts`); claims may not be stated there at all (`hints`)."""

from collections.abc import Iterator, Mapping
from typing import Any

PROSE = ("thesis", "summary", "before_you_start", "problem_statement")

type Text = tuple[str, str, bool, dict | None]  # path, text, shown to readers, problem context


def problem_context(problem: Mapping[str, Any]) -> dict[str, Any]:
    """What a claim in a problem's texts reads, as its fingerprint covers it: every place that
    finds or states claims makes it here, so their fingerprints agree."""
    return {"operation": problem.get("operation"), "inputs": problem.get("inputs")}


def chapter_texts(document: Mapping[str, Any]) -> Iterator[Text]:
    for key in PROSE:
        yield key, document.get(key) or "", True, None
    for kind, strand in (document.get("strands") or {}).items():
        for i, item in enumerate(strand.get("items") or []):
            body, shown = item.get("body") or "", bool(item.get("published"))
            yield f"strands.{kind}.items[{i}].body", body, shown, None
    for i, figure in enumerate(document.get("figures") or []):
        yield f"figures[{i}].caption", figure.get("caption") or "", True, None
    for i, row in enumerate(document.get("notation") or []):
        yield f"notation[{i}].meaning", row.get("meaning") or "", True, None
    for i, prop in enumerate(document.get("propositions") or []):
        yield f"propositions[{i}].statement", prop.get("statement") or "", True, None
        proof, shown = prop.get("proof") or "", bool(prop.get("proof_published"))
        yield f"propositions[{i}].proof", proof, shown, None
    for i, problem in enumerate(document.get("problems") or []):
        context = problem_context(problem)
        yield f"problems[{i}].statement", problem.get("statement") or "", True, context
        if solution := problem.get("solution"):
            steps, shown = solution.get("steps") or "", bool(solution.get("published"))
            yield f"problems[{i}].solution.steps", steps, shown, context


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
