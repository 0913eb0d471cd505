"""Words as search reads them, the same on PostgreSQL and SQLite: both databases are given the
words this module makes and compare them as they are, so a query answers alike on each.

A text's words are its runs of letters and digits after Unicode compatibility folding (NFKC,
then casefold: "x²" reads as x2, "dₖ" as dk, "QK⊤" as qk), less common English words
(STOP_WORDS: "the" finds nothing, on either database), each reduced by the S-stemmer (Harman,
1991: "heads" and "head" are one word, so are "queries" and "query"). A word the course does
not hold is read as the course's words a slip or two from it (`edits`: a letter added, dropped,
changed, or two neighbours swapped) or alike (pg_trgm's similarity: shared trigrams over all
trigrams), nearest first: "atention" finds attention, "wieghts" weight.
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
TYPO_EDITS = 1  # or this few edits off it: one slip (a swap) can cost a short word most trigrams
TYPO_LONG, TYPO_LONG_EDITS = 8, 2  # from this many letters, two slips still leave most of a word
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


LONGEST_LEXEME = 2047
"""Bytes of UTF-8 PostgreSQL holds in one tsvector word: a longer run of letters ("z" 2,048
times) is no word, on either database. No search could name it (LIMIT_SEARCH_CHARS), and
written into the vector it failed the index, and so the write that held it, at commit."""


def words(text: str) -> list[str]:
    """The text's words in order, as they are indexed and searched."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return [stem(w) for w in WORD.findall(folded) if w not in STOP_WORDS and _held(w)]


def _held(word: str) -> bool:
    """Within LONGEST_LEXEME (a letter is at most 4 bytes: most words need no encoding)."""
    return len(word) * 4 <= LONGEST_LEXEME or len(word.encode()) <= LONGEST_LEXEME


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


def typo_edits(word: str) -> int:
    """How many edits a course word may be from the word to be read for it."""
    return TYPO_LONG_EDITS if len(word) >= TYPO_LONG else TYPO_EDITS


def edits(a: str, b: str) -> int:
    """Edits from one word to the other, each one: a letter added, dropped or changed, or two
    neighbours swapped (optimal string alignment: no letter is edited twice, so "ca" is 3 from
    "abc", not 2)."""
    before: list[int] = []
    above = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        row = [i]
        for j, y in enumerate(b, start=1):
            cost = min(above[j] + 1, row[j - 1] + 1, above[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, before[j - 2] + 1)
            row.append(cost)
        before, above = above, row
    return above[-1]


def alike(word: str, candidates: Iterable[str]) -> list[str]:
    """The TYPO_ALTERNATIVES candidates nearest the word, by fewest edits, then most alike:
    those at least TYPO_SIMILARITY alike, and those within `typo_edits` of it that share a
    trigram with it (as all but the most repetitive spellings do: PostgreSQL's trigram index
    finds no other)."""
    most = typo_edits(word)
    ranked = []
    for candidate in set(candidates):
        alikeness = similarity(word, candidate)
        near = alikeness > 0 and abs(len(candidate) - len(word)) <= most
        if alikeness >= TYPO_SIMILARITY or near:
            apart = edits(word, candidate)
            if alikeness >= TYPO_SIMILARITY or apart <= most:
                ranked.append((apart, -alikeness, candidate))
    return [candidate for _, _, candidate in sorted(ranked)[:TYPO_ALTERNATIVES]]


def least_similarity(word: str) -> float:
    """The least similarity a candidate `alike` may read for the word has, unless its edits
    from the word are all swaps (`swapped` holds those): what PostgreSQL's trigram index
    fetches at. Of the word's T trigrams, a letter changed or dropped changes at most 3, a
    letter added 2, a swap 4; so edits not all swaps keep T - 4k + 1 of them or more (and
    `alike` asks for one), among the at most len + 1 + k trigrams of a candidate. A swap keeps
    few: of a word of 6 letters, one keeps 3 of 7 (0.27); of 8, two keep 1 of 9 (0.06)."""
    k, count = typo_edits(word), len(trigrams(word))
    kept = max(count - 4 * k + 1, 1)
    least = kept / (count + len(word) + 1 + k - kept)
    return min(TYPO_SIMILARITY, least)


def swapped(word: str, most: int) -> set[str]:
    """The word with up to `most` pairs of neighbouring letters swapped, no letter twice (the
    word itself among them)."""
    found = {word}
    for i in range(len(word) - 1 if most else 0):
        head = word[:i] + word[i + 1] + word[i]
        found |= {head + tail for tail in swapped(word[i + 2 :], most - 1)}
    return found


def length_range(word: str) -> tuple[int, int]:
    """Lengths a word at least TYPO_SIMILARITY alike may have (trigrams: about length + 2), and
    every length within `typo_edits` of the word's."""
    n, k = len(word) + 2, typo_edits(word)
    shortest, longest = int(n * TYPO_SIMILARITY) - 3, int(n / TYPO_SIMILARITY) + 1
    return max(1, min(shortest, len(word) - k)), max(longest, len(word) + k)
