"""The search index: one row per part of a chapter as a reader gets it (`reading.
chapter_for_reader`: the latest release, else the published parts of the working copy), the
chapter's words (`SearchWord`) for typo tolerance, and the revision they were built from
(`SearchChapter`, one row per chapter).

Each part keeps its text as the page shows it (`search_text.reader_text` of the HTML the page
renders: words and typeset mathematics, never Markdown or TeX) and its words (`search_words`),
from which PostgreSQL's tsvector is written as it is, unparsed, so both databases compare the
same words. A chapter's rows are rebuilt once the transaction that moved its revision commits
(`revisions.chapters_revised`, which every writer calls), and after migrate for any whose rows
are of another revision; a search only reads. Drafts are never indexed. A rebuild rewrites only
the entries whose text changed (and the words only if they did): every row rewritten leaves a
dead one behind, and a broad search reads through the table's every page.
"""

from collections.abc import Iterable, Iterator
from typing import Any

from django.db import connection, transaction
from django.db.models import OuterRef, Subquery

from curriculum.models import Chapter, SearchChapter, SearchEntry, SearchWord

from .problem_labels import problem_labels
from .reading import chapter_for_reader
from .search_terms import CONTROL
from .search_text import reader_text
from .search_words import tsvector_literal, words, words_line

WORDS_KEPT = 16383  # of one part, on both databases: PostgreSQL's last tsvector position
LONGEST_WORD = 40  # SearchWord.word: longer words are searched exactly, never guessed at
# an entry is kept when these are as stored (the vector is written from the words)
COMPARED = ("kind", "anchor", "heading", "body", "title", "heading_words", "words")


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
    entry = SearchChapter.objects.filter(chapter=OuterRef("pk")).values("revision")[:1]
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
        if chapter is None or chapter.state == Chapter.State.DRAFT:
            for model in (SearchEntry, SearchWord, SearchChapter):
                model.objects.filter(chapter_id=pk).delete()
            return
        entries = [
            _entry(pk, n, part)
            for n, part in enumerate(_parts(chapter_for_reader(code=chapter.code).snapshot))
        ]
        rows = SearchEntry.objects.filter(chapter_id=pk).values("position", *COMPARED)
        stored = {row.pop("position"): row for row in rows}
        kept = {
            e.position
            for e in entries
            if stored.get(e.position) == {f: getattr(e, f) for f in COMPARED}
        }
        SearchEntry.objects.filter(chapter_id=pk).exclude(position__in=kept).delete()
        SearchEntry.objects.bulk_create(e for e in entries if e.position not in kept)
        held = {w for e in entries for w in e.words.split() if len(w) <= LONGEST_WORD}
        words = SearchWord.objects.filter(chapter_id=pk)
        if set(words.values_list("word", flat=True)) != held:
            words.delete()
            SearchWord.objects.bulk_create(SearchWord(chapter_id=pk, word=w) for w in sorted(held))
        SearchChapter.objects.update_or_create(
            chapter_id=pk, defaults={"revision": chapter.revision}
        )


def _entry(pk: int, position: int, part: dict[str, str]) -> SearchEntry:
    heading = words(part["heading"])
    found = (heading + words(part["body"]))[:WORDS_KEPT]
    return SearchEntry(
        chapter_id=pk,
        position=position,
        heading_words=words_line(heading),
        words=words_line(found),
        vector=tsvector_literal(found) if connection.vendor == "postgresql" else None,
        **part,
    )


def _parts(snapshot: dict[str, Any]) -> Iterator[dict[str, str]]:
    """Every part a reader can read, with the id of the place on the page that shows it: its
    text is read from the HTML the page shows (the snapshot's `*_html`)."""
    title = snapshot["title"]
    yield _part("chapter", "", title, [snapshot, "thesis", snapshot, "summary"], title)
    for key, anchor, heading in (
        ("before_you_start", "before", "Before you start"),
        ("problem_statement", "problem", "The problem"),
    ):
        if snapshot.get(key):
            yield _part("prose", anchor, heading, [snapshot, key], title)
    for figure in snapshot["figures"]:
        label = figure["label"]
        body = _part("figure", f"fig-{label}", f"Fig. {label}", [figure, "caption"], title)
        body["body"] = f"{body['body']}\n{CONTROL.sub(' ', figure['alt'])}".strip()
        yield body
    if snapshot["notation"]:
        texts = [t for row in snapshot["notation"] for t in (row, "symbol", row, "meaning")]
        yield _part("notation", "notation", "Notation", texts, title, rows=2)
    for p in snapshot["propositions"]:
        heading = f"Prop. {p['number']} {reader_text(p['title_html'])}"
        yield _part(
            "proposition", f"prop-{p['number']}", heading, [p, "statement", p, "proof"], title
        )
    for kind, strand in snapshot["strands"].items():
        for n, item in enumerate(strand.get("items", []), start=1):
            yield _part("strand item", f"{kind}-{n}", item["title"], [item, "body"], title)
    labels = problem_labels(snapshot["problems"])  # a variant is a slug for authors
    for problem in snapshot["problems"]:
        heading = labels[problem["key"]]
        yield _part("problem", f"problem-{problem['key']}", heading, [problem, "statement"], title)
    if works := snapshot.get("references"):  # formatted works, as the chapter lists them
        texts = [t for work in works for t in ({"work_html": work["html"]}, "work")]
        yield _part("references", "references", "References", texts, title)


def _part(
    kind: str, anchor: str, heading: str, texts: list[Any], title: str, rows: int = 1
) -> dict[str, str]:
    """`texts` alternates holders and keys: each holder's `key_html`, read as text; with
    `rows=2`, each pair of texts is one line ("symbol: meaning")."""
    read = [reader_text(holder.get(f"{key}_html") or "") for holder, key in _pairs(texts)]
    lines = [": ".join(t for t in read[i : i + rows] if t) for i in range(0, len(read), rows)]
    return {
        "kind": kind,
        "anchor": anchor,
        "heading": CONTROL.sub(" ", heading)[:400],
        "body": CONTROL.sub(" ", "\n".join(line for line in lines if line)).strip(),
        "title": CONTROL.sub(" ", title),
    }


def _pairs(texts: list[Any]) -> Iterator[tuple[dict[str, Any], str]]:
    return zip(texts[::2], texts[1::2], strict=True)
