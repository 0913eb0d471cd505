"""A book's glossary: each term is defined once in the book, by the strand item that lists it
(`defines: [query]`, typically a basics item: "what the words mean"); a text uses it as
`@term:query`, shown as the term linking to its entry on the book's glossary page. A term a
second item defines is an error at both paths; a use of a term the book does not define, or
defines only where readers cannot see it (a draft chapter, an unpublished item), is an error
with the use's path (references.py reports it wherever a dangling reference is reported)."""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from curriculum.models import Chapter, StrandItem

from .terms import term_slug, terms_listed


@dataclass(frozen=True)
class Definition:
    term: str
    code: str  # the chapter that defines it
    path: str  # strands.basics.items[0].defines[1]
    shown: bool  # readers can see it: a published item of a chapter that is no draft


@dataclass
class Terms:
    numeral: str = ""
    page: str = ""  # the book's glossary page
    defined: dict[str, list[Definition]] = field(default_factory=dict)  # by slug


def _own(document: Mapping[str, Any], code: str) -> Iterator[tuple[str, Definition]]:
    """The document's own definitions: shown wherever its published items are (a draft's
    uses are as unseen as its definitions, and publishing shows both at once)."""
    for kind, strand in (document.get("strands") or {}).items():
        for i, item in enumerate(strand.get("items") or [] if isinstance(strand, dict) else []):
            for j, term in enumerate(item.get("defines") or []):
                path = f"strands.{kind}.items[{i}].defines[{j}]"
                shown = bool(item.get("published"))
                yield term_slug(term), Definition(term, code, path, shown)


def _stored(numeral: str, own: str) -> Iterator[tuple[str, Definition]]:
    """The definitions of the book's other chapters, as stored (one query)."""
    items = (
        StrandItem.objects.filter(chapter__book__numeral=numeral)
        .exclude(chapter__code=own)
        .select_related("chapter")
        .order_by("chapter__number", "chapter__code", "strand", "position", "id")
    )
    counted: dict[tuple[str, str], int] = {}
    for item in items:
        i = counted[item.chapter.code, item.strand] = (
            counted.get((item.chapter.code, item.strand), -1) + 1
        )
        draft = item.chapter.state == Chapter.State.DRAFT
        for j, term in enumerate(terms_listed(item.defines)):
            path = f"strands.{item.strand}.items[{i}].defines[{j}]"
            shown = item.published and not draft
            yield term_slug(term), Definition(term, item.chapter.code, path, shown)


def terms_for(document: Mapping[str, Any]) -> Terms:
    """Every term the document's book defines, the document's own definitions in place of what
    is stored of it."""
    numeral, code = document.get("book") or "", document.get("code") or ""
    terms = Terms(numeral, reverse("site:glossary", args=[numeral]) if numeral else "")
    for slug, definition in [*_own(document, code), *_stored(numeral, code)]:
        terms.defined.setdefault(slug, []).append(definition)
    return terms


def definition_errors(terms: Terms, code: str) -> list[tuple[str, str]]:
    """(path, why) for each of this chapter's definitions of a term defined elsewhere too."""
    errors = []
    for definitions in terms.defined.values():
        for here in definitions if len(definitions) > 1 else []:
            if here.code != code:
                continue
            others = [f"{d.code} {d.path}" for d in definitions if d is not here]
            errors.append(
                (here.path, f"the term {here.term} is already defined at {', '.join(others)}")
            )
    return errors


def term_problem(slug: str, terms: Terms) -> str | None:
    definitions = terms.defined.get(slug)
    if not definitions:
        return f"@term:{slug}: Book {terms.numeral} defines no term {slug}"
    if not any(d.shown for d in definitions):
        where = definitions[0]
        return (
            f"@term:{slug}: defined at {where.code} {where.path}, which readers cannot see "
            "(a draft chapter or an unpublished item)"
        )
    return None


def term_target(slug: str, terms: Terms) -> tuple[str, str]:
    """(what a use reads, where it links)."""
    return terms.defined[slug][0].term, f"{terms.page}#term-{slug}"
