"""Who else has a chapter's admin page open: a notice, not a lock.

Each opening of the page records its user and the time in Django's cache under the chapter
(never the database): forgotten after CHAPTER_OPEN_SECONDS without opening it again, or once
they save. The page names the others, at most LIMIT_OPEN_EDITORS_SHOWN, most recent first,
each since when they have had it open. What keeps an edit from being lost is the version check
(`working_copy`); this tells an author beforehand that a conflict is likely.
"""

from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone


@dataclass(frozen=True)
class OpenedBy:
    name: str
    since: datetime


def _key(chapter_id: int) -> str:
    return f"chapter-open:{chapter_id}"


def _fresh(chapter_id: int, now: float) -> dict[str, list]:
    """user id -> [name, since, last seen], as POSIX times; what has not expired."""
    stored = cache.get(_key(chapter_id)) or {}
    oldest = now - settings.CHAPTER_OPEN_SECONDS
    return {user: entry for user, entry in stored.items() if entry[2] >= oldest}


def chapter_opened(*, chapter_id: int, user) -> list[OpenedBy]:
    """Record that `user` has the chapter's page open now; who else has, bounded."""
    now = timezone.now().timestamp()
    opened = _fresh(chapter_id, now)
    me = str(user.pk)
    since = opened[me][1] if me in opened else now
    opened[me] = [user.get_username(), since, now]
    # bounded: the user and the most recently seen others the page may name
    recent = sorted(opened.items(), key=lambda item: item[1][2], reverse=True)
    kept = dict(recent[: settings.LIMIT_OPEN_EDITORS_SHOWN + 1])
    kept[me] = opened[me]
    cache.set(_key(chapter_id), kept, timeout=settings.CHAPTER_OPEN_SECONDS)
    others = [entry for user_id, entry in recent if user_id != me]
    return [
        OpenedBy(name=name, since=datetime.fromtimestamp(since, tz=UTC))
        for name, since, _ in others[: settings.LIMIT_OPEN_EDITORS_SHOWN]
    ]


def chapter_closed(*, chapter_id: int, user) -> None:
    """The user saved: they no longer hold the page open (a page opened again records anew)."""
    opened = _fresh(chapter_id, timezone.now().timestamp())
    if opened.pop(str(user.pk), None) is not None:
        cache.set(_key(chapter_id), opened, timeout=settings.CHAPTER_OPEN_SECONDS)
