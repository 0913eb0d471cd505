"""A generated course of any size, written the way every writer writes: chapter documents
through the importer, verdicts by the verifier's own decision, releases by the gate.

The same seed and sizes always give the same course, so benchmarks and scale tests can
compare runs. Every answer is the engine's, so every chapter passes the gate and is released.
"""

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import attention
from curriculum.models import Chapter, Verdict

from .chapter_files import books_import, chapter_import
from .gate import ChapterPublish
from .ladder import LADDER, MATHEMATICS, STRAND_CODES, Level
from .verification import jsonable, verdicts_decide

ROMAN = [
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]
VARIANTS = ("softmax-row", "softmax-block", "attention-uniform", "attention-peaked", "mixed")
TEACHING_STRANDS = [kind for kind in STRAND_CODES if kind != MATHEMATICS]


class CourseExists(Exception):
    """The generator writes a new course; it never overwrites chapters already there."""


@dataclass(frozen=True)
class CourseSize:
    books: int = 12
    chapters: int = 25
    problems: int = 40
    items: int = 30
    releases: int = 3


def roman(number: int) -> str:
    out = ""
    for value, letters in ROMAN:
        while number >= value:
            out, number = out + letters, number - value
    return out


def course_generate(
    *, seed: int, size: CourseSize, progress: Callable[[str], None] | None = None
) -> list[str]:
    """Write the course; returns the chapter codes. Raises CourseExists if any is there."""
    numerals = [roman(b + 1) for b in range(size.books)]
    codes = [f"{n}.{c + 1}" for n in numerals for c in range(size.chapters)]
    if taken := list(Chapter.objects.filter(code__in=codes).values_list("code", flat=True)[:3]):
        raise CourseExists(f"chapters {', '.join(taken)} already exist: use an empty database")
    books_import(document={"books": [_book(n) for n in numerals]})
    for code in codes:
        rng = random.Random(f"{seed}:{code}")
        document = chapter_document(rng, code, size)
        for release in range(1, size.releases + 1):
            document["thesis"] = f"Attention, {code}, as revised for release {release}."
            chapter_import(document=document)
            _decide_pending(code)
            ChapterPublish(chapter=Chapter.objects.get(code=code), via="generate_course").execute()
        if progress is not None:
            progress(code)
    return codes


def _book(numeral: str) -> dict:
    return {
        "numeral": numeral,
        "title": f"Generated book {numeral}",
        "slug": f"generated-{numeral.lower()}",
        "description": "A book the course generator wrote.",
    }


def _decide_pending(code: str) -> None:
    """As the worker would; a worker on the same broker finds nothing left to do."""
    pending = Verdict.objects.filter(
        solution__problem__chapter__code=code, status=Verdict.Status.PENDING
    ).values_list("solution_id", "fingerprint")
    verdicts_decide(checks=list(pending))


def _level(problems: int) -> tuple[Level, int]:
    """The highest maturity these many problems can meet, and how many of them are worked."""
    worked = math.ceil(problems * 2 / 5)
    fits = [
        level
        for level in LADDER
        if worked >= level.worked
        and problems - worked >= level.exercises
        and min(worked, len(VARIANTS)) >= level.variants
    ]
    return fits[-1], worked


def chapter_document(rng: random.Random, code: str, size: CourseSize) -> dict:
    numeral, number = code.split(".")
    level, worked = _level(size.problems)
    strands: dict[str, dict] = {kind: {"target": 0, "items": []} for kind in TEACHING_STRANDS}
    for i in range(size.items):
        strand = strands[TEACHING_STRANDS[i % len(TEACHING_STRANDS)]]
        strand["items"].append(
            {"title": f"Item {i + 1}", "body": f"What $x_{{{i}}}$ means here.", "published": True}
        )
        strand["target"] += 1
    strands[MATHEMATICS] = {"target": level.problems}
    strands = {kind: strands[kind] for kind in STRAND_CODES}  # the order documents keep
    return {
        "code": code,
        "book": numeral,
        "number": int(number),
        "title": f"Generated chapter {code}",
        "author": "The generator",
        "thesis": "",
        "summary": "Weights from scores, outputs from weights.",
        "maturity": level.code,
        "spine": MATHEMATICS,
        "state": "in_progress",
        "before_you_start": "Softmax, and the product $QK^\\top$.",
        "problem_statement": "Compute what attention gives.",
        "strands": strands,
        "figures": [],
        "apparatus": [],
        "notation": [{"symbol": "Q", "meaning": "the queries"}],
        "propositions": [],
        "problems": [_problem(rng, i, i < worked) for i in range(size.problems)],
    }


def _problem(rng: random.Random, i: int, worked: bool) -> dict:
    variant = VARIANTS[i % len(VARIANTS)]
    if variant.startswith("softmax"):
        operation, inputs = "softmax", {"scores": _matrix(rng, 2, 3)}
        statement = "Compute the softmax of each row of $S$."
    else:
        operation = "scaled_dot_product_attention"
        inputs = {"q": _matrix(rng, 2, 2), "k": _matrix(rng, 2, 2), "v": _matrix(rng, 2, 2)}
        statement = "Compute $\\operatorname{softmax}(QK^\\top/\\sqrt{d})V$."
    ask = {"output": "out"}
    answer = jsonable(attention.evaluate(operation, inputs, ask))
    return {
        "key": f"p{i + 1}",
        "kind": "worked" if worked else "exercise",
        "variant": variant,
        "statement": statement,
        "operation": operation,
        "inputs": inputs,
        "ask": ask,
        "tolerance": {"rtol": 1e-6, "atol": 0.0},  # an entry as small as 1e-9 still counts
        "solution": {
            "steps": "Exponentiate, normalise, then mix.",
            "answer": answer,
            "published": True,
        },
    }


def _matrix(rng: random.Random, rows: int, cols: int) -> list[list[int]]:
    return [[rng.randint(-3, 3) for _ in range(cols)] for _ in range(rows)]
