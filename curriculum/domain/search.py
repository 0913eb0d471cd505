"""Search over what readers may see: chapter titles, theses, prose, strand items, figures,
notation, propositions and problems, with a highlighted snippet of the text as readers see it
and a link to the part, a page at a time with the total.

The query is read into terms here (`search_terms.py`) and its words as the index holds them
(`search_words.py`), never by the database; a word of four letters or more that no chapter
holds is read as the course's words nearest it (typo tolerance). Both databases then answer
the same question about the same words: PostgreSQL through a GIN index on each part's tsvector
(written from those words), SQLite by matching the words themselves; the order is also the
same on both: parts whose heading matches first, then in course order (book, chapter, part).
Drafts are never indexed (`search_index.py`), and results are filtered by the chapter's state
at query time as well.
"""

import html
import operator
from dataclasses import dataclass
from functools import reduce
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, Case, Count, Q, QuerySet, When, Window
from django.db.models.expressions import RawSQL
from django.db.models.functions import Length

from curriculum.models import Chapter, SearchEntry, SearchWord

from .search_index import LONGEST_WORD
from .search_terms import SearchRefused, Term, query_terms
from .search_words import (
    TYPO_SHORTEST,
    WORD,
    alike,
    least_similarity,
    length_range,
    quoted,
    swapped,
    typo_edits,
    words,
    words_line,
)
from .windows import window_neighbours

__all__ = ["PAGE", "Hit", "Results", "SearchRefused", "search"]

PAGE = 20  # results in an answer unless `limit` asks for another number
ORDER = ("heading_first", "chapter__book__position", "chapter__number", "position")
TEXTS = ("kind", "heading", "anchor", "body", "title")  # what a hit shows, with its code
SNIPPET_WORDS = 30
# Highlight marks are control characters no indexed text holds (they are stripped on indexing),
# so the rest of the snippet can be escaped as text.
START, STOP = "\x02", "\x03"

Sequence = tuple[str, ...]  # words in this order
Group = list[Sequence]  # any of these
Matcher = tuple[list[Group], bool]  # every group, or (excluded) not all of them


@dataclass(frozen=True)
class Hit:
    code: str
    chapter_title: str
    kind: str
    heading: str
    anchor: str
    snippet_html: str  # escaped text with <mark> around the matched words


@dataclass(frozen=True)
class Results:
    total: int
    offset: int
    limit: int
    hits: list[Hit]
    read_as: dict[str, list[str]]  # a word no chapter holds: the words it was read as

    @property
    def end(self) -> int:
        """How many results are up to the last of this window."""
        return self.offset + len(self.hits)

    @property
    def next_offset(self) -> int | None:
        return self._neighbours()[0]

    @property
    def previous_offset(self) -> int | None:
        return self._neighbours()[1]

    def _neighbours(self) -> tuple[int | None, int | None]:
        return window_neighbours(
            offset=self.offset,
            limit=self.limit,
            count=self.total,
            most=settings.LIMIT_SEARCH_OFFSET,
        )


def search(*, query: str, offset: int = 0, limit: int = PAGE) -> Results:
    """The parts matching `query` from `offset`, `limit` of them, with their total (none for
    a query of no words); raises SearchRefused naming the limit a query or window passes."""
    if not 1 <= limit <= settings.LIMIT_SEARCH_PAGE:
        raise SearchRefused(
            f"limit is 1 to {settings.LIMIT_SEARCH_PAGE} (LIMIT_SEARCH_PAGE)", param="limit"
        )
    if not 0 <= offset <= settings.LIMIT_SEARCH_OFFSET:
        raise SearchRefused(
            f"offset is 0 to {settings.LIMIT_SEARCH_OFFSET} (LIMIT_SEARCH_OFFSET)", param="offset"
        )
    alternatives = query_terms(query)
    read_as = _read_as(alternatives)
    matchers = [[m for t in terms if (m := _matcher(t, read_as))[0]] for terms in alternatives]
    matchers = [ms for ms in matchers if ms]  # common words alone: nothing to find
    if not matchers:
        return Results(0, offset, limit, [], {})
    entries = SearchEntry.objects.exclude(chapter__state=Chapter.State.DRAFT).filter(
        _tsquery(matchers) if connection.vendor == "postgresql" else _like(matchers, "words")
    )
    ordered = entries.annotate(
        heading_first=Case(When(_like(matchers, "heading_words"), then=0), default=1)
    ).order_by(*ORDER)
    page = _page(ordered, offset, limit)
    total = page[0]["total"] if page else entries.count()
    found = {
        w for ms in matchers for groups, out in ms if not out for g in groups for s in g for w in s
    }
    hits = [_hit(row, found) for row in page]
    return Results(total, offset, limit, hits, {k: v for k, v in read_as.items() if v != [k]})


def _page(ordered: QuerySet[SearchEntry], offset: int, limit: int) -> list[dict[str, Any]]:
    """The window's rows with the total, in one statement whose count runs over narrow rows
    (each match's key and order): only the window's rows are read whole. A window function over
    the whole rows carried every match's text through it (QK, a third of the generated course:
    20 ms against 8 in PostgreSQL)."""
    keys = ordered.annotate(total=Window(Count("pk"))).values("pk", "total", *ORDER)
    sql, params = keys[offset : offset + limit].query.sql_with_params()
    name = connection.ops.quote_name
    order = ", ".join(f"page.{name(key)}" for key in ORDER)
    columns = ", ".join(f"e.{name(field)}" for field in TEXTS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT page.total, c.code, {columns} FROM ({sql}) page "
            f"JOIN {name(SearchEntry._meta.db_table)} e ON e.id = page.{name('pk')} "
            f"JOIN {name(Chapter._meta.db_table)} c ON c.id = e.chapter_id ORDER BY {order}",
            params,
        )
        return [dict(zip(("total", "code", *TEXTS), row, strict=True)) for row in cursor]


def _read_as(alternatives: list[list[Term]]) -> dict[str, list[str]]:
    """Each word of a wanted, unquoted term: itself if a chapter holds it (or it is shorter
    than TYPO_SHORTEST or longer than any word the course lists), else the course's words
    nearest it (`alike`), if any. The words are first looked up as they are (`_held`), and
    only those no chapter holds are guessed at (`_near`): both databases fetch every word the
    rules may read for them, so both choose among the same words."""
    wanted = {
        w
        for terms in alternatives
        for t in terms
        if not (t.phrase or t.excluded)
        for w in words(t.text)
    }
    guessed = {w for w in wanted if TYPO_SHORTEST <= len(w) <= LONGEST_WORD}
    missing = guessed - _held(guessed) if guessed else set()
    near = _near(missing) if missing else []
    return {w: (alike(w, near) or [w]) if w in missing else [w] for w in wanted}


def _course_words() -> QuerySet[SearchWord]:
    return SearchWord.objects.exclude(chapter__state=Chapter.State.DRAFT)


def _held(wanted: set[str]) -> set[str]:
    """Those of the words a chapter readers may see holds (the word's btree index)."""
    return set(_course_words().filter(word__in=wanted).values_list("word", flat=True).distinct())


def _near(wanted: set[str]) -> list[str]:
    """The course's words `alike` may read for one of these, and maybe others. PostgreSQL:
    through the trigram index, at the least similarity any of them may have
    (`least_similarity`; the threshold set for this statement's transaction alone), and through
    the word's index, each word with letters swapped (`swapped`: a swap keeps too few trigrams
    to fetch at their similarity). SQLite: the words of a length that could be
    (`length_range`)."""
    if connection.vendor != "postgresql":
        near = reduce(operator.or_, (Q(n__range=length_range(w)) for w in wanted))
        return _words_where(near)
    similar = reduce(operator.or_, (Q(word__trigram_similar=w) for w in wanted))
    swaps = {s for w in wanted for s in swapped(w, typo_edits(w))}
    # a thousandth below: pg_trgm compares its float4 similarities with it
    least = min(map(least_similarity, wanted)) - 0.001
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('pg_trgm.similarity_threshold', %s, true)", [str(least)])
        return _words_where(similar | Q(word__in=swaps))


def _words_where(near: Q) -> list[str]:
    found = _course_words().alias(n=Length("word")).filter(near)
    return list(found.values_list("word", flat=True).distinct())


def _matcher(term: Term, read_as: dict[str, list[str]]) -> Matcher:
    """A term as groups of word sequences: a phrase is one sequence; each word of a plain
    term is a group of the words it is read as."""
    found = words(term.text)
    if term.phrase or term.excluded:
        return ([[tuple(found)]] if found else []), term.excluded
    return [[(w,) for w in read_as[word]] for word in found], False


def _combined(matchers: list[list[Matcher]], seq: Any, any_: Any, all_: Any, not_: Any) -> Any:
    def matcher(groups: list[Group], excluded: bool) -> Any:
        found = all_([any_([seq(s) for s in group]) for group in groups])
        return not_(found) if excluded else found

    return any_([all_([matcher(*m) for m in ms]) for ms in matchers])


def _like(matchers: list[list[Matcher]], field: str) -> Q:
    """The words as a match of the field's words line: the same on either database."""
    return _combined(
        matchers,
        lambda s: Q(**{f"{field}__contains": words_line(s)}),
        lambda qs: reduce(operator.or_, qs),
        lambda qs: reduce(operator.and_, qs),
        operator.invert,
    )


def _tsquery(matchers: list[list[Matcher]]) -> RawSQL:
    """The same question as a tsquery written here, never parsed from what a reader typed."""
    text = _combined(
        matchers,
        lambda s: " <-> ".join(map(quoted, s)),
        lambda qs: "(" + " | ".join(qs) + ")",
        lambda qs: "(" + " & ".join(qs) + ")",
        lambda q: f"!{q}",
    )
    table = SearchEntry._meta.db_table
    return RawSQL(f'"{table}"."vector" @@ %s::tsquery', [text], output_field=BooleanField())


def _hit(row: dict[str, Any], found: set[str]) -> Hit:
    return Hit(
        code=row["code"],
        chapter_title=row["title"],
        kind=row["kind"],
        heading=row["heading"],
        anchor=row["anchor"],
        snippet_html=html.escape(_excerpt(row["body"], found))
        .replace(START, "<mark>")
        .replace(STOP, "</mark>"),
    )


def _excerpt(body: str, found: set[str]) -> str:
    """SNIPPET_WORDS words of the text around its first matched word, each match marked."""
    chunks = body.split()
    marked = [WORD.sub(lambda w: _mark(w[0], found), chunk) for chunk in chunks]
    first = next((n for n, chunk in enumerate(marked) if START in chunk), 0)
    start = max(0, min(first - SNIPPET_WORDS // 2, len(marked) - SNIPPET_WORDS))
    window = marked[start : start + SNIPPET_WORDS]
    return (
        ("… " if start else "")
        + " ".join(window)
        + (" …" if start + SNIPPET_WORDS < len(marked) else "")
    )


def _mark(word: str, found: set[str]) -> str:
    return f"{START}{word}{STOP}" if set(words(word)) & found else word
