"""Glossary terms as an author writes them: a strand item `defines: [query, key]`, and a text
uses one as `@term:query` (its slug: lower case, words joined by -). What each term's slug is,
and what a term may be, is said here; the book's glossary is built in glossary.py."""

from django.utils.text import slugify

TERM_CHARS = 100
DEFINES_CHARS = 500  # an item's terms, as admin's field writes them ("query, key, value")


def term_slug(term: str) -> str:
    """`Attention weights` is @term:attention-weights."""
    return slugify(term)


def terms_listed(value: str) -> list[str]:
    """Admin's field writes the terms separated by commas."""
    return [term.strip() for term in value.split(",") if term.strip()]


def term_errors(term: str) -> list[str]:
    if not term.strip():
        return ["a term is some words, not blank"]
    if len(term) > TERM_CHARS:
        return [f"a term is at most {TERM_CHARS} characters"]
    if "," in term:
        return [f"{term}: a term has no comma (admin separates terms by commas)"]
    if not term_slug(term):
        return [f"{term}: a term needs a letter or digit (its slug names it: @term:...)"]
    return []


def defines_errors(terms: list[str]) -> list[tuple[int | None, str]]:
    """(index, why) for each term an item cannot define; None for the list as a whole."""
    errors: list[tuple[int | None, str]] = [
        (i, why) for i, term in enumerate(terms) for why in term_errors(term)
    ]
    slugs = [term_slug(term) for term in terms]
    errors += [(i, f"{terms[i]}: listed twice") for i in range(len(slugs)) if slugs[i] in slugs[:i]]
    if len(", ".join(terms)) > DEFINES_CHARS:
        errors.append((None, f"at most {DEFINES_CHARS} characters of terms in one item"))
    return errors
