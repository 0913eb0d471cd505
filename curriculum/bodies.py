"""Response bodies kept as bytes under a key that names their tag, for site and API alike:
each process's own copy first, then the shared cache (Django's own; settings.CACHES). The
version comes from the domain (`reading`: a chapter's freshness, the course's tag); what
the bytes are, and how long they are kept, is the web layer's."""

import threading
from collections import OrderedDict
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache

from curriculum.domain.markup import RENDER_FORMAT
from curriculum.domain.reading import Freshness, course_tag
from curriculum.domain.snapshots import SNAPSHOT_FORMAT


class ProcessBytes:
    """This process's copies of bytes kept under a key that names their version (a chapter body
    made for one version stays those bytes as long as that key is asked for), so another worker
    never serves them stale and a hit costs no round trip. The least recently read go first, at
    most `limit` bytes in all; a body over an eighth of that is never kept, so one huge chapter
    cannot push out the rest. Only for such keys: a count (a throttle's) must be shared."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size = limit, 0
        self.items: OrderedDict[str, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self.lock:
            body = self.items.get(key)
            if body is not None:
                self.items.move_to_end(key)
            return body

    def set(self, key: str, body: bytes) -> None:
        if len(body) > self.limit // 8:
            return
        with self.lock:
            old = self.items.pop(key, None)
            self.size += len(body) - (len(old) if old is not None else 0)
            self.items[key] = body
            while self.size > self.limit:
                _, dropped = self.items.popitem(last=False)
                self.size -= len(dropped)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.size = 0


BODY_CACHE_SECONDS = 7 * 24 * 3600
PROCESS_BODIES = ProcessBytes(settings.LOCAL_BODY_CACHE_BYTES)


def body_cached(*, kind: str, freshness: Freshness, make: Callable[[], bytes]) -> bytes:
    """A response body (chapter JSON, a page) made once per version of what it shows, then read
    from this process's copy, else the shared cache: a 200 costs the freshness query and a
    memory read. `kind` names the form and whatever else the bytes depend on (a template's
    version); the snapshot and render formats are in the key, so a deploy that changes them
    never serves old bytes, and so is the time of the version, so a database made again
    (release 1 anew) never meets an old release 1."""
    stamp = freshness.last_modified.isoformat()
    key = f"body:{kind}:{SNAPSHOT_FORMAT}:{RENDER_FORMAT}:{freshness.tag}:{stamp}"
    body = PROCESS_BODIES.get(key)
    if body is None:
        body = cache.get(key)
        if body is None:
            body = make()
            cache.set(key, body, timeout=BODY_CACHE_SECONDS)
        PROCESS_BODIES.set(key, body)
    return body


def listing_key(kind: str) -> str:
    """Where a list's bytes are kept for this version of the course: `kind` names the form, the
    reader's kind (staff see drafts) and the parameters."""
    return f"list:{kind}:{course_tag()}"


def listing_cached(*, kind: str, make: Callable[[], bytes]) -> bytes:
    """A list's bytes (the home page, a book's page) made once per version of the course, then
    served from this process's copy: the version query and a memory read. Only this process
    keeps them (what a list shows is the code's too, the ladder's names; a deploy starts new
    processes, empty)."""
    key = listing_key(kind)
    body = PROCESS_BODIES.get(key)
    if body is None:
        body = make()
        PROCESS_BODIES.set(key, body)
    return body
