"""The course as rows: books, chapters, their parts, problems, verdicts and releases."""

from .claims import ClaimVerdict
from .course import ApparatusLink, Book, Chapter
from .media import MediaFile
from .parts import Figure, Notation, Proposition, StrandItem
from .practice import Attempt, PracticeTally, ProblemReport
from .problems import Problem, Solution, Verdict
from .releases import Release
from .reviews import PublishSchedule, Review
from .search import SearchEntry, SearchWord
from .tokens import ApiToken

__all__ = [
    "ApiToken",
    "Attempt",
    "ApparatusLink",
    "Book",
    "Chapter",
    "ClaimVerdict",
    "Figure",
    "MediaFile",
    "Notation",
    "PracticeTally",
    "Problem",
    "ProblemReport",
    "Proposition",
    "PublishSchedule",
    "Release",
    "Review",
    "SearchEntry",
    "SearchWord",
    "Solution",
    "StrandItem",
    "Verdict",
]
