"""The maturity ladder and the five strands: the single source of truth for what a level owes."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    code: str
    name: str
    worked: int
    variants: int
    exercises: int

    @property
    def label(self) -> str:
        return f"{self.code} {self.name}"

    @property
    def problems(self) -> int:
        return self.worked + self.exercises


LADDER: tuple[Level, ...] = (
    Level("M0", "Placeholder", worked=0, variants=0, exercises=0),
    Level("M1", "Sketch", worked=1, variants=1, exercises=2),
    Level("M2", "Teaching", worked=3, variants=2, exercises=6),
    Level("M3", "Load-bearing", worked=5, variants=4, exercises=10),
    Level("M4", "Reference", worked=8, variants=5, exercises=16),
)
LEVELS = {level.code: level for level in LADDER}
MATURITY_CHOICES = [(level.code, level.label) for level in LADDER]


@dataclass(frozen=True)
class StrandKind:
    code: str
    description: str


STRANDS: tuple[StrandKind, ...] = (
    StrandKind("basics", "what the words mean"),
    StrandKind("concept", "what to picture"),
    StrandKind("theory", "why it works, and when it does not"),
    StrandKind("mathematics", "derive it, then compute it"),
    StrandKind("practice", "build it, break it, read the papers"),
)
STRAND_CODES = tuple(kind.code for kind in STRANDS)
STRAND_CHOICES = [(kind.code, kind.code) for kind in STRANDS]
MATHEMATICS = "mathematics"

SPINE_SENTENCES = {
    "basics": (
        "The content is vocabulary. Understanding is demonstrated by using the words exactly."
    ),
    "concept": "The content is a picture. Understanding is demonstrated by drawing it.",
    "theory": "The content is argument. Understanding is demonstrated by saying when it fails.",
    "mathematics": (
        "The content is mathematics. Understanding is demonstrated by computation, not recall."
    ),
    "practice": "The content is practice. Understanding is demonstrated by building and breaking.",
}
STRANDS_SENTENCE = (
    "Five strands, not one. {spine} is the spine; the other four are the body. A chapter cannot "
    "pay its way out of teaching with problems, nor out of problems with teaching."
)
