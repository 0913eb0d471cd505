"""What a reader's search asks for, read by this project rather than by the database.

The syntax is the familiar one (PostgreSQL's websearch): words are all required, `"quoted
words"` must appear in that order, `-word` leaves out parts holding it, and `or` between terms
offers alternatives. Each term's text then reaches the database only as plain text (never as
query operators), and a query has at most LIMIT_SEARCH_CHARS characters and LIMIT_SEARCH_TERMS
terms: PostgreSQL's own reader of that syntax nests one operator per `-` and fails past 32 of
them ("tsquery stack too small"), which a reader must never meet.
"""

import re
from dataclasses import dataclass

from django.conf import settings

CONTROL = re.compile("[\x00-\x1f\x7f]")  # PostgreSQL refuses NUL; none of them is a word
TOKEN = re.compile(r'(-*)"([^"]*)"?|(\S+)')


class SearchRefused(ValueError):
    """The query cannot be searched; the message says why, naming the limit, and `param` which
    parameter passed it."""

    def __init__(self, message: str, *, param: str = "q") -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class Term:
    text: str  # read by the database as plain words
    phrase: bool = False  # quoted: these words, in this order
    excluded: bool = False  # -word: parts without it


def query_normal(query: str) -> str:
    """The query as searched: control characters read as spaces, runs of space as one."""
    return " ".join(CONTROL.sub(" ", query).split())


def query_terms(query: str) -> list[list[Term]]:
    """Alternatives, each a list of terms all required (none for a query of no words); raises
    SearchRefused past a limit."""
    words = query_normal(query)
    if len(words) > settings.LIMIT_SEARCH_CHARS:
        raise SearchRefused(
            f"a search is at most {settings.LIMIT_SEARCH_CHARS} characters (LIMIT_SEARCH_CHARS)"
        )
    alternatives: list[list[Term]] = [[]]
    count = 0
    for dashes, quoted, word in TOKEN.findall(words):
        if not quoted and word.lower() == "or":
            alternatives.append([])
            continue
        text = (quoted if word == "" else word.lstrip("-")).strip()
        if not text:  # a lone dash or empty quotes: nothing to find
            continue
        count += 1
        if count > settings.LIMIT_SEARCH_TERMS:
            raise SearchRefused(
                f"a search is at most {settings.LIMIT_SEARCH_TERMS} words (LIMIT_SEARCH_TERMS)"
            )
        excluded = bool(dashes) if word == "" else word.startswith("-")
        alternatives[-1].append(Term(text, phrase=word == "", excluded=excluded))
    return [terms for terms in alternatives if terms]
