"""A book's library: BibTeX text, held on the book (books.yaml's `bibliography`, admin's
Bibliography field), whose works its chapters cite by key (`@cite:vaswani2017`, references.py).

pybtex reads and formats it (its `plain` style, as HTML), so an entry reads as BibTeX users
expect. Its text is read as LaTeX: pybtex decodes accents and dashes (`{\\"u}ber`: über, `--`: an
en dash) and keeps braced words as written (`{BERT}`); the commands it leaves are read here
(`_read`): `\\emph{…}` and its kin as emphasis, `\\LaTeX` as its name, any other command's name
dropped and its argument kept, `\\$` as a dollar, and a formula (`$x^2_{ij}$`) held out of
pybtex's reach and typeset as the project's texts are (markup), so readers never see TeX source.

A library is BibTeX only: CSL-JSON (which pybtex cannot read, nor any library the project
uses) is refused saying so, and so is any text that holds no entry, so a library never reads as
empty by mistake. A library that does not parse, holds a key twice, or holds an entry the style
cannot format is refused whole, each error with its line or key; one past
LIMIT_BIBLIOGRAPHY_BYTES or LIMIT_BIBLIOGRAPHY_ENTRIES is refused before it is read, and so is
one whose @string macros stand for more text than that limit, counted where each is used. A library
stored before a rule it breaks is read as far as it can be: its good entries are shown, and a
citation of a bad one dangles (the gate says so).
"""

import re
from collections.abc import Iterable
from contextlib import AbstractContextManager, ExitStack, suppress
from dataclasses import dataclass
from functools import lru_cache

import nh3
import pybtex.errors
from django.conf import settings
from pybtex.backends.html import Backend
from pybtex.backends.plaintext import Backend as PlainBackend
from pybtex.database import BibliographyData, Entry
from pybtex.database.input.bibtex import Parser
from pybtex.exceptions import PybtexError
from pybtex.richtext import BaseMultipartText, BaseText, Protected, String, Tag, Text
from pybtex.style.formatting.plain import Style
from pybtex.utils import CaseInsensitiveDict

from .markup import TooManyFormulas, math_errors, math_prepared, render, render_format

CITE_KEY = r"[A-Za-z0-9_-]+(?:[.:][A-Za-z0-9_-]+)*"
"""A key a text may cite: BibTeX's usual keys (vaswani2017, Vaswani:2017); a dot or colon only
inside, so the full stop after `@cite:vaswani2017.` ends the sentence, not the key."""

SHOWN_TAGS = {"em", "strong", "span", "a"}  # what pybtex's HTML uses; anything else is text
COMMAND = re.compile(r"\\([A-Za-z]+)\s*")  # one latexcodec leaves: \emph, \url, \LaTeX
STYLED = {"emph": "em", "textit": "em", "textsl": "em", "textbf": "strong"}  # its braced argument
NAMED = {"latex": "LaTeX", "tex": "TeX", "bibtex": "BibTeX"}  # read as their name (any case)
MATH = re.compile(r"(?<!\\)\$(?P<tex>(?:[^$\\]|\\.)+?)(?<!\\)\$")  # $x^2_{ij}$; never \$
HELD = "zqmathzq{}zqmathzq"  # a formula's place while pybtex formats: braced, so kept as it is


CSL_JSON = (
    "this looks like CSL-JSON, which is not read: a book's library is BibTeX "
    "(@article{vaswani2017, ...}); Zotero, Mendeley and citation.js export it"
)
NO_ENTRIES = (
    "no work found: a book's library is BibTeX entries (@article{vaswani2017, ...}); "
    "leave the field empty for none"
)


@dataclass(frozen=True)
class Work:
    key: str
    html: str  # the formatted entry, sanitised
    short: str  # "Vaswani et al. 2017": a citation's hover title


def _too_large(text: str, most_bytes: int) -> list[str]:
    size = len(text.encode())
    if size > most_bytes:
        return [f"{size:,} bytes; at most {most_bytes:,} (LIMIT_BIBLIOGRAPHY_BYTES)"]
    return []


class _Macros(CaseInsensitiveDict):
    """A library's @string macros, each use counted as the text it stands for: macros that
    double each other (`@string{b = a # a}`) make a few hundred bytes stand for megabytes,
    which pybtex would write out, and each of its readers format, before any limit looked."""

    def __init__(self, macros: CaseInsensitiveDict, most: int):
        super().__init__(macros)
        self.most, self.used = most, 0

    def __getitem__(self, key: str) -> str:
        value = super().__getitem__(key)
        self.used += len(value)
        if self.used > self.most:
            raise PybtexError(
                f"its @string macros stand for more than {self.most:,} characters of text, "
                "each counted where it is used (LIMIT_BIBLIOGRAPHY_BYTES)"
            )
        return value


def _parsed(text: str) -> tuple[BibliographyData | None, list[str]]:
    """The library and what pybtex said of it, each error with its line where it has one."""
    with pybtex.errors.capture() as said:
        try:
            # pybtex's own parse_string looks its parser up in every installed package's
            # entry points, each call (a book's save read its library three times)
            parser = Parser()
            parser.macros = _Macros(parser.macros, settings.LIMIT_BIBLIOGRAPHY_BYTES)
            data = parser.parse_string(text)
        except PybtexError as error:
            data = None
            said.append(error)
    return data, [str(error) for error in said]


def _read(text: BaseText) -> BaseText:
    """pybtex's rich text with the TeX commands it leaves read (see the module's note)."""
    if not isinstance(text, BaseMultipartText):
        return text
    parts: list[BaseText] = []
    command = ""  # the one a string ended with: it applies to a braced part after it
    for part in text.parts:
        read = _read(part)
        if isinstance(part, Protected) and command in STYLED:
            read = Tag(STYLED[command], read)
        command = ""
        if isinstance(part, String):
            value = part.value.replace("\\$", "$")  # BibTeX's escaped dollar: a dollar
            found = list(COMMAND.finditer(value))
            command = found[-1][1].lower() if found and found[-1].end() == len(value) else ""
            read = String(COMMAND.sub(_command_read, value))
        parts.append(read)
    return text._create_similar(parts)


def _command_read(found: re.Match[str]) -> str:
    """A command left in a string: its name if NAMED (a space after it kept), else nothing."""
    name = NAMED.get(found[1].lower())
    return name + " " * (found[0][-1].isspace()) if name else ""


def _short(entry: Entry) -> str:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    # render(), not render_as("text"): that looks the backend up in every installed package's
    # entry points, each time (half a seed import's time)
    names = [_read(Text.from_latex(" ".join(p.last_names))).render(PlainBackend()) for p in people]
    who = f"{names[0]} et al." if len(names) > 2 else " and ".join(names)
    return " ".join(part for part in (who, entry.fields.get("year", "")) if part)


@lru_cache(maxsize=1)
def _style() -> Style:
    """The plain style, made once: making one looks up its plugins in every installed
    package's entry points (a third of a seed import's time when made per entry)."""
    return Style()


def _held(entry: Entry) -> tuple[Entry, list[str]]:
    """The entry with each formula of its fields held out of pybtex's reach (it would split it
    at braces and change its case), and the formulas, in order."""
    formulas: list[str] = []

    def hold(found: re.Match[str]) -> str:
        formulas.append(found["tex"])
        return "{" + HELD.format(len(formulas) - 1) + "}"

    fields = {name: MATH.sub(hold, value) for name, value in entry.fields.items()}
    return Entry(entry.type, fields=fields, persons=entry.persons), formulas


def _typeset(html: str, formulas: list[str]) -> str:
    """Each formula held out, typeset where it stood, as the project's texts typeset theirs."""
    for i, tex in enumerate(formulas):
        shown = render(f"${tex}$").strip().removeprefix("<p>").removesuffix("</p>")
        html = html.replace(HELD.format(i), shown)
    return html


def _formatted(key: str, entry: Entry) -> Work:
    """One entry as the plain style writes it; PybtexError when the style cannot."""
    held, formulas = _held(entry)
    try:
        text = _read(_style().format_entry(key, held).text).render(Backend())
    except (KeyError, ValueError, TypeError) as error:  # pybtex's own, for a malformed entry
        raise PybtexError(f"cannot be formatted ({error})") from error
    html = nh3.clean(text, tags=SHOWN_TAGS, attributes={"a": {"href"}, "span": {"class"}})
    return Work(key, _typeset(html, formulas), _short(entry))


def _read_under() -> tuple[int, int, str]:
    """What reading a library depends on besides its text, and so keys what is kept of it: its
    limits, and the renderer and limits its formulas are typeset under (each formula's, and
    all of them together, as in a save)."""
    together = (settings.LIMIT_CHAPTER_FORMULAS, settings.LIMIT_CHAPTER_HTML_BYTES)
    return (
        settings.LIMIT_BIBLIOGRAPHY_BYTES,
        settings.LIMIT_BIBLIOGRAPHY_ENTRIES,
        f"{render_format()}|{together}",
    )


def library_errors(text: str) -> list[str]:
    """Why a book's library cannot be stored; [] when it can."""
    return list(_library_errors(text, *_read_under()))


@lru_cache(maxsize=16)
def _library_errors(
    text: str, most_bytes: int, most_entries: int, typeset_under: str
) -> tuple[str, ...]:
    """`library_errors`, kept for the texts last read: a book's save, its import and the
    model's validation each ask of the same library, and formatting it is most of that.
    `typeset_under` only keys what is kept, as in `_library`."""
    if not text.strip():
        return ()
    if errors := _too_large(text, most_bytes):
        return tuple(errors)
    if text.lstrip().startswith(("[", "{")):
        return (CSL_JSON,)
    data, errors = _parsed(text)
    if data is None:
        return tuple(errors)
    if not data.entries:
        return (NO_ENTRIES,)
    if len(data.entries) > most_entries:
        return (
            f"{len(data.entries):,} works; at most {most_entries:,} (LIMIT_BIBLIOGRAPHY_ENTRIES)",
        )
    try:
        with _formulas_at_hand(data.entries.values()):
            for key, entry in data.entries.items():
                if not re.fullmatch(CITE_KEY, key):
                    errors.append(f"{key}: a key is letters, digits, - and _ (a . or : inside)")
                errors += [
                    f"{key}: {why}" for value in entry.fields.values() for why in math_errors(value)
                ]
                try:
                    _formatted(key, entry)
                except PybtexError as error:
                    errors.append(f"{key}: {error}")
    except TooManyFormulas as error:  # refused before KaTeX runs, or once it made too much
        return (error.reason,)
    return tuple(errors)


def _formulas_at_hand(entries: Iterable[Entry]) -> AbstractContextManager[None]:
    """Every formula of these works typeset in one KaTeX run for the checks and renders made
    inside (`math_prepared`): one run a formula took a sixth of a second each, minutes for a
    library of a thousand works. TooManyFormulas past the limits a save has."""
    return math_prepared([value for entry in entries for value in entry.fields.values()])


def library(text: str) -> dict[str, Work]:
    """Every work of a library that can be shown, by key, in the library's order."""
    return _library(text, *_read_under())


@lru_cache(maxsize=16)
def _library(text: str, most_bytes: int, most_entries: int, typeset_under: str) -> dict[str, Work]:
    if not text.strip() or len(text.encode()) > most_bytes:
        return {}
    data, _ = _parsed(text)
    works: dict[str, Work] = {}
    entries = list((data.entries if data else {}).items())[:most_entries]
    with ExitStack() as stack:
        with suppress(TooManyFormulas):  # stored before the limits: typeset as it is shown
            stack.enter_context(_formulas_at_hand(entry for _, entry in entries))
        for key, entry in entries:
            try:
                works[key] = _formatted(key, entry)
            except PybtexError:
                continue  # stored before the rule it breaks: shown without it
    return works
