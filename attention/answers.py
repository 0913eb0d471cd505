"""Whether a stored answer can be compared at all, checked when it is saved, not when verified."""

from collections.abc import Mapping

from attention.compare import _numeric
from attention.errors import EngineInputError


def answer_problems(answer: object) -> list[str]:
    """Messages for an answer that is not a number, a rectangular list, or named numbers."""
    if answer is None:
        return ["is required: a number, a list of numbers, or a mapping of named numbers"]
    parts = answer.items() if isinstance(answer, Mapping) else [(None, answer)]
    if isinstance(answer, Mapping) and not answer:
        return ["a mapping of named numbers must name at least one"]
    messages = []
    for key, value in parts:
        try:
            _numeric(value, "answer" if key is None else f"answer.{key}")
        except EngineInputError as error:
            messages += [
                p.message if key is None else f"{key}: {p.message}" for p in error.problems
            ]
    return messages
