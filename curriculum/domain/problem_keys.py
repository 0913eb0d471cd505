"""Where a chapter's next problem goes: the next free key (p1, p2, …) and the next position.

One past the highest pN in use, so a deleted problem's key is never offered while a later one
exists, and an existing key never is.
"""

from typing import NamedTuple

from django.db.models import Max

from curriculum.models import Problem


class NextProblem(NamedTuple):
    key: str
    position: int


def next_key(keys) -> str:
    numbers = [int(k[1:]) for k in keys if k[:1] == "p" and k[1:].isdigit()]
    return f"p{max(numbers, default=0) + 1}"


def next_problem(*, chapter_id: int) -> NextProblem:
    problems = Problem.objects.filter(chapter_id=chapter_id)
    return NextProblem(
        key=next_key(problems.values_list("key", flat=True)),
        position=(problems.aggregate(n=Max("position"))["n"] or 0) + 1,
    )
