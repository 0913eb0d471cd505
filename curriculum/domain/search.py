"""Search over what readers may see: chapter titles, theses, prose, strand items, figures,
notation, propositions and problems, ranked, with a highlighted snippet and a link to the part.

The index is built from the chapter as a reader gets it (`reading.chapter_for_reader`: the
latest release, else the published parts of the working copy), one row per part, each tagged
with the revision it was built from. A chapter's entries are rebuilt once the transaction that
moved its revision commits (`revisions.chapters_moved`, which every writer calls), and after
migrate for any whose entries are of another revision; a search only reads. Drafts are never
indexed, and results are filtered by the chapter's state at query time as well. The query is
read into terms here (`search_terms.py`), never by the database. PostgreSQL ranks by full-text
search over a GIN index; SQLite (the embedded default) falls back to a plain case-insensitive
match of each term.
"""

import html
import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import reduce
from typing import Any

from django.contrib.postgres.search import (
    SearchHeadline,
    SearchQuery,
    SearchRank,
    SearchVector,
)
from django.db import connection, transaction
from django.db.models import F, OuterRef, Q, Subquery

from curriculum.models import Chapter, SearchEntry

from .claims.pattern import claims_typed
from .reading import chapter_for_reader
from .search_terms import CONTROL, SearchRefused, Term, query_terms

__all__ = ["MAX_RESULTS", "Hit", "SearchRefused", "search", "search_index_sync"]

CONFIG = "english"
MAX_RESULTS = 50
SNIPPET_WORDS = 30
# The highlight marks travel through PostgreSQL as control characters no author text holds
# (they are stripped on indexing), so the rest of the snippet can be escaped as text.
START, STOP = "\x02", "\x03"


@dataclass(frozen=True)
class Hit:
    code: str
    chapter_title: str
    kind: str
    heading: str
    anchor: str
    snippet_html: str  # escaped text with <mark> around the matched words


def search(*, query: str, limit: int = MAX_RESULTS) -> list[Hit]:
    """The best `limit` parts for `query` (none for no words); raises SearchRefused with a
    reason for the reader past a limit on its length or terms."""
    alternatives = query_terms(query)
    if not alternatives:
        return []
    entries = SearchEntry.objects.exclude(chapter__state=Chapter.State.DRAFT)
    if connection.vendor == "postgresql":
        hits = _ranked(entries, alternatives)
    else:
        hits = _matched(entries, alternatives)
    return hits[: max(1, min(limit, MAX_RESULTS))]


def _tsquery(alternatives: list[list[Term]]) -> SearchQuery:
    """Each term as plain text (plainto_tsquery, or phraseto_tsquery when quoted), combined
    here: the database never reads an operator a reader typed."""

    def term(t: Term) -> SearchQuery:
        kind = "phrase" if t.phrase else "plain"
        return SearchQuery(t.text, search_type=kind, config=CONFIG, invert=t.excluded)

    return reduce(operator.or_, (reduce(operator.and_, map(term, terms)) for terms in alternatives))


def _ranked(entries: Any, alternatives: list[list[Term]]) -> list[Hit]:
    query = _tsquery(alternatives)
    rows = (
        entries.filter(vector=query)
        .annotate(
            rank=SearchRank(F("vector"), query),
            snippet=SearchHeadline(
                "body",
                query,
                config=CONFIG,
                start_sel=START,
                stop_sel=STOP,
                max_words=SNIPPET_WORDS,
                min_words=SNIPPET_WORDS // 2,
            ),
        )
        .order_by("-rank", "chapter__book__position", "chapter__number", "position")
        .values("chapter__code", "kind", "heading", "anchor", "snippet", "body", "title")[
            :MAX_RESULTS
        ]
    )
    return [_hit(row, row["snippet"] if row["body"] else "") for row in rows]


def _matched(entries: Any, alternatives: list[list[Term]]) -> list[Hit]:
    def term(t: Term) -> Q:
        found = Q(heading__icontains=t.text) | Q(body__icontains=t.text)
        return ~found if t.excluded else found

    rows = (
        entries.filter(
            reduce(operator.or_, (reduce(operator.and_, map(term, ts)) for ts in alternatives))
        )
        .order_by("chapter__book__position", "chapter__number", "position")
        .values("chapter__code", "kind", "heading", "anchor", "body", "title")[:MAX_RESULTS]
    )
    marked = next((t.text for ts in alternatives for t in ts if not t.excluded), "")
    return [_hit(row, _excerpt(row["body"], marked)) for row in rows]


def _hit(row: dict[str, Any], marked: str) -> Hit:
    escaped = html.escape(marked)
    return Hit(
        code=row["chapter__code"],
        chapter_title=row["title"],
        kind=row["kind"],
        heading=row["heading"],
        anchor=row["anchor"],
        snippet_html=escaped.replace(START, "<mark>").replace(STOP, "</mark>"),
    )


def _excerpt(body: str, words: str) -> str:
    """The fallback's snippet: the words around the first match, the match marked."""
    found = body.lower().find(words.lower()) if words else -1
    if found < 0:
        return " ".join(body.split()[:SNIPPET_WORDS])
    before = body[:found].split()[-SNIPPET_WORDS // 2 :]
    after = body[found + len(words) :].split()[: SNIPPET_WORDS // 2]
    match = body[found : found + len(words)]
    return " ".join([*before, f"{START}{match}{STOP}", *after])


# ---------------------------------------------------------------- the index


def search_index_sync(*, chapter_ids: Iterable[int] | None = None) -> int:
    """Rebuild these chapters' entries (all, by default) where they are not of the revision
    readers are now shown; returns how many were rebuilt."""
    chapters = (
        Chapter.objects.all()
        if chapter_ids is None
        else Chapter.objects.filter(pk__in=set(chapter_ids))
    )
    # one statement, so a decision committed meanwhile (which moves a chapter and its entry
    # together) is seen on both sides or on neither
    entry = SearchEntry.objects.filter(chapter=OuterRef("pk")).values("revision")[:1]
    rows = chapters.annotate(indexed=Subquery(entry)).values_list(
        "pk", "state", "revision", "indexed"
    )
    stale = [
        pk
        for pk, state, revision, indexed in rows
        if indexed != (None if state == Chapter.State.DRAFT else revision)
    ]
    for pk in stale:
        _reindex(pk)
    return len(stale)


def search_index_revised(sender: Any, *, chapter_ids: Iterable[int], **kwargs: Any) -> None:
    """The receiver of `revisions.chapters_revised` (connected when the app is ready)."""
    search_index_sync(chapter_ids=chapter_ids)


def _reindex(pk: int) -> None:
    """Under the chapter's row lock, so the revision read is the one the snapshot is of."""
    with transaction.atomic():
        chapter = Chapter.objects.select_for_update().filter(pk=pk).first()
        SearchEntry.objects.filter(chapter_id=pk).delete()
        if chapter is None or chapter.state == Chapter.State.DRAFT:
            return
        snapshot = chapter_for_reader(code=chapter.code).snapshot
        SearchEntry.objects.bulk_create(
            [
                SearchEntry(chapter_id=pk, revision=chapter.revision, position=n, **part)
                for n, part in enumerate(_parts(snapshot))
            ]
        )
        if connection.vendor == "postgresql":
            SearchEntry.objects.filter(chapter_id=pk).update(
                vector=SearchVector("heading", weight="A", config=CONFIG)
                + SearchVector("body", weight="B", config=CONFIG)
            )


def _parts(snapshot: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Every part a reader can read, with the id of the place on the page that shows it."""
    title = snapshot["title"]
    yield _part(
        "chapter",
        "",
        title,
        f"{snapshot.get('thesis') or ''}\n{snapshot.get('summary') or ''}",
        title,
    )
    for key, anchor, heading in (
        ("before_you_start", "before", "Before you start"),
        ("problem_statement", "problem", "The problem"),
    ):
        if snapshot.get(key):
            yield _part("prose", anchor, heading, snapshot[key], title)
    for figure in snapshot["figures"]:
        yield _part(
            "figure",
            f"fig-{figure['label']}",
            f"Fig. {figure['label']}",
            f"{figure['caption']}\n{figure['alt']}",
            title,
        )
    if snapshot["notation"]:
        body = "\n".join(f"{row['symbol']}: {row['meaning']}" for row in snapshot["notation"])
        yield _part("notation", "notation", "Notation", body, title)
    for p in snapshot["propositions"]:
        yield _part(
            "proposition",
            f"prop-{p['number']}",
            f"Prop. {p['number']} {p['title']}",
            f"{p['statement']}\n{p.get('proof') or ''}",
            title,
        )
    for kind, strand in snapshot["strands"].items():
        for n, item in enumerate(strand.get("items", []), start=1):
            yield _part("strand item", f"{kind}-{n}", item["title"], item["body"] or "", title)
    for problem in snapshot["problems"]:
        label = "Worked problem" if problem["kind"] == "worked" else "Exercise"
        yield _part(
            "problem",
            f"problem-{problem['key']}",
            f"{label}: {problem['variant']}",
            problem["statement"],
            title,
        )


def _part(kind: str, anchor: str, heading: str, body: str, title: str) -> dict[str, str]:
    return {
        "kind": kind,
        "anchor": anchor,
        "heading": CONTROL.sub(" ", heading)[:400],
        "body": CONTROL.sub(lambda c: c[0] if c[0] in "\n\t" else " ", claims_typed(body).strip()),
        "title": CONTROL.sub(" ", title),
    }
