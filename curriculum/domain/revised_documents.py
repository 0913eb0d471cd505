"""What a committed write keeps of its chapters' documents, from one read of each: the
verdicts their claims lack are asked for (`claims.requests`), a revision is recorded in their
history (`chapter_history`) and the chapters their texts name are stored (`references`).

The receiver of `revisions.chapters_revised` for all three (connected when the app is ready).
Each had read the chapters whole for itself: three reads of a chapter of 20,000 problems through
the ORM, 6.5 s of its import's 24. They share one (`selectors.ChapterDocuments`), read under
the chapters' lock and read again for a chapter another write moved meanwhile.
"""

from collections.abc import Iterable
from typing import Any

from .chapter_history import history_record
from .claims.requests import claims_request
from .references import references_store
from .selectors import ChapterDocuments
from .writers import Writer


def documents_revised(sender: Any, *, chapter_ids: Iterable[int], **kwargs: Any) -> None:
    documents = ChapterDocuments(chapter_ids)
    claims_request(chapter_ids, documents)
    writer = kwargs.get("writer") or Writer()
    history_record(chapter_ids=chapter_ids, writer=writer, documents=documents)
    references_store(chapter_ids=chapter_ids, documents=documents)
