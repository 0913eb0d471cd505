"""What a checked answer leaves behind: a count for the authors' statistics, always, naming no
one; an Attempt row only for a signed-in reader, whose progress it makes."""

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Sum

from curriculum.models import Attempt, PracticeTally

RIGHT, WRONG = "right", "wrong"
"""Tally outcomes besides a mistake's name."""


def _tally(*, code: str, key: str, outcome: str) -> None:
    """One more of `outcome`: an UPDATE, or the row's first INSERT (a race: the UPDATE again)."""
    rows = PracticeTally.objects.filter(chapter_code=code, problem_key=key, outcome=outcome)
    if rows.update(count=F("count") + 1):
        return
    try:
        with transaction.atomic():
            PracticeTally.objects.create(
                chapter_code=code, problem_key=key, outcome=outcome, count=1
            )
    except IntegrityError:
        rows.update(count=F("count") + 1)


def attempt_record(
    *,
    reader: Any,
    code: str,
    key: str,
    release: int | None,
    instance: int,
    answer: str,
    right: bool,
    mistake: str = "",
) -> None:
    """Count a judged answer, and keep it for a signed-in `reader` (an anonymous one: nothing)."""
    outcome = RIGHT if right else (mistake or WRONG)
    _tally(code=code, key=key, outcome=outcome)
    if reader is not None and reader.is_authenticated:
        Attempt.objects.create(
            reader=reader,
            chapter_code=code,
            problem_key=key,
            release=release,
            instance=instance,
            answer=answer[: settings.LIMIT_ANSWER_CHARS],
            right=right,
            mistake=mistake,
        )


@dataclass(frozen=True)
class ProblemStatistics:
    attempts: int
    right: int
    mistakes: list[tuple[str, int]]  # (misconception or feedback name, count), most seen first

    @property
    def share_right(self) -> float | None:
        return self.right / self.attempts if self.attempts else None


def problem_statistics(*, code: str, key: str) -> ProblemStatistics:
    """Every reader's judged answers to one problem, counted."""
    rows = dict(
        PracticeTally.objects.filter(chapter_code=code, problem_key=key)
        .values_list("outcome")
        .annotate(n=Sum("count"))
    )
    mistakes = sorted(
        ((name, n) for name, n in rows.items() if name not in (RIGHT, WRONG)),
        key=lambda pair: (-pair[1], pair[0]),
    )
    return ProblemStatistics(sum(rows.values()), rows.get(RIGHT, 0), mistakes)
