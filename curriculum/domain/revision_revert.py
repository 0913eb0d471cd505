"""Reverting a chapter to one of its revisions: that document imported again, through the one
service every writer uses (`ChapterImport`), with the user's permissions.

So the rules hold as for any import: each answer whose problem or solution changed is checked
again (its verdict pending until the engine decides), the gate reads the result, an answer
given back is checked back to verified, and a document that no longer fits (a Book 0 entry since
deleted, a limit since lowered) is refused with its paths, nothing written. The chapter keeps
its identity and state (code, book, number, state): publishing and withdrawing stay their own
acts. The revert is recorded as a new revision, "reverted to revision N".
"""

from typing import Any

from curriculum.models import Chapter, ChapterRevision

from .chapter_files import ChapterImport, ImportResult
from .writers import writing

KEPT_FIELDS = ("code", "book", "number", "state")  # the chapter's, whatever the revision says


def revert_document(*, revision: ChapterRevision, chapter: Chapter) -> dict[str, Any]:
    """The document a revert to `revision` imports: the revision's, in the chapter's identity."""
    kept = {"code": chapter.code, "book": chapter.book.numeral, "number": chapter.number}
    return {**revision.document, **kept, "state": str(chapter.state)}


def revert_import(
    *, revision: ChapterRevision, user: Any, opened: str | None = None
) -> ChapterImport:
    """The import a revert runs: over the version `opened` (`source_tag`) only, when given."""
    chapter = revision.chapter
    return ChapterImport(
        document=revert_document(revision=revision, chapter=chapter),
        expected_code=chapter.code,
        user=user,
        if_match=None if opened is None else frozenset({opened}),
    )


def chapter_revert(
    *, revision: ChapterRevision, user: Any, opened: str | None = None
) -> ImportResult:
    """Revert; raises as the import does (Forbidden, SourceChanged, ChapterFileError)."""
    with writing(user=user, via="revert", note=f"reverted to revision {revision.number}"):
        return revert_import(revision=revision, user=user, opened=opened).execute()
