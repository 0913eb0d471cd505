"""Checks of a chapter's problems: key and variant, what the engine is asked (and how much work
it is), the solution's answer, the tolerance it is held to, and the placeholders in the texts."""

import math
from typing import Any

import attention
from attention.answers import answer_problems
from curriculum.models import Problem

from ..answers import answer_figures, answer_lint, default_digits
from ..placeholders import SHOWN_DIGITS, placeholder_errors
from ..tolerances import tolerance_problems
from ..work_budget import work_refusal
from .checker import MAX_WHOLE_NUMBER, SLUG_RE, Checker, kind_of

PROBLEM_KINDS = tuple(Problem.Kind.values)  # read once: the enum builds the list each time
PROBLEM_KEYS = (
    "key",
    "kind",
    "variant",
    "statement",
    "operation",
    "inputs",
    "ask",
    "tolerance",
    "solution",
)
PROBLEM_REQUIRED = ("key", "kind", "variant", "statement", "operation", "inputs", "ask")
TOLERANCE_KEYS = ("rtol", "atol", "digits")
SOLUTION_KEYS = ("steps", "answer", "published")
# what a problem in digits mode stores in its unused rtol/atol columns: the columns' defaults
UNUSED_RTOL = Problem._meta.get_field("rtol").default
UNUSED_ATOL = Problem._meta.get_field("atol").default


def problems_checked(c: Checker, doc: dict) -> list:
    problems, keys_seen = [], set()
    for i, raw in enumerate(c.sequence(doc, "problems", "")):
        path = f"problems[{i}]"
        prob = c.mapping(raw, path, PROBLEM_KEYS, PROBLEM_REQUIRED)
        key = prob.get("key")
        if not isinstance(key, str) or not SLUG_RE.match(key):
            c.error(f"{path}.key", f"expected a short key such as p1, got {kind_of(key)}")
        elif key in keys_seen:
            c.error(f"{path}.key", f"problem key {key} appears twice")
        else:
            keys_seen.add(key)
        kind = prob.get("kind")
        if kind not in PROBLEM_KINDS:
            c.error(f"{path}.kind", f"expected worked or exercise, got {kind_of(kind)}")
        variant = prob.get("variant")
        if not isinstance(variant, str) or not SLUG_RE.match(variant):
            c.error(
                f"{path}.variant",
                f"expected a short name such as mha-output, got {kind_of(variant)}",
            )
        operation, inputs, ask = prob.get("operation"), prob.get("inputs"), prob.get("ask")
        if "operation" in prob and "inputs" in prob and "ask" in prob:
            found = attention.check(operation, inputs, ask)
            for problem in found:
                c.error(f"{path}.{problem.path}", problem.message)
            if not found and (too_much := work_refusal(operation=operation, inputs=inputs)):
                c.error(f"{path}.inputs", too_much)
        solution = _solution(c, prob, path)
        answer = solution["answer"] if solution else None
        figures = answer_figures(answer)
        default = {"digits": default_digits(answer, figures)}
        tolerance = _tolerance(c, prob.get("tolerance", default), f"{path}.tolerance")
        for name, message in tolerance_problems(**tolerance, answer=answer).items():
            c.error(f"{path}.tolerance.{name}", message)
        clean = {
            "key": key,
            "kind": kind,
            "variant": variant,
            "statement": c.text(prob, "statement", path, required=True, markdown=True),
            "operation": operation,
            "inputs": inputs,
            "ask": ask,
            "tolerance": tolerance,
            "solution": solution,
            "lint": answer_lint(answer=answer, **tolerance, figures=figures) if solution else [],
        }
        _placeholders(c, clean, path)
        problems.append(clean)
    return problems


def _placeholders(c: Checker, clean: dict, path: str) -> None:
    """`{{ inputs.x }}` in the statement and steps must name what the problem has."""
    texts = [("statement", clean["statement"] or "")]
    if clean["solution"] is not None:
        texts.append(("solution.steps", clean["solution"]["steps"] or ""))
    for where, text in texts:
        for message in placeholder_errors(
            text, operation=clean["operation"], inputs=clean["inputs"], room=c.typeset
        ):
            c.error(f"{path}.{where}", message)


def _tolerance(c: Checker, raw: Any, path: str) -> dict:
    """`{digits: N}` (significant figures) or `{rtol, atol}`; cleaned with all three keys."""
    if isinstance(raw, dict) and "digits" in raw:
        c.mapping(raw, path, ("digits",))
        # any whole number is read: its bounds are the tolerance rule's (tolerance_problems)
        digits = c.integer(raw, "digits", path, default=SHOWN_DIGITS, minimum=-MAX_WHOLE_NUMBER)
        return {"digits": digits, "rtol": UNUSED_RTOL, "atol": UNUSED_ATOL}
    tolerance = c.mapping(raw, path, TOLERANCE_KEYS, ("rtol", "atol"))
    clean: dict[str, Any] = {"digits": None, "rtol": 0.0, "atol": 0.0}
    for key in ("rtol", "atol"):
        value = tolerance.get(key, clean[key])
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 <= value < math.inf
        ):
            c.error(f"{path}.{key}", f"expected a finite number, at least 0, got {kind_of(value)}")
        else:
            clean[key] = float(value)
    return clean


def _solution(c: Checker, prob: dict, path: str) -> dict | None:
    if prob.get("solution") is None:
        return None
    spath = f"{path}.solution"
    solution = c.mapping(prob["solution"], spath, SOLUTION_KEYS, ("answer",))
    answer = solution.get("answer")
    for problem in answer_problems(answer):
        c.error(f"{spath}.answer", problem)
    return {
        "steps": c.text(solution, "steps", spath, markdown=True),
        "answer": answer,
        "published": c.boolean(solution, "published", spath),
    }
