"""A chapter's history: its working copy as a document after every committed write.

Each write that moves a chapter (`revisions.chapters_revised`, sent once it commits) is
recorded as one `ChapterRevision` per chapter whose document changed, with who wrote it and
through what (`writers`): one row per committed write, whatever number of rows the write
touched. Writes that change no document (a verdict decided, a neighbour renamed) record
nothing. The newest REVISIONS_KEPT of a chapter are kept.

Recorded after the commit, under the chapter's lock: two writers committing within the same
instant may be recorded as one revision, the later state under the earlier writer.
"""

import json
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max

from curriculum.models import Chapter, ChapterRevision

from .locks import chapters_lock
from .publications import release_maker
from .selectors import ChapterDocuments
from .working_copy import source_tag
from .writers import Writer

HISTORY_BEGAN = "the working copy when its history began"


def history_record(
    *, chapter_ids: Iterable[int], writer: Writer, documents: ChapterDocuments | None = None
) -> list[ChapterRevision]:
    """A revision of each of these chapters whose working copy is not its latest revision's
    (`documents`: theirs, when others read them too: `revised_documents`)."""
    documents = ChapterDocuments(chapter_ids) if documents is None else documents
    with transaction.atomic():
        locked = chapters_lock(chapter_ids=chapter_ids)
        latest = dict(
            ChapterRevision.objects.filter(chapter_id__in=locked)
            .values_list("chapter_id")
            .annotate(Max("number"))
        )
        tags = dict(
            ChapterRevision.objects.filter(
                chapter_id__in=latest, number__in=set(latest.values())
            ).values_list("chapter_id", "tag")
        )
        made = []
        for chapter, document in documents():  # read under the lock, as it stands now
            tag = source_tag(code=chapter.code, document=document)
            if tags.get(chapter.pk) == tag:
                continue
            made.append(_revision(chapter, latest.get(chapter.pk, 0) + 1, document, tag, writer))
        ChapterRevision.objects.bulk_create(made)
        for revision in made:
            if revision.number > settings.REVISIONS_KEPT:
                ChapterRevision.objects.filter(
                    chapter_id=revision.chapter_id,
                    number__lte=revision.number - settings.REVISIONS_KEPT,
                ).delete()
    return made


def _revision(
    chapter: Chapter, number: int, document: dict[str, Any], tag: str, writer: Writer
) -> ChapterRevision:
    user = writer.user if getattr(writer.user, "pk", None) else None
    return ChapterRevision(
        chapter=chapter,
        number=number,
        text=json.dumps(document, ensure_ascii=False),
        tag=tag,
        created_by=user,
        made_by=release_maker(user=user),
        via=writer.via,
        note=writer.note,
    )


def history_begin() -> int:
    """A first revision of every chapter that has none (a database from before the history),
    so its next edit can be compared and reverted; after migrate. Returns how many."""
    missing = Chapter.objects.filter(history__isnull=True).values_list("pk", flat=True)
    return len(history_record(chapter_ids=list(missing), writer=Writer(note=HISTORY_BEGAN)))


def chapter_history(*, chapter: Chapter) -> list[ChapterRevision]:
    """The chapter's kept revisions, newest first, without their documents."""
    return list(
        ChapterRevision.objects.filter(chapter=chapter)
        .defer("text")
        .select_related("created_by")
        .order_by("-number")
    )
