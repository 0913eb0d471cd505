"""Cross-references: a text names a proposition, figure or problem by its label, in its own
chapter or another, or a chapter or Book 0 entry by its code; readers see a link showing the
target's current number (and its title on hover), so no typed "Prop. 2" goes stale.

    @prop:2  @prop:softmax-shift  @fig:4  @problem:p3  @eq:score   in the chapter's own parts
    @II.3/prop:2  @0.LA.01/fig:1                                    in another chapter
    @II.3  @0.LA.01                                                  a chapter itself
    @cite:vaswani2017  @term:attention-weights             the book's library and glossary

A proposition is called by its label, or by its number when it has none; a figure by its label
(its number as the caption prints it, "Fig. 4"); a problem by its key, named as readers call it
(`problem_labels`: "Worked problem 2", "Exercise 1"); a display equation by the label that ends its
line (``$$ s = q k $$ (score)``), numbered in the chapter's order ("Eq. (1)"). A reference
that names nothing, or a chapter readers cannot see (a draft), is an error with its path, in a
problem's hints and feedback as anywhere else. Links are made when the page is rendered, so a
release keeps the numbers it was released with; another chapter that has a release is linked at
its latest release's own address, whose numbers never change; the chapters a text names are
stored (`references_store`), so a page naming one moves when it does (`revisions`). A citation
and a term belong to the chapter's book (citations.py, glossary.py). A chapter's own parts are
linked in its page (`#prop-2`); shown on another page (practice), at the chapter's page
(`links_to_page`).
"""

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils.html import escape

from curriculum.models import Chapter, ChapterReference, Release
from curriculum.models.course import CODE_FORM

from .bibliography import CITE_KEY
from .citations import Cited, cite_problem, cite_target, cited_in
from .claims.pattern import CLAIM
from .documents import chapter_document
from .glossary import Terms, definition_errors, term_problem, term_target, terms_for
from .markup import EQUATION_NUMBER, PARSER, formulas
from .problem_labels import problem_labels
from .selectors import ChapterDocuments, chapters_with_parts
from .texts import chapter_texts, practice_texts

KINDS = {"prop": "proposition", "fig": "figure", "problem": "problem", "eq": "equation"}
LABEL = r"[A-Za-z0-9_-]+"
REFERENCE = re.compile(
    rf"(?<![\w@/\\])@(?:(?P<code>{CODE_FORM})(?:/(?P<kind>prop|fig|problem|eq):(?P<label>{LABEL}))?"
    rf"|(?P<own>prop|fig|problem|eq):(?P<own_label>{LABEL})"
    rf"|(?P<shelf>cite|term):(?P<key>{CITE_KEY}))"
)
BACKTICKS = re.compile(r"`+")
PARAGRAPH_END = re.compile(r"\n[ \t]*\n")


def _code_spans(text: str) -> Iterator[tuple[int, int]]:
    """Inline code as CommonMark reads it: a run of backticks closed by the next run as long, in
    the same paragraph; a run that none closes is a backtick shown. Each run is looked at once
    (a regex had spent minutes on runs of growing length)."""
    start = 0
    for end in [found.start() for found in PARAGRAPH_END.finditer(text)] + [len(text)]:
        runs = [found.span() for found in BACKTICKS.finditer(text, start, end)]
        of_length: dict[int, list[int]] = {}
        for index, (first, last) in enumerate(runs):
            of_length.setdefault(last - first, []).append(index)
        index = 0
        while index < len(runs):
            first, last = runs[index]
            same = of_length[last - first]
            after = bisect.bisect_right(same, index)
            if after < len(same):
                yield first, runs[same[after]][1]
                index = same[after]
            index += 1
        start = end


def _code_blanked(text: str) -> str:
    """The text with what Markdown shows as code (blocks and spans) blanked, its length kept."""
    blanked, kept, shown = text, [], 0
    if any(mark in text for mark in ("```", "~~~", "    ", "\t")):  # a block may be code
        lines = text.split("\n")
        for token in PARSER.parse(text):
            if token.type in ("fence", "code_block") and token.map:
                for number in range(*token.map):
                    lines[number] = " " * len(lines[number])
        blanked = "\n".join(lines)
    for first, last in _code_spans(blanked) if "`" in blanked else ():
        kept += [blanked[shown:first], " " * (last - first)]
        shown = last
    return "".join(kept) + blanked[shown:]


def references_in(text: str) -> Iterator[re.Match]:
    """The references a text makes: none in code, which shows what it holds as written, nor
    one escaped as Markdown escapes, \\@II.3 (each shows its @ and words, unlinked)."""
    if "@" not in text:
        return iter(())
    return REFERENCE.finditer(_code_blanked(text))


CODE_LIKE = re.compile(r"(?<![\w@/\\])@(?:[IVXLC]+|0\.[A-Z]{2})\.[0-9]+(?![0-9])", re.IGNORECASE)
"""What reads as a chapter's code after an @ in any case or with a leading zero (@ii.3, @II.04,
@0.la.1): unless it is one, a typo that would stay plain text, never linked nor checked."""


def codes_mistyped(text: str) -> list[str]:
    """Each @code in the text (outside code, unescaped) that is not a chapter's code as written."""
    if "@" not in text:
        return []
    blanked = _code_blanked(text)
    found = []
    for near in CODE_LIKE.finditer(blanked):
        reference = REFERENCE.match(blanked, near.start())
        if reference is None or reference["code"] != near.group()[1:]:
            found.append(near.group())
    return found


EQUATION = re.compile(
    r"^(?P<open>[ \t]*\$\$)(?P<tex>(?:(?!\$\$)[\s\S])*?)\$\$[ \t]*\((?P<label>[^()$\n]*)\)[ \t]*$",
    re.MULTILINE,
)
"""A labelled display equation, $$...$$ (label) closing its line: numbered in chapter order."""


@dataclass(frozen=True)
class Target:
    text: str  # what the link reads: "Prop. 2"
    title: str  # shown on hover
    anchor: str  # the place on the chapter's page
    tag: int | None = None  # an equation's number, set beside it as \tag{n}


@dataclass
class Chapters:
    """What references may point at: each chapter's targets by (kind, label), and the state of
    every chapter named."""

    own: str
    targets: dict[str, dict[tuple[str, str], Target]] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    hidden: set[str] = field(default_factory=set)  # drafts: readers cannot see them
    pages: dict[str, str] = field(default_factory=dict)  # where another chapter is read
    released: set[str] = field(default_factory=set)  # read at their latest release's address
    cited: Cited = field(default_factory=Cited)  # the book's library, the works cited here
    terms: Terms = field(default_factory=Terms)  # the book's glossary


def targets_of(document: Mapping[str, Any]) -> dict[tuple[str, str], Target]:
    """Every target a chapter document offers, by (kind, label)."""
    targets: dict[tuple[str, str], Target] = {}
    for prop in document.get("propositions") or []:
        target = Target(
            f"Prop. {prop['number']}", _hover(prop.get("title") or ""), f"prop-{prop['number']}"
        )
        targets["prop", str(prop["number"])] = target
        if prop.get("label"):
            targets["prop", prop["label"]] = target
    for figure in document.get("figures") or []:
        targets["fig", str(figure["label"])] = Target(
            f"Fig. {figure['label']}",
            _hover(figure.get("caption") or "")[:120],
            f"fig-{figure['label']}",
        )
    problems = document.get("problems") or []
    kinds = [{"key": p["key"], "kind": p.get("kind", "exercise")} for p in problems]
    for key, label in problem_labels(kinds).items():  # a variant is a slug for authors
        targets["problem", key] = Target(label, "", f"problem-{key}")
    for label, number in _equations(document).items():
        targets["eq", label] = Target(f"Eq. ({number})", "", f"eq-{label}", number)
    return targets


def _hover(text: str) -> str:
    """A title or caption as a link's hover text: on one line, each claim as the number it
    types. The claim's mark, placed later in the whole rendered text, had landed inside the
    link's title attribute and broken it open (a hostile round)."""
    return " ".join(CLAIM.sub(lambda found: found["typed"], text).split())


def _equations(document: Mapping[str, Any]) -> dict[str, int]:
    """Each labelled equation's number, in the order the chapter's texts hold them."""
    numbers: dict[str, int] = {}
    for _, text, shown, _ in chapter_texts(document):  # a draft part's equations are not shown
        for found in EQUATION.finditer(text) if shown and "$$" in text else ():
            numbers.setdefault(found["label"], len(numbers) + 1)
    return numbers


def equation_errors(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A label references could not name, or one that two equations carry."""
    errors, seen = [], set()
    for path, text, _, _ in chapter_texts(document):
        for found in EQUATION.finditer(text) if "$$" in text else ():
            label = found["label"]
            if not re.fullmatch(f"{LABEL}", label) or len(label) > 50:
                errors.append((path, f"equation label ({label}): letters, digits, - and _ only"))
            elif label in seen:
                errors.append((path, f"equation label ({label}) appears twice"))
            seen.add(label)
    return errors


def _referring(document: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(path, text) of every text a reference may be written in: the chapter's, and its
    problems' hints and feedback."""
    for path, text, _, _ in chapter_texts(document):
        yield path, text
    yield from practice_texts(document)


def _named(texts: Iterable[str]) -> set[str]:
    return {found["code"] for text in texts for found in references_in(text) if found["code"]}


def chapters_named(document: Mapping[str, Any]) -> set[str]:
    """The codes of the other chapters and Book 0 entries the document's texts name."""
    return _named(text for _, text in _referring(document)) - {document.get("code")}


def references_store(
    *, chapter_ids: Iterable[int] | None = None, documents: ChapterDocuments | None = None
) -> None:
    """Store the chapters each of these chapters' texts name (every chapter's, when None), so
    that a move of one moves the pages naming it (`revisions.chapters_moved`): a retitled or
    newly released chapter is read at its new title and address, a withdrawn one no more.
    `documents`: theirs, when others read them too (`revised_documents`)."""
    if documents is None:
        every = Chapter.objects.values_list("pk", flat=True)
        documents = ChapterDocuments(every if chapter_ids is None else chapter_ids)
    named = {
        chapter.pk: _named(text for _, text in _referring(document)) - {chapter.code}
        for chapter, document in documents()
    }
    codes = set().union(*named.values())
    ids = dict(Chapter.objects.filter(code__in=codes).values_list("code", "pk")) if codes else {}
    for pk, names in named.items():
        targets = {ids[code] for code in names if code in ids}
        with transaction.atomic():
            made = ChapterReference.objects.filter(chapter_id=pk)
            made.exclude(target_id__in=targets).delete()
            ChapterReference.objects.bulk_create(
                [ChapterReference(chapter_id=pk, target_id=t) for t in sorted(targets)],
                ignore_conflicts=True,
            )


def chapters_for(document: Mapping[str, Any]) -> Chapters:
    """The targets of the document itself and of every chapter its texts name (one query)."""
    own = document.get("code") or ""
    index = Chapters(own=own, targets={own: targets_of(document)})
    index.titles[own] = document.get("title") or ""
    referring = sorted(_referring(document), key=lambda pair: _page_order(pair[0]))
    texts = [text for _, text in referring if "@" in text]
    shelved = [(found["shelf"], found["key"]) for text in texts for found in references_in(text)]
    shelved = [pair for pair in shelved if pair[0]]
    if any(kind == "cite" for kind, _ in shelved):
        index.cited = cited_in(document, [key for kind, key in shelved if kind == "cite"])
    if any(kind == "term" for kind, _ in shelved) or _defines(document):
        index.terms = terms_for(document)
    named = _named(texts) - {own}
    if not named:
        return index
    released: dict[str, Release] = {}
    latest = Release.objects.filter(chapter__code__in=named).select_related("chapter")
    for each in latest.order_by("number"):
        released[each.chapter.code] = each  # the latest, last
    for chapter in chapters_with_parts().filter(code__in=sorted(named)):
        code = chapter.code
        release = released.get(code)
        if release is not None:  # a release is read at its own address, for good
            index.targets[code] = targets_of(release.snapshot)
            index.titles[code] = release.snapshot["title"]
            index.pages[code] = reverse("site:release", args=[code, release.number])
            index.released.add(code)
        else:
            index.targets[code] = targets_of(chapter_document(chapter))
            index.titles[code] = chapter.title
            index.pages[code] = reverse("site:chapter", args=[code])
        if chapter.state == Chapter.State.DRAFT:
            index.hidden.add(code)
    return index


PAGE_ORDER = ("thesis", "summary", "before", "problem_s", "figures", "notation", "propositions")


def _page_order(path: str) -> int:
    """Where the chapter's page shows a text: citations are numbered in reading order."""
    ranks = [i for i, start in enumerate(PAGE_ORDER) if path.startswith(start)]
    return ranks[0] if ranks else len(PAGE_ORDER) + (not path.startswith("strands"))


def _defines(document: Mapping[str, Any]) -> bool:
    strands = (document.get("strands") or {}).values()
    return any(item.get("defines") for strand in strands for item in strand.get("items") or [])


def _problem(found: re.Match, index: Chapters) -> str | None:
    """Why a reference names nothing readers can see; None when it resolves."""
    if found["shelf"] == "cite":
        return cite_problem(found["key"], index.cited)
    if found["shelf"] == "term":
        return term_problem(found["key"], index.terms)
    code = found["code"] or index.own
    kind, label = (
        (found["kind"], found["label"]) if found["code"] else (found["own"], found["own_label"])
    )
    if code not in index.targets:
        return f"{found.group()}: there is no chapter {code}"
    if code in index.hidden:
        return f"{found.group()}: {code} is a draft, which readers cannot see"
    if kind and (kind, label) not in index.targets[code]:
        have = sorted(lab for k, lab in index.targets[code] if k == kind)
        listed = ", ".join(have) or "none"
        return f"{found.group()}: {code} has no {KINDS[kind]} {label} (it has: {listed})"
    return None


def reference_errors(
    document: Mapping[str, Any], index: Chapters | None = None
) -> list[tuple[str, str]]:
    """(path, why) for each reference that names nothing, or nothing readers can see."""
    index = index or chapters_for(document)
    errors = equation_errors(document) + definition_errors(index.terms, index.own)
    for path, text in _referring(document):
        if "@" in text and any(REFERENCE.search(tex) for tex, _ in formulas(text)):
            errors.append((path, "a reference inside a formula breaks it: write it in prose"))
        for found in references_in(text):
            if problem := _problem(found, index):
                errors.append((path, f"reference {problem}"))
        for mistyped in codes_mistyped(text):
            errors.append(
                (
                    path,
                    f"reference {mistyped}: a chapter's code is written as II.4 or 0.LA.01 "
                    r"(capital numerals, no leading zero); to show it as text, write \@",
                )
            )
    return errors


def release_reference_errors(
    document: Mapping[str, Any], index: Chapters | None = None
) -> list[tuple[str, str]]:
    """(path, why) for each part of another chapter named that a release could not keep: a
    release is fixed text, and a chapter with no release of its own is read as its working
    copy, where the part may be renumbered or removed (the release's link would then land on
    another, or nowhere). A chapter named alone stays at its address whatever it becomes."""
    index = index or chapters_for(document)
    errors = []
    for path, text in _referring(document):
        for found in references_in(text):
            code = found["code"]
            other = code and code != index.own and code in index.targets
            if other and found["kind"] and code not in index.released:
                errors.append(
                    (
                        path,
                        f"reference {found.group()}: {code} has no release, so a release of "
                        f"this chapter would link a {KINDS[found['kind']]} its working copy "
                        f"may renumber or remove: publish {code} first, or name the chapter "
                        f"alone (@{code})",
                    )
                )
    return errors


def _escaped(text: str) -> str:
    return re.sub(r"([\\\[\]*_`<>])", r"\\\1", text)


def _tagged(found: re.Match, index: Chapters) -> str:
    """A labelled equation with its number set beside it."""
    target = index.targets[index.own].get(("eq", found["label"]))
    if target is None or target.tag is None or "\\tag" in found["tex"]:
        return found.group()
    tex = found["tex"].rstrip()
    return f"{found['open']}{tex} {EQUATION_NUMBER}{{{target.tag}}}$$ ({found['label']})"


def references_linked(text: str, index: Chapters) -> str:
    """The text with each reference as a Markdown link reading the target's current number;
    one that names nothing is left as written (validation and the gate report it)."""
    if "$$" in text:
        text = EQUATION.sub(lambda found: _tagged(found, index), text)
    if "@" not in text:
        return text

    def link(found: re.Match) -> str:
        if _problem(found, index) is not None:
            return found.group()
        if found["shelf"]:
            return _shelved(found, index)
        code = found["code"] or index.own
        kind, label = (
            (found["kind"], found["label"]) if found["code"] else (found["own"], found["own_label"])
        )
        page = "" if code == index.own else index.pages[code]
        if not kind and not page:
            return f"[{code} {_escaped(index.titles[code])}](#main)"
        if not kind:
            return f"[{code} {_escaped(index.titles[code])}]({page})"
        target = index.targets[code][kind, label]
        shown = target.text if code == index.own else f"{code} {target.text}"
        title = f' "{target.title.replace(chr(34), chr(39))}"' if target.title else ""
        return f"[{shown}]({page}#{target.anchor}{title})"

    shown, last = [], 0
    for found in references_in(text):
        shown += [text[last : found.start()], link(found)]
        last = found.end()
    return "".join(shown) + text[last:]


def _shelved(found: re.Match, index: Chapters) -> str:
    """A citation, "[1]" linking to the chapter's References; a term, linking to the glossary."""
    if found["shelf"] == "cite":
        text, href, title = cite_target(found["key"], index.cited)
    else:
        (text, href), title = term_target(found["key"], index.terms), ""
    hover = f' "{title.replace(chr(34), chr(39))}"' if title else ""
    return f"[{_escaped(text)}]({href}{hover})"


IN_PAGE = re.compile(r'(<a\s[^>]*?\bhref=")#')
"""An in-page link in rendered text: the sanitiser writes every attribute in double quotes and
escapes any quote inside one, so this matches real links only."""


def links_to_page(html: str, page: str) -> str:
    """HTML rendered for a chapter's page (its texts link its own parts as `#prop-2`), to be
    shown on another page: each in-page link points at `page`, the chapter's address."""
    if 'href="#' not in html:
        return html
    return IN_PAGE.sub(lambda found: f"{found[1]}{escape(page)}#", html)


CHAPTER_LINK = re.compile(r'<a\s[^>]*?\bhref="/chapters/([^/"]+)/[^"]*"[^>]*>(.*?)</a>', re.DOTALL)
"""A link to another chapter's page or release in rendered text (double-quoted, as IN_PAGE)."""


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict | list):
        for each in value.values() if isinstance(value, dict) else value:
            yield from _texts(each)


def chapters_linked(snapshot: Mapping[str, Any]) -> set[str]:
    """The codes of the chapters a snapshot's rendered texts link to."""
    return {
        found[1]
        for text in _texts(snapshot)
        if 'href="/chapters/' in text
        for found in CHAPTER_LINK.finditer(text)
    }


def links_closed(value: Any, hidden: set[str]) -> Any:
    """A snapshot (or any part of one) whose links to `hidden` chapters show their words alone:
    a release keeps what it said, but a chapter withdrawn since is no link to a 404."""
    if isinstance(value, str):
        if 'href="/chapters/' not in value:
            return value
        return CHAPTER_LINK.sub(lambda found: found[2] if found[1] in hidden else found[0], value)
    if isinstance(value, dict):
        return {key: links_closed(each, hidden) for key, each in value.items()}
    if isinstance(value, list):
        return [links_closed(each, hidden) for each in value]
    return value


def chapter_reference_errors(chapter: Chapter) -> list[str]:
    """A saved chapter's references that name nothing readers can see (admin says so after a
    save; the gate refuses to publish them)."""
    document = chapter_document(chapters_with_parts().get(pk=chapter.pk))
    return [f"{path}: {why}" for path, why in reference_errors(document)]
