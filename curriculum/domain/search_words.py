"""Words as search reads them, the same on PostgreSQL and SQLite: both databases are given the
words this module makes and compare them as they are, so a query answers alike on each.

A text's words are its runs of letters and digits after Unicode compatibility folding (NFKC,
then casefold: "x²" reads as x2, "dₖ" as dk, "QK⊤" as qk), less common English words
(STOP_WORDS: "the" finds nothing, on either database), each reduced by the S-stemmer (Harman,
1991: "heads" and "head" are one word, so are "queries" and "query"). A word the course does
not hold is read as the course's words most like it (pg_trgm's similarity: shared trigrams over
all trigrams), so "atention" finds attention.
"""

import re
import unicodedata
from collections.abc import Iterable

WORD = re.compile(r"[^\W_]+")
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "no",
        "not",
        "of",
        "on",
        "or",
        "so",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "which",
        "will",
        "with",
    ]
)
TYPO_SHORTEST = 4  # shorter words are too short to guess at: they must be exact
TYPO_SIMILARITY = 0.5  # of a word the course holds, to be read for one it does not
TYPO_ALTERNATIVES = 3  # the most alike, at most


def stem(word: str) -> str:
    """The S-stemmer: plurals to their singular (queries: query, heads: head, glass: glass)."""
    if word.endswith("ies") and not word.endswith(("eies", "aies")) and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")) and len(word) > 3:
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")) and len(word) > 3:
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """The text's words in order, as they are indexed and searched."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return [stem(w) for w in WORD.findall(folded) if w not in STOP_WORDS]


def words_line(found: Iterable[str]) -> str:
    """Words as one line with a space on either side, so `contains " w "` finds a word and
    `contains " w v "` a phrase."""
    return f" {' '.join(found)} "


def tsvector_literal(found: list[str]) -> str:
    """The words with their positions as a tsvector PostgreSQL reads without parsing them."""
    positions: dict[str, list[str]] = {}
    for place, word in enumerate(found, start=1):
        positions.setdefault(word, []).append(str(min(place, 16383)))
    return " ".join(f"{quoted(word)}:{','.join(at[:256])}" for word, at in positions.items())


def quoted(word: str) -> str:
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def trigrams(word: str) -> set[str]:
    padded = f"  {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def similarity(a: str, b: str) -> float:
    """pg_trgm's similarity of two words: trigrams shared over trigrams of either."""
    first, second = trigrams(a), trigrams(b)
    return len(first & second) / len(first | second)


def alike(word: str, candidates: Iterable[str]) -> list[str]:
    """The TYPO_ALTERNATIVES candidates most like the word, none below TYPO_SIMILARITY."""
    scored = sorted((-similarity(word, c), c) for c in set(candidates))
    return [c for score, c in scored if -score >= TYPO_SIMILARITY][:TYPO_ALTERNATIVES]


def length_range(word: str) -> tuple[int, int]:
    """Lengths a word at least TYPO_SIMILARITY alike may have (trigrams: about length + 2)."""
    n = len(word) + 2
    return max(1, int(n * TYPO_SIMILARITY) - 3), int(n / TYPO_SIMILARITY) + 1
