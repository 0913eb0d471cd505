"""Counting: what each strand has done against its target, the quotas, and the debt.

Works on a chapter loaded by `selectors.chapters_with_parts`, whose problems the database
has marked counted (`verification.state.counted`), so counting costs no queries.
"""

from dataclasses import dataclass

from curriculum.models import Chapter, Problem

from .ladder import LEVELS, MATHEMATICS, STRANDS, Level


@dataclass(frozen=True)
class StrandCount:
    kind: str
    description: str
    done: int
    target: int

    @property
    def met(self) -> bool:
        return self.done >= self.target


@dataclass(frozen=True)
class ChapterCounts:
    level: Level
    strands: tuple[StrandCount, ...]
    worked: int
    variants: int
    exercises: int
    problems_written: int

    @property
    def owes(self) -> int:
        """The fewest problems still to add: variants ride on worked problems, exercises do not."""
        level = self.level
        worked_short = max(level.worked - self.worked, level.variants - self.variants, 0)
        return worked_short + max(level.exercises - self.exercises, 0)

    @property
    def debt_sentence(self) -> str:
        """The seed's sentence, while anything is owed; empty when the quotas are met."""
        if self.owes == 0:
            return ""
        level = self.level
        prefix = "Not yet written. " if self.problems_written == 0 else ""
        return (
            f"{prefix}At {level.code} this chapter owes {plural(level.worked, 'worked problem')} "
            f"across {plural(level.variants, 'distinct variant')}, and "
            f"{plural(level.exercises, 'exercise')}, every one with a published solution."
        )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def counted_problems(chapter: Chapter) -> list[Problem]:
    """Problems whose published solution the engine has verified for exactly what they say."""
    return [p for p in chapter.problems.all() if p.counted]  # type: ignore[attr-defined]  # with_verdict_state


def chapter_counts(chapter: Chapter) -> ChapterCounts:
    level = LEVELS[chapter.maturity]
    counted = counted_problems(chapter)
    worked = [p for p in counted if p.kind == Problem.Kind.WORKED]
    exercises = [p for p in counted if p.kind == Problem.Kind.EXERCISE]
    published_items: dict[str, int] = {}
    for item in chapter.strand_items.all():
        if item.published:
            published_items[item.strand] = published_items.get(item.strand, 0) + 1
    proofs = sum(1 for p in chapter.propositions.all() if p.proof_published and p.proof)
    done = {**published_items, MATHEMATICS: len(counted)}
    done["theory"] = done.get("theory", 0) + proofs
    strands = tuple(
        StrandCount(
            kind.code, kind.description, done.get(kind.code, 0), strand_target(chapter, kind.code)
        )
        for kind in STRANDS
    )
    return ChapterCounts(
        level=level,
        strands=strands,
        worked=len(worked),
        variants=len({p.variant for p in worked}),
        exercises=len(exercises),
        problems_written=len(chapter.problems.all()),
    )


def strand_target(chapter: Chapter, kind: str) -> int:
    if kind == MATHEMATICS:
        return LEVELS[chapter.maturity].problems
    return getattr(chapter, f"{kind}_target")
