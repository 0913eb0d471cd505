"""A problem may ask at most LIMIT_PROBLEM_WORK of the verifier, known before anything runs.

The verifier evaluates a problem at instance 0 and, when its inputs are generated, at every
reader instance (1..PRACTICE_INSTANCES): the work is the engine's estimate for one evaluation
(`attention.evaluation_work`, from shapes alone) times that many. Files, admin and the API
refuse a problem over the limit, with its path; one stored before it gets an error verdict.
"""

from typing import Any

from django.conf import settings

import attention


def evaluations(inputs: Any) -> int:
    """How many times the verifier evaluates a problem with these inputs."""
    return 1 + settings.PRACTICE_INSTANCES if attention.is_generated(inputs) else 1


def problem_work(*, operation: Any, inputs: Any) -> int | None:
    """The estimated work of verifying a problem; None when the engine cannot tell (inputs it
    refuses, which it reports itself)."""
    if not isinstance(operation, str):
        return None
    once = attention.evaluation_work(operation, inputs)
    return None if once is None else once * evaluations(inputs)


def work_refusal(*, operation: Any, inputs: Any) -> str:
    """Why a problem asks too much of the verifier, naming the limit; "" when it does not.
    For inputs `attention.check` has accepted."""
    work = problem_work(operation=operation, inputs=inputs)
    if work is None or work <= settings.LIMIT_PROBLEM_WORK:
        return ""
    times = evaluations(inputs)
    each = f" ({times} evaluations: instance 0 and {times - 1} for readers)" if times > 1 else ""
    return (
        f"verifying this problem needs about {work:.2g} units of engine work{each}, more than "
        f"LIMIT_PROBLEM_WORK ({settings.LIMIT_PROBLEM_WORK:.2g}): make its inputs smaller"
    )
