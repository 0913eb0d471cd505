"""When what a reader is shown of a chapter last changed (HTTP Last-Modified).

It follows the same choice as `reading.chapter_for_reader`: the latest release when there is
one (its creation time), else the working copy (its `updated_at`, moved by every edit and by
every verdict request). Call it after `reading.chapter_version`, which decides visibility.
"""

from datetime import datetime

from django.db.models import Max

from curriculum.models import Chapter


def chapter_last_modified(*, code: str) -> datetime | None:
    row = (
        Chapter.objects.filter(code=code)
        .annotate(released_at=Max("releases__created_at"))
        .values("updated_at", "released_at")
        .first()
    )
    if row is None:
        return None
    return row["released_at"] or row["updated_at"]
