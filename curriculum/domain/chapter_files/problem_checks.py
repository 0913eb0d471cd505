"""Checks of a chapter's problems: key and variant, what the engine is asked (and how much work
it is), the solution's answer, the tolerance it is held to, and the placeholders in the texts.
Their structure is the schema's."""

from typing import Any

from django.conf import settings

import attention
from attention.answers import answer_problems
from curriculum.models import Problem

from ..answers import answer_figures, answer_lint, default_digits
from ..claims.syntax import known_names
from ..drafts import draft_errors
from ..hints import feedback_errors, hints_errors
from ..judging import tolerance_of
from ..placeholders import answer_shown_errors, placeholder_errors
from ..tolerances import tolerance_problems
from ..work_budget import chapter_work_refusal, work_refusal
from .checker import Checker
from .schema import ProblemDocument, Tolerance

# what a problem in digits mode stores in its unused rtol/atol columns: the columns' defaults
UNUSED_RTOL = Problem._meta.get_field("rtol").default
UNUSED_ATOL = Problem._meta.get_field("atol").default


def problems_checked(c: Checker, raws: list) -> list:
    problems, keys_seen, drawn, weighed = [], set(), 0, []
    for i, raw in enumerate(raws):
        path = f"problems[{i}]"
        if (prob := c.structure(ProblemDocument, raw, path)) is None:
            continue
        if prob.key in keys_seen:
            c.error(f"{path}.key", f"problem key {prob.key} appears twice")
        keys_seen.add(prob.key)
        drawn += attention.generated_numbers(prob.inputs)
        if drawn > settings.LIMIT_CHAPTER_GENERATED:  # refused before any is drawn
            c.error(
                f"{path}.inputs",
                f"the generated inputs of problems[0] to here draw {drawn:,} numbers; a chapter's "
                f"draw at most {settings.LIMIT_CHAPTER_GENERATED:,} (LIMIT_CHAPTER_GENERATED)",
            )
            break
        found, axes = attention.check_planned(prob.operation, prob.inputs, prob.ask)
        for refusal in found:
            c.error(f"{path}.{refusal.path}", refusal.message)
        if not found and (
            too_much := work_refusal(
                operation=prob.operation, inputs=prob.inputs, ask=prob.ask, axes=axes
            )
        ):
            c.error(f"{path}.{too_much.field}", too_much.message)
        elif not found:
            weighed.append((path, prob.operation, prob.inputs))
        names = known_names({"operation": prob.operation, "inputs": prob.inputs})
        solution = dict(prob.solution) if prob.solution else None  # the answer as given
        answer = solution["answer"] if solution else None
        if solution:
            for problem in answer_problems(answer) if answer is not None else ():
                c.error(f"{path}.solution.answer", problem)
            for message in draft_errors(answer=answer, published=solution["published"]):
                c.error(f"{path}.solution.published", message)
            generated_steps = attention.is_generated(prob.inputs)  # shown beside every instance
            c.markdown(
                solution["steps"], f"{path}.solution.steps", names, every_instance=generated_steps
            )
        figures = answer_figures(answer)
        tolerance = _tolerance(c, prob.tolerance, f"{path}.tolerance", answer, figures)
        for name, message in tolerance_problems(**tolerance, answer=answer).items():
            c.error(f"{path}.tolerance.{name}", message)
        c.filled(prob.statement, f"{path}.statement")
        if prob.kind == "exercise":
            for message in answer_shown_errors(prob.statement):
                c.error(f"{path}.statement", message)
        generated = attention.is_generated(prob.inputs)
        c.markdown(prob.statement, f"{path}.statement", names, every_instance=generated)
        clean = prob.model_dump(exclude={"tolerance", "solution", "inputs", "ask"})
        clean |= {"inputs": prob.inputs, "ask": prob.ask, "tolerance": tolerance}
        clean |= {"solution": solution}
        clean["lint"] = answer_lint(answer=answer, **tolerance, figures=figures) if solution else []
        _placeholders(c, clean, path)
        _practice_texts(c, clean, path)
        problems.append(clean)
    if over := chapter_work_refusal(weighed):
        c.error(f"{over[0]}.inputs", over[1])
    return problems


def _practice_texts(c: Checker, clean: dict, path: str) -> None:
    problem = {
        "operation": clean["operation"],
        "inputs": clean["inputs"],
        "ask": clean["ask"],
        "tolerance": tolerance_of(clean["tolerance"]),
    }
    answer = clean["solution"]["answer"] if clean["solution"] else None
    for where, message in hints_errors(clean["hints"], problem, f"{path}.hints") + feedback_errors(
        clean["feedback"], problem, answer, f"{path}.feedback"
    ):
        c.error(where, message)


def _placeholders(c: Checker, clean: dict, path: str) -> None:
    """`{{ inputs.x }}` in the statement and steps must name what the problem has."""
    texts = [("statement", clean["statement"])]
    if clean["solution"] is not None:
        texts.append(("solution.steps", clean["solution"]["steps"]))
    for where, text in texts:
        for message in placeholder_errors(
            text, operation=clean["operation"], inputs=clean["inputs"], room=c.typeset
        ):
            c.error(f"{path}.{where}", message)


def _tolerance(c: Checker, given: Tolerance | None, path: str, answer: Any, figures: Any) -> dict:
    """`{digits: N}` (significant figures) or `{rtol, atol}`; cleaned with all three keys."""
    if given is None:
        return {"digits": default_digits(answer, figures), "rtol": UNUSED_RTOL, "atol": UNUSED_ATOL}
    if given.digits is not None:
        for key in sorted(given.model_fields_set - {"digits"}):
            c.error(f"{path}.{key}", "unknown key (allowed: digits)")
        return {"digits": given.digits, "rtol": UNUSED_RTOL, "atol": UNUSED_ATOL}
    for key in ("rtol", "atol"):
        if key not in given.model_fields_set:
            c.error(f"{path}.{key}", "is required")
    return {"digits": None, "rtol": given.rtol or 0.0, "atol": given.atol or 0.0}
