"""The course as rows: books, chapters, their parts, problems, verdicts and releases."""

from .claims import ClaimVerdict
from .course import ApparatusLink, Book, Chapter, ChapterReference
from .history import ChapterRevision
from .media import MediaFile
from .parts import Figure, Notation, Proposition, StrandItem
from .practice import Attempt, PracticeTally, ProblemReport
from .prints import PrintedPdf
from .problems import Problem, Solution, Verdict
from .releases import Release
from .reviews import PublishSchedule, Review
from .search import SearchChapter, SearchEntry, SearchWord
from .tokens import ApiToken
from .webhooks import WebhookDelivery, WebhookEndpoint

__all__ = [
    "ApiToken",
    "Attempt",
    "ApparatusLink",
    "ChapterReference",
    "Book",
    "Chapter",
    "ChapterRevision",
    "ClaimVerdict",
    "Figure",
    "MediaFile",
    "Notation",
    "PracticeTally",
    "PrintedPdf",
    "Problem",
    "ProblemReport",
    "Proposition",
    "PublishSchedule",
    "Release",
    "Review",
    "SearchChapter",
    "SearchEntry",
    "SearchWord",
    "Solution",
    "StrandItem",
    "Verdict",
    "WebhookDelivery",
    "WebhookEndpoint",
]
