"""What a writer read of the working copy, and the refusal of a write over anything newer.

A writer names the version it read (an If-Match PUT or publish, an admin page's hidden
version, the Editor's review before Publish). The version is compared again under the chapter
lock, in the transaction that writes: whichever of two writers commits second then sees the
first's version and is refused (SourceChanged, 412), and nothing of it is written. A check
made before the lock (a form's) only refuses early; it never stands in for this one.
"""

import hashlib
import json
import re
from typing import Any

from curriculum.models import Chapter

from .documents import chapter_document
from .locks import chapter_lock
from .selectors import chapter_with_parts

ANY = "*"  # If-Match: * names whatever version there is
YAML_FORM = "-yaml"  # the YAML text's ETag: the version's, this added inside its quotes


NOT_A_SOURCE_TAG = (
    "If-Match names no version of the working copy (a chapter read's ETag names what readers "
    "are served, not the source): read the chapter's source and send the ETag it came with"
)
_SOURCE_TAG = re.compile(r'"[0-9a-f]{32}(?:' + YAML_FORM + ')?"')


def names_no_source(tags: frozenset[str]) -> bool:
    """Whether none of a writer's tags could be a version of the working copy (`source_tag`,
    in either form, or "*"): another ETag sent by mistake is told so, never that someone
    changed the chapter."""
    return not any(tag == ANY or _SOURCE_TAG.fullmatch(tag) for tag in tags)


class SourceChanged(Exception):
    """The working copy is no longer the one the writer read (HTTP 412): writing would lose
    another writer's edit."""


def chapter_source(*, code: str) -> dict[str, Any]:
    """The chapter document as a file holds it (JSON-ready); raises Chapter.DoesNotExist."""
    return chapter_document(chapter_with_parts(code=code))


def source_tag(*, code: str, document: dict[str, Any] | None = None) -> str:
    """The working copy's version as its file says it, a quoted strong ETag: it moves with every
    edit of the source and with nothing else (a verdict decided, a neighbour renamed). Given
    the `document` just read (`chapter_source`), it is not read again."""
    document = chapter_source(code=code) if document is None else document
    text = json.dumps(document, sort_keys=True, ensure_ascii=False)
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


def yaml_tag(tag: str) -> str:
    """The ETag of the YAML text of the version `tag` names: each form its own strong tag
    (RFC 9110), so a cache never answers one form's request with the other's 304."""
    return tag.removesuffix('"') + YAML_FORM + '"'


def tag_named(tag: str, tags: frozenset[str]) -> bool:
    """Whether the tags a writer read (an If-Match's, "*" for any) include `tag`, in either
    form: a writer who read the YAML read the same version."""
    return ANY in tags or tag in tags or yaml_tag(tag) in tags


def working_copy_require(*, chapter_id: int, tags: frozenset[str], at: bool = True) -> Chapter:
    """Lock the chapter for the rest of the caller's transaction, then refuse unless its working
    copy is at one of `tags` (If-Match), or, with `at` False, at none of them (If-None-Match:
    "*" names any); returns the locked row. Callers must be inside atomic()."""
    locked = chapter_lock(chapter_id=chapter_id)
    if at and names_no_source(tags):
        raise SourceChanged(NOT_A_SOURCE_TAG)
    if tag_named(source_tag(code=locked.code), tags) != at:
        raise SourceChanged(
            "the working copy changed since that version was read"
            if at
            else "the working copy is at a version If-None-Match names (any, for *)"
        )
    return locked
